"""The web container's probe: `/health?check=web` needs only the database, and `status --check web`
sends a Host that ALLOWED_HOSTS accepts."""

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

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
    assert response.json() == {"status": "unhealthy", "check": "web", "db_connected": False, "reason": "database_unreachable"}


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


def test_check_web_sends_the_public_host():
    seen = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's name
            seen.append((self.path, self.headers["Host"]))
            payload = json.dumps({"status": "ok"}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with override_settings(ALLOWED_HOSTS=["lago.example.org"]):
            code, out, _ = run_status("--check", "web", "--url", f"http://127.0.0.1:{server.server_port}/health?check=web")
    finally:
        server.shutdown()
        server.server_close()
    assert code == 0 and "web: ok" in out
    assert seen == [("/health?check=web", "lago.example.org")]
