"""A sender killed mid-send loses nothing and repeats nothing: real processes, real HTTP.

The first process claims the row and hangs on the fake Bot API; we kill it (SIGKILL).
After the claim lease the next run delivers the message: exactly one message recorded.
"""

import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fakes.telegram import FakeTelegram
from tests.processes import child_env, migrate, wait_for

REPO = Path(__file__).resolve().parents[2]

SETUP = """
import django; django.setup()
from tests.factories import make_notification
make_notification()
"""
SEND = """
import django; django.setup()
from notifications.sender import process_queue
print("sent", process_queue())
"""


def run(code, env, **kw):
    return subprocess.Popen([sys.executable, "-c", code], cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kw)




@pytest.fixture
def fake():
    server = FakeTelegram().start()
    yield server
    server.stop()


def test_killed_mid_send_ends_with_exactly_one_message(fake, tmp_path):
    db = tmp_path / "crash.sqlite3"
    env = child_env(
        database=db,
        TELEGRAM_BOT_TOKEN=fake.token,
        TELEGRAM_API_BASE_URL=fake.base_url,
        TELEGRAM_TIMEOUT_S=30,
        NOTIFY_CLAIM_LEASE_S=2,
    )
    migrate(env)
    assert run(SETUP, env).wait() == 0

    fake.hang(seconds=60)
    victim = run(SEND, env)
    wait_for(lambda: any(r["method"] == "sendMessage" for r in fake.requests), 20, "the sender to reach Telegram")
    victim.send_signal(signal.SIGKILL)
    victim.wait()
    assert fake.messages == []

    # Still inside the lease: a second sender must not touch the claimed row.
    early = run(SEND, env)
    out, _ = early.communicate(timeout=60)
    assert early.returncode == 0, out
    assert fake.messages == []

    time.sleep(2.2)
    late = run(SEND, env)
    out, _ = late.communicate(timeout=60)
    assert late.returncode == 0, out
    assert b"sent 1" in out

    assert len(fake.messages) == 1
    with sqlite3.connect(db) as conn:
        status, attempts = conn.execute("select status, attempts from notifications_notification").fetchone()
    assert status == "sent"
    assert attempts == 2  # the crashed claim counts as an attempt (documented in notifications/sender.py)
