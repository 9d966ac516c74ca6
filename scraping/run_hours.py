"""The runs of a time window grouped by kind, status and error, with settled hours read from
RunHour.

300 keywords every 5 minutes start 86,400 runs a day: summing the 24 h window afresh cost
50–100 ms at six months, for every /stats, /metrics, dashboard and `status`. An hour is
settled once no run started in it can change any more: it ended SCRAPE_ZOMBIE_MINUTES +
SETTLE_MARGIN ago (a run still running then is reaped by the next tick) and none of its
runs is `running`. Such an hour is summed once and kept; the window's edges (at most an
hour at its start, the unsettled hours at its end) are read live.

Skipped runs are never kept: a skipped window is collapsed into the keyword's latest skip
row, whose counters keep growing (scraping.claims), so they are read live in every hour
(scraperun_status_idx; few rows). Hours older than two windows are deleted when a new
hour is stored.
"""

from datetime import UTC, timedelta

from django.conf import settings
from django.db.models import Count, IntegerField, Sum
from django.db.models.fields.json import KT
from django.db.models.functions import Cast, Coalesce, Trunc

from scraping.models import RunHour, ScrapeRun

HOUR = timedelta(hours=1)
SETTLE_MARGIN = timedelta(minutes=5)
COUNTERS = {
    "n": Count("id"),
    "skips": Sum(Coalesce(Cast(KT("counters__skips"), IntegerField()), 1)),
    "http_429": Sum(Coalesce(Cast(KT("counters__http_429"), IntegerField()), 0)),
}


def grouped(runs):
    """[kind, status, error, runs, skips, http_429] per group of `runs`."""
    return [
        list(row)
        for row in runs.values_list("kind", "status", "error").annotate(**COUNTERS).order_by()
    ]


def _started(since, until=None):
    runs = ScrapeRun.objects.filter(started_at__gte=since)
    return runs if until is None else runs.filter(started_at__lt=until)


def window_rows(since, now):
    """The grouped rows of the runs started since `since` (until `now`), settled hours from
    RunHour."""
    first = _hour_ceil(since)
    last = _hour_floor(now - timedelta(minutes=settings.SCRAPE_ZOMBIE_MINUTES) - SETTLE_MARGIN)
    if last <= first:
        return grouped(_started(since))
    live = grouped(_started(since, first)) + grouped(_started(last))
    skipped = grouped(_started(first, last).filter(status=ScrapeRun.Status.SKIPPED))
    return live + skipped + settled_rows(first, last)


def settled_rows(first, last):
    """The non-skipped rows of the hours from `first` to `last`, each stored once it is settled."""
    hours = [first + i * HOUR for i in range((last - first) // HOUR)]
    stored = dict(RunHour.objects.filter(hour__in=hours).values_list("hour", "rows"))
    missing = [hour for hour in hours if hour not in stored]
    if missing:
        stored.update(_settle(missing))
    return [row for hour in hours for row in stored[hour]]


def _settle(hours):
    """{hour: rows} of `hours`, read in one query; the settled ones are stored (and old ones
    deleted)."""
    per_hour = {hour: [] for hour in hours}
    runs = _started(hours[0], hours[-1] + HOUR).exclude(status=ScrapeRun.Status.SKIPPED)
    runs = runs.annotate(hour=Trunc("started_at", "hour", tzinfo=UTC))
    for hour, *row in (
        runs.values_list("hour", "kind", "status", "error").annotate(**COUNTERS).order_by()
    ):
        if hour in per_hour:
            per_hour[hour].append(row)
    # An hour with a run still running is not settled after all (a reaping is late): read live until
    # it is.
    settled = [
        hour
        for hour, rows in per_hour.items()
        if all(status != ScrapeRun.Status.RUNNING for _, status, *_ in rows)
    ]
    RunHour.objects.bulk_create(
        [RunHour(hour=hour, rows=per_hour[hour]) for hour in settled], ignore_conflicts=True
    )
    RunHour.objects.filter(hour__lt=hours[0] - 48 * HOUR).delete()
    return per_hour


def _hour_floor(moment):
    return moment.replace(minute=0, second=0, microsecond=0)


def _hour_ceil(moment):
    floor = _hour_floor(moment)
    return floor if floor == moment else floor + HOUR
