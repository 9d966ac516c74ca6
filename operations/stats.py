"""The figures behind /stats, /metrics and `manage.py status`.

A fixed number of aggregate queries whatever the size of the data (no
per-keyword query). Datetimes stay datetimes here; JsonResponse's encoder
turns them into ISO strings, /metrics into Unix timestamps.

Windows: "24h" figures count rows whose start (`started_at`, `first_seen_at`,
`seen_at`, `created_at`) lies in the last 24 hours; an index on that column serves each.

No table is read in full. Exact: every 24 h figure, the keywords, the
pending and dead notifications (a partial index holds only those). On a big
installation (10,000 runs or more in 24 h) the 24 h run figures and the keyword rows
are exact but up to STATS_CACHE_S (30 s) old: "read_at" says when they were read
(operations.stats_cache). Estimated on
PostgreSQL once a figure passes lib.big_tables.EXACT_BELOW (10,000) rows: ads
indexed (the table's `pg_class.reltuples`) and sent/cancelled notifications (the
planner's row estimate); `estimated` lists the figures that are estimates.
"""

from datetime import timedelta

from django.db import connections
from django.db.models import Count, OuterRef, Q, Subquery
from django.utils import timezone

from lib.big_tables import EXACT_BELOW, estimated_count
from notifications.models import Destination, Notification
from operations import stats_cache
from scraping.models import ScrapeRun
from scraping.run_hours import window_rows
from scraping.sources import registry
from tracker.models import Ad, Keyword, PriceChange

WINDOW = timedelta(hours=24)
# The seed's rule: a keyword is overdue when its last run is older than 2 × interval + 60 s.
OVERDUE_SLACK_S = 60
# What the Telegram sender writes into Notification.last_error on a flood wait.
TELEGRAM_429_PREFIXES = ("429", "RetryAfter")


def overdue_after_s(interval_minutes):
    return 2 * interval_minutes * 60 + OVERDUE_SLACK_S


RUN_FIELDS = ("id", "status", "started_at", "finished_at", "ads_seen", "ads_new", "error")
KEYWORD_FIELDS = (
    "id",
    "name",
    "query",
    "source",
    "is_active",
    "interval_minutes",
    "last_run_at",
    "next_run_at",
    "last_success_at",
    "consecutive_failures",
    "zero_result_alert_at",
    "created_at",
)


def _overdue_s(keyword, now):
    """Seconds past the overdue limit, or None. A keyword that never ran counts from its
    creation."""
    if not keyword["is_active"]:
        return None
    reference = keyword["last_run_at"] or keyword["created_at"]
    late = (now - reference).total_seconds() - overdue_after_s(keyword["interval_minutes"])
    return int(late) if late > 0 else None


def keyword_values(latest_runs=True):
    """Every keyword's shown columns and, with `latest_runs`, its latest run (a skip does not hide
    the run before it) as "last_run": two queries (one without `latest_runs`: /metrics shows no
    run).

    The last success is the keyword's stored `last_success_at` (set when a run finishes):
    searching a failing keyword's history for its last done run reads every run since.
    Dicts of the shown columns only (no model instances, no error bodies): the cost grows
    with the number of keywords, not with their history.
    """
    keywords = Keyword.objects.all()
    if not latest_runs:
        return list(keywords.values(*KEYWORD_FIELDS))
    runs = (
        ScrapeRun.objects.filter(keyword=OuterRef("pk"))
        .exclude(status=ScrapeRun.Status.SKIPPED)
        .order_by("-started_at")
    )
    keywords = list(
        keywords.annotate(latest_run_id=Subquery(runs.values("pk")[:1])).values(
            *KEYWORD_FIELDS, "latest_run_id"
        )
    )
    run_ids = [k["latest_run_id"] for k in keywords if k["latest_run_id"]]
    latest = (
        {
            run["id"]: run
            for run in ScrapeRun.objects.filter(pk__in=run_ids).order_by().values(*RUN_FIELDS)
        }
        if run_ids
        else {}
    )
    for k in keywords:
        k["last_run"] = latest.get(k.pop("latest_run_id"))
    return keywords


def keyword_rows(now, latest_runs=True, values=None):
    """The per-keyword rows of /stats from keyword_values() (read now unless `values` is given),
    overdue as of `now`."""
    rows = []
    for k in keyword_values(latest_runs) if values is None else values:
        row = {
            "id": k["id"],
            "name": k["name"] or k["query"],  # Keyword.display_name
            "source": k["source"],
            "is_active": k["is_active"],
            "interval_minutes": k["interval_minutes"],
            "last_run_at": k["last_run_at"],
            "next_run_at": k["next_run_at"],
            "last_success_at": k["last_success_at"],
            "consecutive_failures": k["consecutive_failures"],
            "zero_result_alert_at": k["zero_result_alert_at"],
            "overdue_s": _overdue_s(k, now),
        }
        if "last_run" in k:
            row["last_run"] = k["last_run"]
        rows.append(row)
    return rows


def zero_result_alerts():
    """The keywords with an open zero-result alert (few rows), without reading every keyword's
    row."""
    alerts = Keyword.objects.filter(zero_result_alert_at__isnull=False).values(
        "id", "name", "query", "zero_result_alert_at"
    )
    return [
        {"id": k["id"], "name": k["name"] or k["query"], "since": k["zero_result_alert_at"]}
        for k in alerts
    ]


def cheap_count(queryset):
    """(rows, estimated): the planner's estimate on PostgreSQL at EXACT_BELOW rows and more, else
    COUNT(*)."""
    connection = connections[queryset.db]
    if connection.vendor == "postgresql":
        estimate = estimated_count(queryset, connection)
        if estimate is not None and estimate >= EXACT_BELOW:
            return estimate, True
    return queryset.count(), False


def ad_counts(since):
    total, estimated = cheap_count(Ad.objects.all())
    new = Ad.objects.filter(first_seen_at__gte=since).count()
    drops = PriceChange.objects.drops().filter(seen_at__gte=since).count()
    return {"ads_indexed": total, "ads_new_24h": new, "price_drops_24h": drops}, [
        "ads_indexed"
    ] if estimated else []


def notification_counts(queue=None):
    """Pending and dead exactly, sent and cancelled maybe estimated.

    Pending and dead are counted from notification_open_idx alone (COUNT(*) over its columns:
    an index-only scan on PostgreSQL), or taken from `queue`, the health report's
    queue_summary() of the same moment, when the page already has one.
    """
    counts = {f"notifications_{status}": 0 for status in Notification.Status.values}
    if queue is not None:
        counts.update(notifications_pending=queue["pending"], notifications_dead=queue["dead"])
    else:
        open_statuses = [Notification.Status.PENDING, Notification.Status.DEAD]
        rows = (
            Notification.objects.filter(status__in=open_statuses)
            .values_list("status")
            .annotate(n=Count("*"))
            .order_by()
        )
        counts.update({f"notifications_{status}": n for status, n in rows})
    estimated = []
    for status in (Notification.Status.SENT, Notification.Status.CANCELLED):
        counts[f"notifications_{status}"], guessed = cheap_count(
            Notification.objects.filter(status=status)
        )
        if guessed:
            estimated.append(f"notifications_{status}")
    return counts, estimated


def destinations(totals):
    """The Apprise destinations with their health (URL masked), and the outbox per channel kind
    (sent, pending, dead) from `totals`, notification_counts()'s figures.

    Destinations are few: their rows are counted per status through notification_chat_idx
    (chat, status); Telegram's are the rest of each total, so no query visits the open rows
    beyond what notification_open_idx answers.
    """
    rows = list(
        Destination.objects.order_by("title").only(
            "title",
            "apprise_url",
            "status",
            "status_reason",
            "last_success_at",
            "last_error_at",
            "last_error",
        )
    )
    health = [
        {
            "name": d.title,
            "url": d.masked_url,
            "status": d.status,
            "status_reason": d.status_reason,
            "last_success_at": d.last_success_at,
            "last_error_at": d.last_error_at,
            "last_error": d.last_error,
        }
        for d in rows
    ]
    outcomes = ("sent", "pending", "dead")
    apprise = dict.fromkeys(outcomes, 0)
    if rows:
        per_status = (
            Notification.objects.filter(chat_id__in=[d.pk for d in rows])
            .values_list("status")
            .annotate(n=Count("*"))
            .order_by()
        )
        apprise.update({status: n for status, n in per_status if status in apprise})
    telegram = {o: max(totals[f"notifications_{o}"] - apprise[o], 0) for o in outcomes}
    return health, {"telegram": telegram, "apprise": apprise}


def run_window(since, now=None):
    """The runs started since `since`: (runs by status, deep sweeps by status, skipped windows
    by reason, willhaben's 429 responses). Settled hours come summed from scraping.run_hours.

    A collapsed skip row counts once in the runs and counters["skips"] times (1 when absent)
    in the skips.
    """
    rows = window_rows(since, now or timezone.now())
    runs = dict.fromkeys(ScrapeRun.Status.values, 0)
    sweeps = dict.fromkeys(ScrapeRun.Status.values, 0)
    skips, http_429 = {}, 0
    for kind, status, error, n, skipped, hits in rows:
        runs[status] += n
        if kind == ScrapeRun.Kind.SWEEP:
            sweeps[status] += n
        if status == ScrapeRun.Status.SKIPPED:
            reason = error or "unknown"
            skips[reason] = skips.get(reason, 0) + skipped
        http_429 += hits
    return runs, sweeps, dict(sorted(skips.items())), http_429


def big_window(figures):
    """Does run_window() say the installation is big (EXACT_BELOW runs or more in 24 h)? Then its
    readings are cached (operations.stats_cache)."""
    return sum(figures[0].values()) >= EXACT_BELOW


def cached_run_window(now):
    """(read_at, run_window()): a big window is read at most once per STATS_CACHE_S, a small one
    every time.

    At 300 keywords every 5 minutes that is 86,400 rows a day, 50–100 ms to read.
    """
    return stats_cache.reading(
        "run_window", now, lambda: run_window(now - WINDOW, now), keep=big_window
    )


def cached_keyword_values(now, latest_runs, big):
    """(read_at, keyword_values()): cached like the run window when `big`."""
    name = "keywords" if latest_runs else "keywords_without_runs"
    return stats_cache.reading(
        name, now, lambda: keyword_values(latest_runs), keep=lambda values: big
    )


def telegram_429(since):
    """Notifications created in the window whose last send attempt hit Telegram's flood limit (a
    lower bound)."""
    hit = Q()
    for prefix in TELEGRAM_429_PREFIXES:
        hit |= Q(last_error__startswith=prefix)
    return Notification.objects.filter(hit, created_at__gte=since).count()


def last_success_per_source(keywords):
    """Derived from the keyword rows; every enabled source appears (None: never succeeded), and
    a disabled one whose keywords have succeeded."""
    latest = dict.fromkeys(registry.enabled())
    for k in keywords:
        when = k["last_success_at"]
        if when and (latest.get(k["source"]) is None or when > latest[k["source"]]):
            latest[k["source"]] = when
    return latest


def summary(now, queue=None, window=None):
    """The figures that are not per keyword: ads, notifications, the 24 h runs and 429s (the
    dashboard's).

    `window`: cached_run_window(now), when the caller has read it. "read_at" says when the
    run figures were read: `now`, or up to STATS_CACHE_S before on a big installation.
    """
    since = now - WINDOW
    runs_read_at, (runs, sweeps, skips, willhaben_429) = window or cached_run_window(now)
    ads, ads_estimated = ad_counts(since)
    notifications, notifications_estimated = notification_counts(queue)
    destination_rows, per_channel = destinations(notifications)
    return {
        **ads,
        **notifications,
        "notifications_per_channel": per_channel,
        "destinations": destination_rows,
        "estimated": ads_estimated + notifications_estimated,
        "read_at": {"runs_24h": runs_read_at},
        "runs_24h": runs,
        "sweeps_24h": sweeps,
        "skips_24h": skips,
        "http_429_24h": {"willhaben": willhaben_429, "telegram": telegram_429(since)},
    }


def collect_stats(now=None, queue=None, latest_runs=True):
    """Every figure of /stats. `queue`: the health report's queue_summary(), when the caller has
    one; `latest_runs=False` leaves out each keyword's latest run (`keyword_runs[…]["last_run"]`).

    "read_at" says when the cached readings were taken ("runs_24h", "keyword_runs"): `now`
    unless the installation is big (operations.stats_cache); overdue is always as of `now`.
    """
    now = now or timezone.now()
    window = cached_run_window(now)
    keywords_read_at, values = cached_keyword_values(now, latest_runs, big=big_window(window[1]))
    keywords = keyword_rows(now, values=values)
    figures = summary(now, queue, window)
    figures["read_at"]["keyword_runs"] = keywords_read_at
    return {
        "generated_at": now,
        "keywords": len(keywords),
        "active_keywords": sum(1 for k in keywords if k["is_active"]),
        **figures,
        "zero_result_alerts": [
            {"id": k["id"], "name": k["name"], "since": k["zero_result_alert_at"]}
            for k in keywords
            if k["zero_result_alert_at"]
        ],
        "overdue_keywords": [
            {
                "id": k["id"],
                "name": k["name"],
                "last_run_at": k["last_run_at"],
                "overdue_s": k["overdue_s"],
            }
            for k in keywords
            if k["overdue_s"] is not None
        ],
        "last_success_per_source": last_success_per_source(keywords),
        "keyword_runs": keywords,
    }
