"""A sender killed mid-send loses nothing and repeats nothing: real processes, real HTTP.

The first process claims the row and hangs on the fake Bot API; we kill it (SIGKILL).
A second sender inside the claim lease leaves the row alone; after the lease the next
run delivers the message: exactly one message recorded.

No step sleeps for a fixed time: each waits on the row's state in the database (claimed,
lease over, sent), with generous bounds, so a loaded machine only makes the test slower.
"""

import signal
import sqlite3
import subprocess
import sys
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.fakes.telegram import FakeTelegram
from tests.processes import child_env, wait_for

REPO = Path(__file__).resolve().parents[2]
LEASE_S = 5
# Bounds for each wait: far above what any step takes on an idle machine.
PATIENCE_S = 120

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
# Starts up front (Python and Django take the longest under load) and sends on a line on stdin.
SEND_ON_CUE = """
import sys
import django; django.setup()
from notifications.sender import process_queue
print("ready", flush=True)
sys.stdin.readline()
print("sent", process_queue())
"""


def run(code, env, **kw):
    return subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        **kw,
    )


def outbox_row(db):
    """(status, attempts, claim_token, lease end) of the one outbox row."""
    with closing(sqlite3.connect(db)) as conn:
        status, attempts, token, next_attempt_at = conn.execute(
            "select status, attempts, claim_token, next_attempt_at from notifications_notification"
        ).fetchone()
    return status, attempts, token, datetime.fromisoformat(next_attempt_at).replace(tzinfo=UTC)


@pytest.fixture
def fake():
    server = FakeTelegram().start()
    yield server
    server.stop()


def test_killed_mid_send_ends_with_exactly_one_message(fake, sqlite_database):
    db = sqlite_database
    env = child_env(
        database=db,
        TELEGRAM_BOT_TOKEN=fake.token,
        TELEGRAM_API_BASE_URL=fake.base_url,
        TELEGRAM_TIMEOUT_S=30,
        NOTIFY_CLAIM_LEASE_S=LEASE_S,
    )
    assert run(SETUP, env).wait() == 0
    assert outbox_row(db)[:3] == ("pending", 0, "")

    early = run(SEND_ON_CUE, env, stdin=subprocess.PIPE)
    assert early.stdout.readline().strip() == b"ready", "the second sender failed to start"

    fake.hang(seconds=60)
    victim = run(SEND, env)
    wait_for(lambda: outbox_row(db)[2], PATIENCE_S, "the sender to claim the row", proc=victim)
    wait_for(
        lambda: any(r["method"] == "sendMessage" for r in fake.requests),
        PATIENCE_S,
        "the sender to reach Telegram",
        proc=victim,
    )
    victim.send_signal(signal.SIGKILL)
    victim.wait()
    assert fake.messages == []
    claimed = outbox_row(db)
    assert claimed[:2] == ("pending", 1)

    # Still inside the lease: a second sender must not touch the claimed row.
    out, _ = early.communicate(b"go\n", timeout=PATIENCE_S)
    assert early.returncode == 0, out
    assert b"sent 0" in out
    assert fake.messages == []
    assert outbox_row(db) == claimed

    # After the lease (its end is on the row) the next run delivers it.
    wait_for(lambda: datetime.now(UTC) > claimed[3], LEASE_S + PATIENCE_S, "the claim lease to end")
    outputs = []

    def next_run_delivers():
        late = run(SEND, env)
        out, _ = late.communicate(timeout=PATIENCE_S)
        assert late.returncode == 0, out
        outputs.append(out)
        return outbox_row(db)[0] != "pending"

    wait_for(
        next_run_delivers, PATIENCE_S, "a sender to deliver the row after its lease", interval=0.5
    )
    assert b"sent 1" in outputs[-1]
    assert all(b"sent 0" in out for out in outputs[:-1])

    assert len(fake.messages) == 1
    status, attempts, _, _ = outbox_row(db)
    assert status == "sent"
    assert (
        attempts == 2
    )  # the crashed claim counts as an attempt (documented in notifications/sender.py)
