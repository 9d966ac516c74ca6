"""With the database gone, /health and `status` still answer, bounded by
HEALTHCHECK_DB_TIMEOUT_S rather than the connect timeout.

Each case runs in a fresh process pointed at a PostgreSQL address that is
not there, as a container would after the database died: a closed port
(refused at once) and a port that accepts TCP but never speaks (a hung
server: only a timeout ends the wait). The children's DB_CONNECT_TIMEOUT_S is
far longer than the tests wait, so an answer at all shows that the health
check's own bound ended the wait. Neither needs a running PostgreSQL, so this
runs on SQLite too.
"""

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time

import pytest
from django.conf import settings
from django.db import connection

from tests.processes import child_env, database_url

CONNECT_TIMEOUT_S = 600
# A hang guard only, far below CONNECT_TIMEOUT_S and far above HEALTHCHECK_DB_TIMEOUT_S (2 s).
CHILD_TIMEOUT_S = 120

SCRIPT = (
    """
import json, os, time, django
os.environ["DJANGO_SETTINGS_MODULE"] = "lago.settings"
django.setup()
from django.test import Client
started = time.monotonic()
response = Client().get("/health")
print(json.dumps({"elapsed": time.monotonic() - started, "code": response.status_code,"""
    """ "body": response.json()}))
"""
)


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


def unreachable_env(port):
    return {
        **os.environ,
        "DATABASE_URL": f"postgres://lago@127.0.0.1:{port}/lago",
        "SECRET_KEY": "test-only-secret-key-long-enough",
        "DEBUG": "false",
        "ALLOWED_HOSTS": "testserver",
        # Longer than any wait below: only HEALTHCHECK_DB_TIMEOUT_S can end one.
        "DB_CONNECT_TIMEOUT_S": str(CONNECT_TIMEOUT_S),
    }


def health_in_child(port):
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        env=unreachable_env(port),
        capture_output=True,
        text=True,
        cwd=settings.BASE_DIR,
        timeout=CHILD_TIMEOUT_S,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_closed_port_gives_503_at_once():
    outcome = health_in_child(closed_port())
    assert outcome["code"] == 503
    assert outcome["body"]["db_connected"] is False
    assert outcome["body"]["reason"] == "database_unreachable"


def test_hung_server_gives_503_bounded_by_the_health_timeout(silent_port):
    outcome = health_in_child(silent_port)
    assert outcome["code"] == 503
    assert outcome["body"]["db_connected"] is False


def test_status_check_exits_1_when_the_database_is_gone(silent_port):
    result = subprocess.run(
        [sys.executable, "manage.py", "status", "--check", "scheduler"],
        env=unreachable_env(silent_port),
        capture_output=True,
        text=True,
        cwd=settings.BASE_DIR,
        timeout=CHILD_TIMEOUT_S,
    )
    assert result.returncode == 1
    assert "database_unreachable" in result.stderr


class FreezableProxy:
    """A TCP forwarder to PostgreSQL that can stop forwarding while every socket stays open:
    to its clients the server looks alive at the TCP level and never answers (a hung server)."""

    def __init__(self, host, port):
        self.target = (host, port)
        self.frozen = threading.Event()
        self.sockets = [socket.create_server(("127.0.0.1", 0))]
        self.port = self.sockets[0].getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.sockets[0].accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            self.sockets += [client, upstream]
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(src, dst), daemon=True).start()

    def _pipe(self, src, dst):
        while True:
            try:
                data = src.recv(65536)
                while self.frozen.is_set():
                    time.sleep(0.05)
                if not data:
                    return dst.close()
                dst.sendall(data)
            except OSError:
                return

    def close(self):
        """Ends every session: PostgreSQL must see them go, or the test database cannot be
        dropped."""
        self.frozen.clear()
        for sock in self.sockets:
            with contextlib.suppress(OSError):  # the listener and sockets the peer already closed
                sock.shutdown(
                    socket.SHUT_RDWR
                )  # close() alone does not wake a thread blocked in recv()
            sock.close()


def read_line(proc, timeout):
    lines = []
    reader = threading.Thread(target=lambda: lines.append(proc.stdout.readline()), daemon=True)
    reader.start()
    reader.join(timeout)
    assert lines and lines[0], f"no answer within {timeout} s"
    return lines[0]


KEPT_CONNECTION = (
    """
import json, sys, time, django
django.setup()
from django.test import Client
client = Client()
for _ in range(2):
    started = time.monotonic()
    response = client.get("/health")
    print(json.dumps({"elapsed": time.monotonic() - started, "code": response.status_code,"""
    """ "body": response.json()}), flush=True)
    sys.stdin.readline()
"""
)


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_server_that_hangs_under_a_kept_connection_gives_503():
    """The web process keeps its connection (DB_CONN_MAX_AGE); a query on it would wait for ever."""
    db = connection.settings_dict
    proxy = FreezableProxy(db.get("HOST") or "127.0.0.1", int(db.get("PORT") or 5432))
    url = database_url().replace(
        f"@{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}/", f"@127.0.0.1:{proxy.port}/"
    )
    env = child_env(
        DATABASE_URL=url,
        DEBUG="false",
        ALLOWED_HOSTS="testserver",
        DB_CONN_MAX_AGE=600,
        DB_CONNECT_TIMEOUT_S=CONNECT_TIMEOUT_S,
    )
    child = subprocess.Popen(
        [sys.executable, "-c", KEPT_CONNECTION],
        env=env,
        cwd=settings.BASE_DIR,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        before = json.loads(child.stdout.readline())
        assert before["code"] == 200 and before["body"]["db_connected"] is True
        proxy.frozen.set()
        child.stdin.write("\n")
        child.stdin.flush()
        # A query on the frozen connection would wait for ever: an answer at all is the bound.
        after = json.loads(read_line(child, timeout=CHILD_TIMEOUT_S))
        assert after["code"] == 503 and after["body"]["reason"] == "database_unreachable"
    finally:
        child.kill()
        child.wait()
        proxy.close()
