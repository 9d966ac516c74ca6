"""/health: the verdict and its reason slug, for every failure the issue names."""

import datetime as dt
import os

import pytest
from django.db import OperationalError, connection, connections
from django.test import override_settings

from operations import health
from operations.tests.conftest import NOW, ago
from tracker.models import Heartbeat

pytestmark = pytest.mark.django_db

TOKEN = "123456:test-token"


def get_health(client):
    response = client.get("/health")
    return response.status_code, response.json()


def test_healthy_system_reports_ok_with_queue_figures(client, seeded):
    status, body = get_health(client)
    assert status == 200
    assert body["status"] == "ok"
    assert "reason" not in body
    assert body["db_connected"] is True
    assert body["scheduler_last_run"] == ago(seconds=30).isoformat()
    assert body["scheduler_age_s"] == 30
    assert body["queue"] == {"pending": 2, "dead": 1, "oldest_pending_age_s": 600}
    assert body["telegram_polling"] is None
    assert body["sending_paused"] is True
    assert isinstance(body["uptime_seconds"], int)


def test_health_runs_a_bounded_number_of_queries(client, seeded, django_assert_max_num_queries):
    # SELECT 1, both heartbeats, one queue aggregate, the scraping verdict's per-source
    # aggregate and its failing keywords — whatever the data size.
    with django_assert_max_num_queries(5):
        response = client.get("/health")
    assert response.status_code == 200


def test_stale_scheduler_is_unhealthy_with_its_age(client, clock):
    Heartbeat.beat("scheduler")
    clock.shift(180)
    assert get_health(client)[0] == 200
    clock.shift(1)
    status, body = get_health(client)
    assert status == 503
    assert body["status"] == "unhealthy"
    assert body["reason"] == "scheduler_stale_last_run_181s"
    assert body["db_connected"] is True


@override_settings(HEALTHCHECK_SCHEDULER_STALE_S=60)
def test_scheduler_threshold_comes_from_settings(client, clock):
    Heartbeat.beat("scheduler")
    clock.shift(61)
    assert get_health(client)[1]["reason"] == "scheduler_stale_last_run_61s"


def test_scheduler_that_never_ran_is_fine_during_the_first_ticks(client, clock, monkeypatch):
    monkeypatch.setattr(health, "STARTED_AT", NOW - dt.timedelta(seconds=100))
    status, body = get_health(client)
    assert status == 200
    assert body["scheduler_last_run"] is None


def test_scheduler_that_never_ran_is_unhealthy_after_the_grace_period(
    client, clock, started_long_ago
):
    status, body = get_health(client)
    assert status == 503
    assert body["reason"] == "scheduler_never_ran"


@override_settings(TELEGRAM_BOT_TOKEN=TOKEN)
def test_stale_bot_is_unhealthy_when_a_token_is_set(client, clock):
    Heartbeat.beat("scheduler")
    Heartbeat.objects.create(name="bot", last_seen_at=ago(seconds=400))
    status, body = get_health(client)
    assert status == 503
    assert body["reason"] == "bot_stale_last_run_400s"
    assert body["telegram_polling"] is False
    assert body["sending_paused"] is False


@override_settings(TELEGRAM_BOT_TOKEN=TOKEN)
def test_fresh_bot_is_polling(client, clock):
    Heartbeat.beat("scheduler")
    Heartbeat.beat("bot")
    status, body = get_health(client)
    assert status == 200
    assert body["telegram_polling"] is True


@override_settings(TELEGRAM_BOT_TOKEN=TOKEN)
def test_bot_that_never_ran_is_unhealthy_after_the_grace_period(client, clock, started_long_ago):
    Heartbeat.beat("scheduler")
    assert get_health(client)[1]["reason"] == "bot_never_ran"


@override_settings(TELEGRAM_BOT_TOKEN="")
def test_sending_paused_is_reported_not_unhealthy(client, clock, started_long_ago):
    Heartbeat.beat("scheduler")
    Heartbeat.objects.create(
        name="bot", last_seen_at=ago(days=3)
    )  # a bot without a token is not expected to beat
    status, body = get_health(client)
    assert status == 200
    assert body["sending_paused"] is True
    assert body["telegram_polling"] is None


def test_scheduler_reason_comes_first_and_all_problems_are_listed(
    client, clock, started_long_ago, settings
):
    settings.TELEGRAM_BOT_TOKEN = TOKEN
    body = get_health(client)[1]
    assert body["reason"] == "scheduler_never_ran"
    assert body["problems"] == ["scheduler_never_ran", "bot_never_ran"]


def test_unreachable_database_is_unhealthy_and_nothing_else_is_queried(client, monkeypatch):
    def broken_cursor(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(
        type(connections["default"]), "cursor", broken_cursor
    )  # every thread's connection, the probe's too
    status, body = get_health(client)
    assert status == 503
    assert body["reason"] == "database_unreachable"
    assert body["db_connected"] is False
    assert body["queue"] is None


def test_health_needs_no_token_and_reveals_no_secret(client, seeded, settings):
    settings.STATS_TOKEN = "stats-secret"
    settings.TELEGRAM_BOT_TOKEN = TOKEN
    Heartbeat.beat("bot")
    response = client.get("/health")
    assert response.status_code == 200
    assert "stats-secret" not in response.content.decode()
    assert TOKEN not in response.content.decode()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_postgres_reconnect_uses_the_short_timeout_and_restores_settings(client):
    # Outside a test transaction: drop the connection so /health has to connect itself.
    Heartbeat.beat("scheduler")
    connection.close()
    original = connection.settings_dict
    assert get_health(client)[0] == 200
    assert connection.settings_dict is original
    assert original["OPTIONS"]["connect_timeout"] == int(
        os.environ.get("DB_CONNECT_TIMEOUT_S", 5)
    )  # shared settings untouched
