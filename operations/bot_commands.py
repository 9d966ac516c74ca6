"""The bot's admin-only commands /stats and /health, registered with
notifications.bot.admin_commands."""

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from notifications.bot import admin_commands
from notifications.bot.replies import ChatRef, Reply
from notifications.messages import esc
from notifications.models import Notification
from operations.health import health_report
from operations.stats import collect_stats


@admin_commands.register("stats", gettext_noop("figures of the last 24 h"))
def stats(ref: ChatRef, args=()) -> Reply:
    s = collect_stats()
    runs = ", ".join(f"{k} {v}" for k, v in s["runs_24h"].items() if v) or _("none")
    lines = [
        "<b>" + _("Lago stats") + "</b> " + _("(last 24 h)"),
        _("Keywords: %(total)s (%(active)s active)")
        % {"total": s["keywords"], "active": s["active_keywords"]},
        _("Ads: %(indexed)s indexed, %(new)s new, %(drops)s price drops")
        % {"indexed": s["ads_indexed"], "new": s["ads_new_24h"], "drops": s["price_drops_24h"]},
        _("Notifications: ")
        + ", ".join(f"{st} {s[f'notifications_{st}']}" for st in Notification.Status.values),
        _("Runs: ") + esc(runs),
        _("Deep sweeps: ")
        + (", ".join(f"{k} {v}" for k, v in s["sweeps_24h"].items() if v) or _("none")),
        f"HTTP 429: willhaben {s['http_429_24h']['willhaben']}, telegram "
        f"{s['http_429_24h']['telegram']}",
    ]
    if s["overdue_keywords"]:
        lines.append(
            _("Overdue: ")
            + ", ".join(f"#{k['id']} {esc(k['name'])}" for k in s["overdue_keywords"][:10])
        )
    if s["zero_result_alerts"]:
        lines.append(
            _("Zero results: ")
            + ", ".join(f"#{k['id']} {esc(k['name'])}" for k in s["zero_result_alerts"][:10])
        )
    return Reply("\n".join(lines))


@admin_commands.register("health", gettext_noop("is Lago working?"))
def health(ref: ChatRef, args=()) -> Reply:
    report = health_report(grace=False)
    if report["status"] == "ok":
        lines = ["✅ <b>" + _("Lago is healthy") + "</b>"]
    elif report["status"] == "degraded":
        lines = ["⚠️ <b>" + _("Degraded") + "</b>: " + _("scraping fails")] + [
            f"• {esc(p)}" for p in report["problems"]
        ]
    else:
        lines = ["❌ <b>" + _("Unhealthy") + f"</b>: {esc(report['reason'])}"] + [
            f"• {esc(p)}" for p in report["problems"][1:]
        ]
    queue = report.get("queue")
    if queue:
        lines.append(_("Queue: %(pending)s pending, %(dead)s dead") % queue)
    if report["sending_paused"]:
        lines.append(_("Sending is paused (no bot token)."))
    return Reply("\n".join(lines))
