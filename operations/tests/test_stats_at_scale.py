"""/stats, /metrics, the dashboard and `status` read no table in full (issue 16): the last
success is the keyword's stored one, big figures are the planner's estimates on PostgreSQL
and say so, the dashboard's problem runs read the status index."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from operations import stats as stats_module
from operations.dashboard import dashboard_context
from operations.stats import collect_stats
from operations.tests.conftest import ago
from scraping.models import ScrapeRun
from tests.factories import make_keyword

pytestmark = pytest.mark.django_db

ESTIMATED = ["ads_indexed", "notifications_sent", "notifications_cancelled"]


def test_last_success_is_the_keywords_stored_one_even_when_its_runs_are_pruned(clock):
    make_keyword(name="pruned", last_success_at=ago(days=40))
    (row,) = collect_stats()["keyword_runs"]
    assert row["last_success_at"] == ago(days=40)


def test_small_figures_are_exact(seeded):
    assert collect_stats()["estimated"] == []
    assert dashboard_context()["ads"]["ads_indexed"] == 5


def test_problem_runs_are_the_newest_of_every_problem_status(seeded):
    runs = [row["run"] for row in dashboard_context()["problem_runs"]]
    assert [(r.status, r.started_at) for r in runs] == [
        ("skipped", ago(minutes=10)),
        ("skipped", ago(minutes=20)),
        ("banned", ago(minutes=30)),
        ("failed", ago(hours=1)),
    ]


def whole_table_reads(queries):
    """Aggregates over tracker_ad or notifications_notification without a WHERE clause, or over
    every status."""
    bad = []
    for sql in (q["sql"] for q in queries.captured_queries):
        if not re.search(r"COUNT\(", sql, re.I) or not re.search(
            r'FROM "(tracker_ad|notifications_notification)"', sql
        ):
            continue
        if " WHERE " not in sql:
            bad.append(sql)
    return bad


@pytest.mark.postgres
def test_big_figures_are_estimates_and_say_so(seeded, monkeypatch):
    monkeypatch.setattr(stats_module, "EXACT_BELOW", 0)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE tracker_ad")
        cursor.execute("ANALYZE notifications_notification")
    with CaptureQueriesContext(connection) as queries:
        stats = collect_stats()
    assert stats["estimated"] == ESTIMATED
    assert whole_table_reads(queries) == []
    assert (
        stats["notifications_pending"] == 2 and stats["notifications_dead"] == 1
    )  # exact, from the partial index
    assert 1 <= stats["ads_indexed"] <= 10
    assert dashboard_context()["ads"]["ads_indexed"].startswith("~")


def test_problem_runs_read_the_status_index_one_status_at_a_time(seeded):
    with CaptureQueriesContext(connection) as queries:
        dashboard_context()
    run_queries = [
        q["sql"]
        for q in queries.captured_queries
        if 'FROM "scraping_scraperun"' in q["sql"] and "IN (" in q["sql"]
    ]
    assert [sql for sql in run_queries if "'failed'" in sql and "'skipped'" in sql] == []


@pytest.fixture
def big_window(monkeypatch):
    """Every window counts as big: the run figures are cached (conftest clears the cache around
    each test)."""
    monkeypatch.setattr(stats_module, "EXACT_BELOW", 0)


def add_failed_run(keyword):
    ScrapeRun.objects.create(
        keyword=keyword,
        source="willhaben",
        status="failed",
        started_at=ago(minutes=1),
        finished_at=ago(minutes=1),
    )


def test_small_windows_are_read_every_time(seeded):
    before = collect_stats()["runs_24h"]["failed"]
    add_failed_run(seeded.fresh)
    assert collect_stats()["runs_24h"]["failed"] == before + 1


def test_a_big_window_is_read_once_per_half_minute(seeded, big_window, clock):
    before = collect_stats()
    add_failed_run(seeded.fresh)
    with CaptureQueriesContext(connection) as queries:
        again = collect_stats()
    assert again["runs_24h"] == before["runs_24h"] and again["skips_24h"] == before["skips_24h"]
    assert not [
        q
        for q in queries.captured_queries
        if "GROUP BY" in q["sql"] and "scraping_scraperun" in q["sql"]
    ]
    clock.shift(31)
    assert collect_stats()["runs_24h"]["failed"] == before["runs_24h"]["failed"] + 1
