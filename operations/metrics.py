"""Prometheus text for /metrics, built from collect_stats() and health_report().

Each request gets a fresh CollectorRegistry: the figures live in the
database, not in process memory, and the global registry would
double-register across gunicorn workers and tests.
"""

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def _gauge(name, doc, value):
    return GaugeMetricFamily(name, doc, value=value)


def _labelled_gauge(name, doc, label, values):
    family = GaugeMetricFamily(name, doc, labels=[label])
    for key, value in values.items():
        family.add_metric([str(key)], value)
    return family


def _timestamp(moment):
    return moment.timestamp() if moment else 0


def _keyword_families(keywords):
    labels = ["keyword_id", "keyword", "source"]
    success = GaugeMetricFamily(
        "lago_keyword_last_success_timestamp_seconds",
        "Finish time of the keyword's last successful scrape (0: never).",
        labels=labels,
    )
    overdue = GaugeMetricFamily(
        "lago_keyword_overdue_seconds",
        "Seconds an active keyword is past its overdue limit (0: on time).",
        labels=labels,
    )
    failures = GaugeMetricFamily(
        "lago_keyword_consecutive_failures",
        "Finished runs in a row that ended failed/banned (skips not counted).",
        labels=labels,
    )
    for k in keywords:
        key = [str(k["id"]), k["name"], k["source"]]
        success.add_metric(key, _timestamp(k["last_success_at"]))
        overdue.add_metric(key, k["overdue_s"] or 0)
        failures.add_metric(key, k["consecutive_failures"])
    return [success, overdue, failures]


def _health_families(health):
    queue = health["queue"] or {}
    yield _gauge("lago_healthy", "1 when /health says ok.", 1 if health["status"] == "ok" else 0)
    yield _gauge(
        "lago_degraded",
        "1 when /health says degraded (a marketplace fails).",
        1 if health["status"] == "degraded" else 0,
    )
    if "scraping" in health:
        up = {source: 1 if ok else 0 for source, ok in health["scraping"]["sources_up"].items()}
        yield _labelled_gauge(
            "lago_source_up", "1 when a source with active keywords is not failing.", "source", up
        )
    yield _gauge(
        "lago_db_connected", "1 when the database answers.", 1 if health["db_connected"] else 0
    )
    yield _gauge(
        "lago_sending_paused",
        "1 when sending is paused (no bot token).",
        1 if health["sending_paused"] else 0,
    )
    yield _gauge(
        "lago_uptime_seconds", "Seconds since this web process started.", health["uptime_seconds"]
    )
    if health["scheduler_age_s"] is not None:
        yield _gauge(
            "lago_scheduler_heartbeat_age_seconds",
            "Seconds since the scheduler tick last beat.",
            health["scheduler_age_s"],
        )
    if queue.get("oldest_pending_age_s") is not None:
        yield _gauge(
            "lago_queue_oldest_pending_age_seconds",
            "Age of the oldest pending notification.",
            queue["oldest_pending_age_s"],
        )


def _per_channel(counts):
    family = GaugeMetricFamily(
        "lago_channel_notifications",
        "Notifications per channel kind (telegram, apprise) and outcome: sent (and still stored; "
        "Telegram's estimated with the total on PostgreSQL), pending, dead.",
        labels=["channel", "outcome"],
    )
    for channel, outcomes in counts.items():
        for outcome, n in outcomes.items():
            family.add_metric([channel, outcome], n)
    return family


def _stats_families(stats):
    yield _gauge("lago_keywords", "Keywords.", stats["keywords"])
    yield _gauge("lago_keywords_active", "Active keywords.", stats["active_keywords"])
    yield _gauge(
        "lago_keywords_overdue",
        "Active keywords past 2 x interval + 60 s.",
        len(stats["overdue_keywords"]),
    )
    yield _gauge(
        "lago_zero_result_alerts_open",
        "Keywords with an open zero-result alert.",
        len(stats["zero_result_alerts"]),
    )
    yield _gauge(
        "lago_ads_indexed",
        "Ads stored (PostgreSQL: the planner's estimate from 10,000 rows).",
        stats["ads_indexed"],
    )
    yield _gauge("lago_ads_new_24h", "Ads first seen in the last 24 h.", stats["ads_new_24h"])
    yield _gauge(
        "lago_price_drops_24h", "Price drops seen in the last 24 h.", stats["price_drops_24h"]
    )
    yield CounterMetricFamily(
        "lago_notifications_sent",
        "Notifications sent and still stored (retention deletes them after "
        "RETENTION_NOTIFICATIONS_DAYS; "
        "PostgreSQL: the planner's estimate from 10,000 rows).",
        value=stats["notifications_sent"],
    )
    statuses = {s: stats[f"notifications_{s}"] for s in ("pending", "dead", "cancelled")}
    yield _labelled_gauge(
        "lago_notifications",
        "Notifications not sent, by status (cancelled: estimated from 10,000 rows on PostgreSQL).",
        "status",
        statuses,
    )
    yield _per_channel(stats["notifications_per_channel"])
    yield _labelled_gauge(
        "lago_scrape_runs_24h",
        "Scrape run rows started in the last 24 h, by status.",
        "status",
        stats["runs_24h"],
    )
    yield _labelled_gauge(
        "lago_scrape_skips_24h",
        "Skipped scrape windows in the last 24 h, by reason.",
        "reason",
        stats["skips_24h"],
    )
    yield _labelled_gauge(
        "lago_http_429_24h",
        "HTTP 429 responses recorded in the last 24 h, by peer.",
        "peer",
        stats["http_429_24h"],
    )
    last = {source: _timestamp(when) for source, when in stats["last_success_per_source"].items()}
    yield _labelled_gauge(
        "lago_source_last_success_timestamp_seconds",
        "Finish time of the last successful scrape per source (0: never).",
        "source",
        last,
    )
    yield _labelled_gauge(
        "lago_stats_read_timestamp_seconds",
        "When these figures were read: the scrape time, or up to STATS_CACHE_S before on a big "
        "installation.",
        "figures",
        {figures: _timestamp(when) for figures, when in stats["read_at"].items()},
    )
    yield from _keyword_families(stats["keyword_runs"])


class _Snapshot:
    """A collector that yields already computed families (prometheus_client's custom-collector
    protocol)."""

    def __init__(self, families):
        self.families = families

    def collect(self):
        return iter(self.families)


def render(health, stats):
    """Prometheus exposition text; `stats` is None when the database is unreachable."""
    families = list(_health_families(health))
    if stats is not None:
        families += list(_stats_families(stats))
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Snapshot(families))
    return generate_latest(registry)
