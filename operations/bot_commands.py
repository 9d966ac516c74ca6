"""The bot's admin-only commands /stats and /health, registered with notifications.bot.admin_commands."""

from notifications.bot import admin_commands
from notifications.bot.replies import ChatRef, Reply
from notifications.messages import esc
from notifications.models import Notification
from operations.health import health_report
from operations.stats import collect_stats


@admin_commands.register("stats", "figures of the last 24 h")
def stats(ref: ChatRef, args=()) -> Reply:
    s = collect_stats()
    runs = ", ".join(f"{k} {v}" for k, v in s["runs_24h"].items() if v) or "none"
    lines = [
        "<b>Lago stats</b> (last 24 h)",
        f"Keywords: {s['keywords']} ({s['active_keywords']} active)",
        f"Ads: {s['ads_indexed']} indexed, {s['ads_new_24h']} new, {s['price_drops_24h']} price drops",
        "Notifications: " + ", ".join(f"{st} {s[f'notifications_{st}']}" for st in Notification.Status.values),
        f"Runs: {esc(runs)}",
        "Deep sweeps: " + (", ".join(f"{k} {v}" for k, v in s["sweeps_24h"].items() if v) or "none"),
        f"HTTP 429: willhaben {s['http_429_24h']['willhaben']}, telegram {s['http_429_24h']['telegram']}",
    ]
    if s["overdue_keywords"]:
        lines.append("Overdue: " + ", ".join(f"#{k['id']} {esc(k['name'])}" for k in s["overdue_keywords"][:10]))
    if s["zero_result_alerts"]:
        lines.append("Zero results: " + ", ".join(f"#{k['id']} {esc(k['name'])}" for k in s["zero_result_alerts"][:10]))
    return Reply("\n".join(lines))


@admin_commands.register("health", "is Lago working?")
def health(ref: ChatRef, args=()) -> Reply:
    report = health_report(grace=False)
    if report["status"] == "ok":
        lines = ["✅ <b>Lago is healthy</b>"]
    elif report["status"] == "degraded":
        lines = ["⚠️ <b>Degraded</b>: scraping fails"] + [f"• {esc(p)}" for p in report["problems"]]
    else:
        lines = [f"❌ <b>Unhealthy</b>: {esc(report['reason'])}"] + [f"• {esc(p)}" for p in report["problems"][1:]]
    queue = report.get("queue")
    if queue:
        lines.append(f"Queue: {queue['pending']} pending, {queue['dead']} dead")
    if report["sending_paused"]:
        lines.append("Sending is paused (no bot token).")
    return Reply("\n".join(lines))
