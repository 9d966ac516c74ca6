"""The admin index as a status page: the health verdict, the outbox, recent runs and alerts.

`LagoAdminSite.index` passes `dashboard_context()` to templates/admin/index.html;
the site replaces Django's default one through `tracker.apps.LagoAdminConfig`.
"""

from urllib.parse import urlencode

from django.contrib import admin
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from notifications import telegram
from notifications.models import TelegramChat
from operations.health import health_report
from operations.stats import WINDOW, summary, zero_result_alerts
from scraping.error_texts import explain
from scraping.models import ScrapeRun
from tracker.models import Keyword

PROBLEM_STATUSES = [ScrapeRun.Status.FAILED, ScrapeRun.Status.BANNED, ScrapeRun.Status.SKIPPED]


def changelist(model_name, app_label, **params):
    url = reverse(f"admin:{app_label}_{model_name}_changelist")
    return f"{url}?{urlencode(params)}" if params else url


def _runs_24h(stats, since):
    since_param = timezone.localtime(since).isoformat(sep=" ", timespec="seconds")
    return [
        {
            "status": status,
            "label": ScrapeRun.Status(status).label
            if status in ScrapeRun.Status.values
            else status,
            "count": count,
            "url": changelist(
                "scraperun", "scraping", status__exact=status, started_at__gte=since_param
            ),
        }
        for status, count in stats["runs_24h"].items()
    ]


def _recent_problems(limit=10):
    """The newest failed, banned or skipped runs: one query per status, each the newest `limit` rows
    of scraperun_status_idx (status, started_at). One `status IN (…)` query sorts every problem run
    of the retained history (hundreds of thousands at six months) to keep ten."""
    newest = []
    for status in PROBLEM_STATUSES:
        newest += (
            ScrapeRun.objects.filter(status=status)
            .select_related("keyword")
            .order_by("-started_at", "-id")[:limit]
        )
    runs = sorted(newest, key=lambda run: (run.started_at, run.pk), reverse=True)[:limit]
    return [
        {
            "run": run,
            "url": reverse("admin:scraping_scraperun_change", args=[run.pk]),
            "words": explain(run.error, run.source).text if run.error else "",
        }
        for run in runs
    ]


def _failures_in_words(scraping):
    """One line per source and error behind a degraded verdict (failing keywords, then sources
    without a success), in words."""
    seen = {}
    for k in scraping["failing"]:
        error = k["last_error"] or k["last_finished_status"]
        seen.setdefault((k["source"], error), explain(error, k["source"]))
    for source in sorted(scraping["stale"]):
        seen.setdefault((source, "no_success"), explain("no_success", source))
    return [{"source": s, "slug": e, "words": words} for (s, e), words in seen.items()]


def _open_alerts():
    """Keywords with an open failing or zero-result alert, failing first (few rows)."""
    failing = Keyword.objects.filter(failing_alert_at__isnull=False).values(
        "id", "name", "query", "source", "failing_alert_at", "last_error"
    )
    alerts = [
        {
            "id": k["id"],
            "name": k["name"] or k["query"],
            "since": k["failing_alert_at"],
            "failing": explain(k["last_error"], k["source"]),
        }
        for k in failing.order_by("failing_alert_at", "id")
    ]
    alerts += zero_result_alerts()
    return [{**a, "url": reverse("admin:tracker_keyword_change", args=[a["id"]])} for a in alerts]


def _telegram():
    """The bot's state (getMe, cached by notifications.telegram), the chats waiting for approval
    (a few rows) and whether any admin chat would hear alerts."""
    pending = TelegramChat.objects.filter(status=TelegramChat.Status.PENDING)
    return {
        "bot": telegram.bot_state(),
        "pending": list(pending.order_by("created_at", "id")[:20]),
        "pending_url": changelist("telegramchat", "notifications", status__exact="pending"),
        # The approve buttons post the chat list's own "approve" action: its permission check,
        # CSRF and messages.
        "chats_url": changelist("telegramchat", "notifications"),
        "no_admin_chat": not TelegramChat.objects.admins().exists(),
    }


def _destinations(stats):
    """Every Apprise destination with its last success and error (URL masked), and the open
    problems among them: paused (by an operator or after a dead message) or with dead rows."""
    rows = stats["destinations"]
    problems = [d for d in rows if d["status"] != TelegramChat.Status.ACTIVE]
    return {
        "rows": rows,
        "problems": problems,
        "dead": stats["notifications_per_channel"]["apprise"]["dead"],
        "url": changelist("destination", "notifications"),
        "dead_url": changelist("notification", "notifications", status__exact="dead"),
    }


def dashboard_context(now=None):
    now = now or timezone.now()
    report = health_report(now)
    if not report["db_connected"]:
        return {"health": report}
    # Not collect_stats(): the dashboard shows no per-keyword row, only the open alerts.
    stats = summary(now, queue=report["queue"])
    queue = report["queue"]
    return {
        "health": report,
        "queue": queue,
        "queue_urls": {
            "pending": changelist("notification", "notifications", status__exact="pending"),
            "dead": changelist("notification", "notifications", status__exact="dead"),
        },
        "runs_24h": _runs_24h(stats, now - WINDOW),
        # Seconds since a big installation's cached run figures were read (operations.stats_cache);
        # None: read now.
        "runs_age_s": int((now - stats["read_at"]["runs_24h"]).total_seconds()) or None,
        "failures": _failures_in_words(report["scraping"]),
        "alerts": _open_alerts(),
        "telegram": _telegram(),
        "destinations": _destinations(stats),
        "alerts_url": changelist("keyword", "tracker", alert="yes"),
        "problem_runs": _recent_problems(),
        "problem_runs_url": changelist(
            "scraperun", "scraping", status__in=",".join(PROBLEM_STATUSES)
        ),
        # "~": the planner's estimate (operations.stats.cheap_count), not a count.
        "ads": {
            k: f"~{stats[k]}" if k in stats["estimated"] else stats[k]
            for k in ("ads_indexed", "ads_new_24h", "price_drops_24h")
        },
    }


class LagoAdminSite(admin.AdminSite):
    site_header = "Lago"
    site_title = _("Lago admin")
    index_title = _("Status")

    # Lago's apps in layer order, then the rest (auth); django-q2's task-queue internals last.
    APP_ORDER = ["tracker", "notifications", "scraping", "operations"]
    LAST = ["django_q"]

    def get_app_list(self, request, app_label=None):
        def rank(app):
            label = app["app_label"]
            if label in self.APP_ORDER:
                return (0, self.APP_ORDER.index(label))
            return (2, 0) if label in self.LAST else (1, 0)

        return sorted(super().get_app_list(request, app_label), key=rank)

    def index(self, request, extra_context=None):
        context = {
            "dashboard": dashboard_context(),
            "can_approve_chats": request.user.has_perm("notifications.change_telegramchat"),
        }
        return super().index(request, {**context, **(extra_context or {})})
