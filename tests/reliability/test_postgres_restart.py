"""Fault 5: PostgreSQL restarts under a running deployment.

A throwaway PostgreSQL 15 (its own data directory and port; the shared test server is
never touched) serves gunicorn (the web process, persistent connections with
CONN_HEALTH_CHECKS) and a qcluster (the tick runner). We stop PostgreSQL: /health
answers 503 `database_unreachable` (bounded by HEALTHCHECK_DB_TIMEOUT_S; the time is
reported). We start it again: the next tick runs and /health is 200 — without restarting
either process.
"""

import json
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

import psycopg
import pytest
from django.conf import settings

from tests.processes import PYTHON, child_env, free_port, wait_for
from tests.reliability.helpers import Cluster, enqueue_tick, manage

pytestmark = [
    pytest.mark.reliability,
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(180),
]


def _health(base):
    """(status code, body, seconds) of GET /health."""
    start = time.monotonic()
    try:
        with urllib.request.urlopen(f"{base}/health", timeout=30) as response:
            return response.status, json.loads(response.read()), time.monotonic() - start
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read()), time.monotonic() - start


def _last_tick(pg):
    with psycopg.connect(pg.url.replace("postgres://", "postgresql://"), connect_timeout=2) as conn:
        row = conn.execute(
            "SELECT last_seen_at FROM scraping_heartbeat WHERE name = 'scheduler'"
        ).fetchone()
    return row[0] if row else None


def test_postgres_restart_is_survived_without_restarting_anything(own_postgres, report):
    pg = own_postgres
    env = child_env(
        DATABASE_URL=pg.url,
        TELEGRAM_BOT_TOKEN="",
        ALLOWED_HOSTS="127.0.0.1",
        LOG_LEVEL="WARNING",
        PYTHONUNBUFFERED=1,
    )
    manage("migrate", "--no-input", "-v0", env=env)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    web_log = tempfile.NamedTemporaryFile(prefix="lago-gunicorn-", suffix=".log")
    web = subprocess.Popen(
        [
            PYTHON,
            "-m",
            "gunicorn",
            "lago.wsgi",
            "-b",
            f"127.0.0.1:{port}",
            "-w",
            "1",
            "--timeout",
            "30",
        ],
        env=env,
        cwd=settings.BASE_DIR,
        stdout=web_log,
        stderr=subprocess.STDOUT,
    )
    cluster = Cluster(
        workers=1,
        **{"DATABASE_URL": pg.url, "TELEGRAM_BOT_TOKEN": "", "SECRET_KEY": env["SECRET_KEY"]},
    )
    try:
        cluster.start()
        assert enqueue_tick(env).returncode == 0
        wait_for(lambda: _last_tick(pg), 30, "the first tick")
        status, body, _ = wait_for(
            lambda: (r := _health(base)) and r[0] == 200 and r, 30, "/health 200 before the outage"
        )
        web_pid = web.pid

        pg.stop("fast")
        stopped_at = time.monotonic()
        status, body, seconds = _health(base)
        # How soon is reported, not asserted: it depends on the machine's load. A wait for ever is
        # what the health check's own timeout prevents, and _health's timeout would catch.
        assert (status, body["reason"]) == (503, "database_unreachable"), body
        outage_health_s = seconds
        time.sleep(
            5
        )  # a while without a database: the cluster's pusher and scheduler fail and retry
        status, body, seconds = _health(base)
        assert (status, body["reason"]) == (503, "database_unreachable"), (body, seconds)

        pg.start()
        restarted_at = time.monotonic()
        # The next tick: enqueued like the schedule does, run by the same cluster.
        before = _last_tick(pg)
        assert enqueue_tick(env).returncode == 0
        wait_for(lambda: _last_tick(pg) > before, 60, "a tick after the restart", interval=0.5)
        tick_after_s = time.monotonic() - restarted_at
        status, body, _ = wait_for(
            lambda: (r := _health(base)) and r[0] == 200 and r, 15, "/health 200 after the restart"
        )
        health_after_s = time.monotonic() - restarted_at
        assert web.poll() is None and web.pid == web_pid, "the web process was restarted"
        assert cluster.proc.poll() is None, "the cluster exited"
        report(
            outage_s=round(restarted_at - stopped_at, 1),
            health_503_within_s=round(outage_health_s, 2),
            tick_ok_after_restart_s=round(tick_after_s, 1),
            health_200_after_restart_s=round(health_after_s, 1),
            manual_steps=0,
        )
    finally:
        cluster.cleanup()
        web.terminate()
        web.wait(timeout=30)
