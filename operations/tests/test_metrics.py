"""/metrics: the same figures as /stats, in Prometheus text format."""

import pytest
from django.db import OperationalError, connections
from prometheus_client.parser import text_string_to_metric_families

from operations.tests.conftest import ago

pytestmark = pytest.mark.django_db


def scrape(client):
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=0.0.4")
    samples = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def test_exact_figures_for_the_seeded_database(client, seeded):
    m = scrape(client)
    assert m[("lago_healthy", ())] == 1
    assert m[("lago_db_connected", ())] == 1
    assert m[("lago_sending_paused", ())] == 1
    assert m[("lago_scheduler_heartbeat_age_seconds", ())] == 30
    assert m[("lago_queue_oldest_pending_age_seconds", ())] == 600
    assert m[("lago_keywords", ())] == 4
    assert m[("lago_keywords_active", ())] == 3
    assert m[("lago_keywords_overdue", ())] == 1
    assert m[("lago_zero_result_alerts_open", ())] == 1
    assert m[("lago_ads_indexed", ())] == 5
    assert m[("lago_ads_new_24h", ())] == 3
    assert m[("lago_price_drops_24h", ())] == 2
    assert m[("lago_notifications_sent_total", ())] == 4
    assert {labels: v for (name, labels), v in m.items() if name == "lago_notifications"} == {
        (("status", "pending"),): 2,
        (("status", "dead"),): 1,
        (("status", "cancelled"),): 1,
    }


def test_runs_skips_and_429s_by_label(client, seeded):
    m = scrape(client)
    runs = {
        dict(labels)["status"]: v
        for (name, labels), v in m.items()
        if name == "lago_scrape_runs_24h"
    }
    assert runs == {"running": 1, "done": 3, "failed": 1, "banned": 1, "skipped": 2, "cancelled": 0}
    assert m[("lago_scrape_skips_24h", (("reason", "already_running"),))] == 3
    assert m[("lago_scrape_skips_24h", (("reason", "concurrent_claim"),))] == 1
    assert m[("lago_http_429_24h", (("peer", "willhaben"),))] == 5
    assert m[("lago_http_429_24h", (("peer", "telegram"),))] == 1


def test_last_success_per_keyword_and_source(client, seeded):
    m = scrape(client)

    def keyword(name, k):
        return (name, (("keyword", k.name), ("keyword_id", str(k.pk)), ("source", "willhaben")))

    assert (
        m[keyword("lago_keyword_last_success_timestamp_seconds", seeded.fresh)]
        == ago(minutes=2).timestamp()
    )
    assert m[keyword("lago_keyword_last_success_timestamp_seconds", seeded.new)] == 0
    assert m[keyword("lago_keyword_overdue_seconds", seeded.stuck)] == 540
    assert m[keyword("lago_keyword_overdue_seconds", seeded.fresh)] == 0
    assert (
        m[("lago_source_last_success_timestamp_seconds", (("source", "willhaben"),))]
        == ago(minutes=2).timestamp()
    )


def test_two_scrapes_do_not_double_register(client, seeded):
    assert scrape(client) == scrape(client)


def test_unreachable_database_still_answers_with_health_gauges(client, monkeypatch):
    def broken_cursor(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(
        type(connections["default"]), "cursor", broken_cursor
    )  # the health probe thread's connection too
    m = scrape(client)
    assert m[("lago_db_connected", ())] == 0
    assert m[("lago_healthy", ())] == 0
    assert ("lago_keywords", ()) not in m
