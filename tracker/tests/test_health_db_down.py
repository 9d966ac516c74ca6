"""With the database gone, /health and `status` still answer, within 3 s.

Each case runs in a fresh process pointed at a PostgreSQL address that is
not there, as a container would after the database died: a closed port
(refused at once) and a port that accepts TCP but never speaks (a hung
server: only the connect timeout ends the wait). Neither needs a running
PostgreSQL, so this runs on SQLite too.
"""

import json
import os
import socket
import subprocess
import sys
import time

import pytest
from django.conf import settings

SCRIPT = """
import json, os, time, django
os.environ["DJANGO_SETTINGS_MODULE"] = "tracker.settings"
django.setup()
from django.test import Client
started = time.monotonic()
response = Client().get("/health")
print(json.dumps({"elapsed": time.monotonic() - started, "code": response.status_code, "body": response.json()}))
"""


def closed_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def silent_port():
    """Accepts connections (the kernel's backlog) but never answers the PostgreSQL handshake."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        yield sock.getsockname()[1]


def child_env(port):
    return {
        **os.environ,
        "DATABASE_URL": f"postgres://lago@127.0.0.1:{port}/lago",
        "SECRET_KEY": "test-only",
        "DEBUG": "false",
        "ALLOWED_HOSTS": "testserver",
    }


def health_in_child(port):
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=child_env(port), capture_output=True, text=True, cwd=settings.BASE_DIR, timeout=30
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_closed_port_gives_503_at_once():
    outcome = health_in_child(closed_port())
    assert outcome["code"] == 503
    assert outcome["body"]["db_connected"] is False
    assert outcome["body"]["reason"] == "database_unreachable"
    assert outcome["elapsed"] < 3


def test_hung_server_gives_503_within_3_seconds(silent_port):
    # DB_CONNECT_TIMEOUT_S (5 s) alone would blow the budget; HEALTHCHECK_DB_TIMEOUT_S (2 s) bounds it.
    outcome = health_in_child(silent_port)
    assert outcome["code"] == 503
    assert outcome["body"]["db_connected"] is False
    assert outcome["elapsed"] < 3


def test_status_check_exits_1_quickly_when_the_database_is_gone(silent_port):
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "manage.py", "status", "--check", "scheduler"],
        env=child_env(silent_port),
        capture_output=True,
        text=True,
        cwd=settings.BASE_DIR,
        timeout=30,
    )
    assert result.returncode == 1
    assert "database_unreachable" in result.stderr
    assert time.monotonic() - started < 6  # includes interpreter and Django start-up
