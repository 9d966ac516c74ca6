"""A sender killed during an Apprise send loses nothing: real processes, real HTTP.

As tests/system/test_sender_crash.py for a Telegram chat: the first process claims the
destination's row and hangs on the endpoint; we kill it (SIGKILL). A second sender inside the
claim lease leaves the row alone; after the lease the next run delivers it, once.
Each step waits on the row's state in the database, not on a fixed time.
"""

import signal
import subprocess
import threading
from datetime import UTC, datetime

import pytest

from tests.fakes.apprise_endpoint import FakeAppriseEndpoint
from tests.processes import PYTHON, child_env, wait_for
from tests.system.test_sender_crash import (
    LEASE_S,
    PATIENCE_S,
    REPO,
    SEND,
    SEND_ON_CUE,
    outbox_row,
    run,
)

SETUP = """
import sys
import django; django.setup()
from tests.factories import make_destination, make_notification
make_notification(chat=make_destination(title="family", apprise_url=sys.argv[1]))
"""


@pytest.fixture
def endpoint():
    server = FakeAppriseEndpoint().start()
    yield server
    server.stop()


def test_killed_during_an_apprise_send_ends_with_exactly_one_post(endpoint, sqlite_database):
    db = sqlite_database
    env = child_env(
        database=db,
        TELEGRAM_BOT_TOKEN="",
        APPRISE_TIMEOUT_S=60,
        APPRISE_MIN_GAP_S=0,
        NOTIFY_CLAIM_LEASE_S=LEASE_S,
    )
    # Apprise's own read timeout (4 s) would end the hanging call before the kill.
    url = endpoint.url("family") + "?rto=60"
    setup = subprocess.run([*run_args(SETUP), url], env=env, cwd=REPO, capture_output=True)
    assert setup.returncode == 0, setup.stderr
    assert outbox_row(db)[:3] == ("pending", 0, "")

    early = run(SEND_ON_CUE, env, stdin=subprocess.PIPE)
    assert early.stdout.readline().strip() == b"ready", "the second sender failed to start"

    endpoint.hold = threading.Event()
    victim = run(SEND, env)
    wait_for(lambda: outbox_row(db)[2], PATIENCE_S, "the sender to claim the row", proc=victim)
    wait_for(endpoint.arrived.is_set, PATIENCE_S, "the post to reach the endpoint", proc=victim)
    victim.send_signal(signal.SIGKILL)
    victim.wait()
    endpoint.hold, held = None, endpoint.hold
    held.set()
    claimed = outbox_row(db)
    assert claimed[:2] == ("pending", 1)

    # Inside the lease: a second sender must not touch the claimed row.
    out, _ = early.communicate(b"go\n", timeout=PATIENCE_S)
    assert early.returncode == 0, out
    assert b"sent 0" in out
    assert endpoint.posts == []
    assert outbox_row(db) == claimed

    wait_for(lambda: datetime.now(UTC) > claimed[3], LEASE_S + PATIENCE_S, "the claim lease to end")

    def next_run_delivers():
        late = run(SEND, env)
        out, _ = late.communicate(timeout=PATIENCE_S)
        assert late.returncode == 0, out
        return outbox_row(db)[0] != "pending"

    wait_for(next_run_delivers, PATIENCE_S, "a sender to deliver the row after its lease")
    assert len(endpoint.posts) == 1 and len(endpoint.held) == 1
    status, attempts, _, _ = outbox_row(db)
    assert (status, attempts) == ("sent", 2)


def run_args(code):
    return [PYTHON, "-c", code]
