"""STATS_CACHE_S (issue 16): a big installation's 24 h run figures and keyword rows are read at most
once per STATS_CACHE_S, shared by /stats, /metrics, the dashboard and `status`, and every page says
when they were read; small installations and /health read every time."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from prometheus_client.utils import floatToGoString

from operations import stats as stats_module
from operations.stats import collect_stats
from operations.tests.conftest import NOW, ago
from operations.tests.test_status_command import run_status
from tests.factories import make_keyword
from tracker.models import Keyword

pytestmark = pytest.mark.django_db


@pytest.fixture
def big(monkeypatch):
    """Every window counts as big (10,000 runs or more in 24 h otherwise)."""
    monkeypatch.setattr(stats_module, "EXACT_BELOW", 0)


def keyword_reads(queries):
    return [q["sql"] for q in queries.captured_queries if 'FROM "tracker_keyword"' in q["sql"]]


def test_a_big_installations_keyword_rows_are_read_once_per_stats_cache_s(seeded, big, clock):
    first = collect_stats()
    make_keyword(name="added")
    clock.shift(29)
    with CaptureQueriesContext(connection) as queries:
        again = collect_stats()
    assert keyword_reads(queries) == []
    assert [k["name"] for k in again["keyword_runs"]] == [k["name"] for k in first["keyword_runs"]]
    assert again["read_at"] == {"runs_24h": NOW, "keyword_runs": NOW}
    assert again["generated_at"] == ago(seconds=-29)
    stuck = next(k for k in again["overdue_keywords"] if k["name"] == "stuck")
    assert stuck["overdue_s"] == 540 + 29  # overdue is as of now, from the cached last run
    clock.shift(1)
    fresh = collect_stats()
    assert "added" in [k["name"] for k in fresh["keyword_runs"]]
    assert fresh["read_at"] == {"runs_24h": ago(seconds=-30), "keyword_runs": ago(seconds=-30)}


def test_metrics_keep_their_own_reading_without_runs(client, seeded, big):
    client.get("/metrics")
    collect_stats()  # /stats reads the rows with their latest runs: its own reading
    with CaptureQueriesContext(connection) as queries:
        client.get("/metrics")
    assert all(
        " WHERE " in sql for sql in keyword_reads(queries)
    )  # the health verdict's reads only, no full keyword list


def test_small_installations_read_every_time(seeded):
    collect_stats()
    make_keyword(name="added")
    stats = collect_stats()
    assert "added" in [k["name"] for k in stats["keyword_runs"]]
    assert stats["read_at"] == {
        "runs_24h": stats["generated_at"],
        "keyword_runs": stats["generated_at"],
    }


def test_zero_turns_the_cache_off(seeded, big, settings):
    settings.STATS_CACHE_S = 0
    collect_stats()
    make_keyword(name="added")
    assert "added" in [k["name"] for k in collect_stats()["keyword_runs"]]


def test_health_is_never_cached(client, seeded, big):
    """A guard: the verdict reads the keywords' stored state every time, whatever /stats cached."""
    client.get("/stats")
    Keyword.objects.filter(pk=seeded.fresh.pk).update(
        last_finished_status="banned", last_error="http_403"
    )
    assert client.get("/health").json()["problems"] == ["scraping_failing:willhaben:http_403"]


def test_every_page_says_when_cached_figures_were_read(
    client, admin_client, seeded, big, clock, english
):
    collect_stats()
    clock.shift(12)
    body = json.loads(client.get("/stats").content)
    assert body["read_at"] == {
        "runs_24h": NOW.isoformat().replace("+00:00", "Z"),
        "keyword_runs": NOW.isoformat().replace("+00:00", "Z"),
    }
    metrics = client.get("/metrics").content.decode()
    assert (
        'lago_stats_read_timestamp_seconds{figures="runs_24h"} '
        f"{floatToGoString(NOW.timestamp())}"
    ) in metrics
    assert "Run figures read 12 s ago." in admin_client.get("/admin/").content.decode()
    assert "(keyword_runs read 12 s ago)" in run_status()[1]


def test_fresh_figures_say_nothing_about_age(admin_client, seeded, english):
    page = admin_client.get("/admin/").content.decode()
    assert "Scrape runs, last 24 h" in page and "lago-runs-age" not in page
    assert "read" not in run_status()[1].split("Runs (24 h)")[1].splitlines()[1]
