"""/stats and collect_stats(): exact figures for the seeded database, and the token rule."""

import pytest

from operations.stats import collect_stats
from operations.tests.conftest import ago
from scraping.models import ScrapeRun

pytestmark = pytest.mark.django_db


def test_exact_counts_for_the_seeded_database(seeded):
    stats = collect_stats()
    counts = {key: value for key, value in stats.items() if isinstance(value, int)}
    assert counts == {
        "keywords": 4,
        "active_keywords": 3,
        "ads_indexed": 5,
        "ads_new_24h": 3,
        "price_drops_24h": 2,
        "notifications_pending": 2,
        "notifications_sent": 4,
        "notifications_dead": 1,
        "notifications_cancelled": 1,
    }
    assert stats["runs_24h"] == {
        "running": 1,
        "done": 3,
        "failed": 1,
        "banned": 1,
        "skipped": 2,
        "cancelled": 0,
    }
    assert stats["skips_24h"] == {"already_running": 3, "concurrent_claim": 1}
    assert stats["http_429_24h"] == {"willhaben": 5, "telegram": 1}


def test_alerts_overdue_keywords_and_last_success(seeded):
    stats = collect_stats()
    assert stats["zero_result_alerts"] == [
        {"id": seeded.stuck.pk, "name": "stuck", "since": ago(hours=1)}
    ]
    assert stats["overdue_keywords"] == [
        {"id": seeded.stuck.pk, "name": "stuck", "last_run_at": ago(minutes=30), "overdue_s": 540}
    ]
    assert stats["last_success_per_source"] == {"willhaben": ago(minutes=2)}


def test_each_keyword_has_its_latest_run(seeded):
    rows = {row["name"]: row for row in collect_stats()["keyword_runs"]}
    fresh = rows["fresh"]["last_run"]
    assert (fresh["status"], fresh["started_at"], fresh["ads_seen"], fresh["ads_new"]) == (
        "done",
        ago(minutes=3),
        30,
        2,
    )
    assert rows["stuck"]["last_success_at"] == ago(minutes=29)
    assert rows["inactive"]["last_success_at"] == ago(days=2, minutes=-1)
    assert rows["inactive"]["overdue_s"] is None  # an inactive keyword is never overdue
    assert rows["new"]["last_run"]["status"] == "running"
    assert rows["new"]["last_success_at"] is None


def test_keyword_past_the_limit_becomes_overdue(seeded, clock):
    clock.shift(11 * 60 + 1)  # "fresh": last run 3 min ago + 11 min 1 s > 2 × 5 min + 60 s
    overdue = {row["name"]: row["overdue_s"] for row in collect_stats()["overdue_keywords"]}
    assert overdue["fresh"] == 3 * 60 + 11 * 60 + 1 - 660


def test_stats_query_count_does_not_grow_with_keywords(seeded, django_assert_max_num_queries):
    # A fixed number: 10; the run window's 4 (live edges, live skips, stored hours:
    # scraping.run_hours)
    # and 3 more the first time its hours are settled; on PostgreSQL up to 5 planner estimates.
    with django_assert_max_num_queries(22):
        collect_stats()


def test_stats_endpoint_serves_the_figures(client, seeded):
    response = client.get("/stats")
    assert response.status_code == 200
    body = response.json()
    assert body["ads_indexed"] == 5
    assert body["overdue_keywords"][0]["overdue_s"] == 540
    assert body["runs_24h"]["skipped"] == 2


@pytest.mark.parametrize("path", ["/stats", "/metrics"])
def test_open_without_a_token_setting(client, seeded, settings, path):
    settings.STATS_TOKEN = ""
    assert client.get(path).status_code == 200


@pytest.mark.parametrize("path", ["/stats", "/metrics"])
@pytest.mark.parametrize(
    "header,expected",
    [
        (None, 401),
        ("Bearer wrong", 401),
        ("s3cret", 401),
        ("Basic s3cret", 401),
        ("Bearer s3cret", 200),
        ("bearer s3cret", 200),
    ],
)
def test_token_is_required_when_set(client, seeded, settings, path, header, expected):
    settings.STATS_TOKEN = "s3cret"
    headers = {"Authorization": header} if header else {}
    response = client.get(path, headers=headers)
    assert response.status_code == expected
    if expected == 401:
        assert response["WWW-Authenticate"].startswith("Bearer")
        assert b"s3cret" not in response.content


def test_deep_sweeps_are_counted_apart(seeded):
    first_done = ScrapeRun.objects.filter(status="done").order_by("id").first()
    ScrapeRun.objects.filter(pk=first_done.pk).update(kind=ScrapeRun.Kind.SWEEP)
    stats = collect_stats()
    assert stats["sweeps_24h"]["done"] == 1 and sum(stats["sweeps_24h"].values()) == 1
    assert stats["runs_24h"]["done"] == 3
