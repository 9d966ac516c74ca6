"""The scraping verdict: is any marketplace failing? Read from the state each
finished run leaves on its keyword (ScrapeRun.close), never from run history.

A source is failing when an active keyword's last SCRAPE_FAILURE_STREAK finished
runs all ended failed/banned (skips neither count nor break the streak), when its
last run was banned (a ban degrades at once), or when it has active keywords and
none of them succeeded for SCRAPE_STALE_MINUTES (a keyword never run counts from
its creation). Scraping trouble makes Lago *degraded*, never unhealthy: a restart
does not lift a ban.
"""

from django.conf import settings
from django.db.models import Max
from django.db.models.functions import Coalesce
from django.utils import timezone

from tracker.models import Keyword


def failing_keywords():
    """Active keywords in the failing state, with what the verdict needs (one query)."""
    return list(
        Keyword.objects.failing(settings.SCRAPE_FAILURE_STREAK)
        .order_by("source", "id")
        .values(
            "id",
            "name",
            "query",
            "source",
            "consecutive_failures",
            "last_finished_status",
            "last_error",
            "last_error_detail",
        )
    )


def source_rows(now=None):
    """{source: minutes since its newest success} for every source with active keywords (one
    query)."""
    now = now or timezone.now()
    rows = (
        Keyword.objects.active()
        .values("source")
        .annotate(newest=Max(Coalesce("last_success_at", "created_at")))
    )
    return {row["source"]: int((now - row["newest"]).total_seconds() // 60) for row in rows}


def scraping_report(now=None):
    """{"problems": [slug, …], "failing": [keyword dicts], "stale": {source: minutes}, "sources_up":
    {source: bool}}.

    Problem slugs: `scraping_failing:<source>:<error>` (one per source and error),
    `scraping_stale:<source>:no_success_<N>m`.
    """
    sources = source_rows(now)
    failing = failing_keywords() if sources else []
    stale = {
        source: minutes
        for source, minutes in sources.items()
        if minutes >= settings.SCRAPE_STALE_MINUTES
    }
    problems = []
    for k in failing:
        slug = f"scraping_failing:{k['source']}:{k['last_error'] or k['last_finished_status']}"
        if slug not in problems:
            problems.append(slug)
    problems += [
        f"scraping_stale:{source}:no_success_{minutes}m"
        for source, minutes in sorted(stale.items())
    ]
    down = {k["source"] for k in failing} | set(stale)
    return {
        "problems": problems,
        "failing": failing,
        "stale": stale,
        "sources_up": {source: source not in down for source in sources},
    }
