"""The web container's probe: `/health?check=web` needs only the database, and `status --check web`
sends a Host that ALLOWED_HOSTS accepts."""

import pytest
from django.db import OperationalError, connections
from django.test import override_settings

from operations.management.commands.status import probe_host
from operations.tests.test_status_command import run_status

pytestmark = pytest.mark.django_db


def test_web_check_ignores_a_scheduler_and_bot_that_never_ran(client, started_long_ago, settings):
    settings.TELEGRAM_BOT_TOKEN = "123456:test-token"
    assert client.get("/health").status_code == 503
    response = client.get("/health?check=web")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "check": "web", "db_connected": True}


def test_web_check_fails_without_the_database(client, monkeypatch):
    def broken_cursor(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(type(connections["default"]), "cursor", broken_cursor)
    response = client.get("/health?check=web")
    assert response.status_code == 503
    assert response.json() == {
        "status": "unhealthy",
        "check": "web",
        "db_connected": False,
        "reason": "database_unreachable",
    }


def test_an_unknown_check_is_a_clear_400(client):
    response = client.get("/health?check=worker")
    assert response.status_code == 400
    assert response.json() == {"error": "unknown check 'worker': use web"}


@pytest.mark.parametrize(
    "allowed, host",
    [
        (["lago.example.org"], "lago.example.org"),
        ([".example.org", "localhost"], "example.org"),
        (["*"], None),
        ([], None),
    ],
)
def test_probe_host_is_one_django_accepts(allowed, host):
    with override_settings(ALLOWED_HOSTS=allowed):
        assert probe_host() == host


def test_check_web_sends_the_public_host(fake_web):
    reply, url = fake_web
    with override_settings(ALLOWED_HOSTS=["lago.example.org"]):
        code, out, _ = run_status("--check", "web", "--url", f"{url}?check=web")
    assert code == 0 and "web: ok" in out
    assert reply["seen"] == [("/health?check=web", "lago.example.org")]
