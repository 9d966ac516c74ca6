"""Fault 7: PostgreSQL restarts between Telegram's answer and the sender's "sent" mark.

A qcluster (one worker) on a throwaway PostgreSQL 15 sends 300 due rows, one per chat, paced
at 25 messages/s, through the fake Bot API. The fake delivers the 80th message and holds its
answer; meanwhile PostgreSQL is stopped (`pg_ctl stop -m fast`, which ends every connection),
then the answer goes out, so the worker learns of a delivered message with its database gone.
Two seconds later PostgreSQL starts again and ticks are enqueued until no row is pending.

Every chat must hold exactly one message: the worker keeps the outcome, reconnects and
records it before it sends anything else (notifications/outcome_log.py). Without that the
row stays claimed, comes back when its lease ends, and its message goes out a second time.
"""

import re
import threading
import time
from collections import Counter

import pytest

from tests.fakes.telegram import FakeTelegram
from tests.processes import child_env, wait_for
from tests.reliability.helpers import enqueue_tick, manage, shell

pytestmark = [
    pytest.mark.reliability,
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(300),
]

ROWS = 300
LOST_AT = 80
SEED = f"""
from tests.factories import make_chat, make_notification
for _ in range({ROWS}):
    make_notification(chat=make_chat())
"""


class AnswerHeld(FakeTelegram):
    """Delivers message number `at` (message ids count from 1) but holds its answer until
    `release` is set: Telegram has the message, the sender does not know yet."""

    def __init__(self, at):
        super().__init__()
        self.at = at
        self.holding = threading.Event()
        self.release = threading.Event()

    def _send(self, method, params, chat_id):
        status, body = super()._send(method, params, chat_id)
        if status == 200 and body["result"]["message_id"] == self.at:
            self.holding.set()
            self.release.wait(60)
        return status, body


@pytest.fixture
def telegram_holding_an_answer():
    server = AnswerHeld(at=LOST_AT).start()
    yield server
    server.release.set()
    server.stop()


def _statuses(pg):
    return dict(pg.query("SELECT status, count(*) FROM notifications_notification GROUP BY status"))


def test_a_message_delivered_while_postgres_restarts_is_sent_once(
    own_postgres, telegram_holding_an_answer, clusters, report
):
    pg, fake = own_postgres, telegram_holding_an_answer
    deployment = {
        "DATABASE_URL": pg.url,
        "TELEGRAM_BOT_TOKEN": fake.token,
        "TELEGRAM_API_BASE_URL": fake.base_url,
        # The held answer must come before the call times out (a timeout is ambiguous by design).
        "TELEGRAM_TIMEOUT_S": 10,
        "TELEGRAM_MAX_PER_SECOND": 25,
        "NOTIFY_BATCH": ROWS,
        # Short enough that an unrecorded row comes back (and is sent again) within the test.
        "NOTIFY_CLAIM_LEASE_S": 20,
    }
    env = child_env(**deployment)
    manage("migrate", "--no-input", "-v0", env=env)
    shell(SEED, env=env)
    assert _statuses(pg) == {"pending": ROWS}
    cluster = clusters(workers=1, **deployment)

    assert enqueue_tick(env).returncode == 0
    wait_for(fake.holding.is_set, 120, f"message {LOST_AT} delivered, its answer held")
    pg.stop("fast")
    stopped_at = time.monotonic()
    fake.release.set()
    time.sleep(2)  # the worker meets a server that is down, not only a dropped connection
    pg.start()
    down_s = time.monotonic() - stopped_at
    restarted_at = time.monotonic()

    # The worker's round goes on by itself; ticks take what a failed round left behind.
    deadline = time.monotonic() + 150
    while _statuses(pg).get("pending"):
        assert time.monotonic() < deadline, (_statuses(pg), cluster.log_tail())
        assert enqueue_tick(env).returncode == 0
        time.sleep(3)
    drained_s = time.monotonic() - restarted_at
    cluster.stop()
    log = cluster.log_tail(chars=1_000_000)

    per_chat = Counter(m["chat_id"] for m in fake.messages)
    assert _statuses(pg) == {"sent": ROWS}
    assert len(per_chat) == ROWS, "a notification was lost"
    duplicated = sorted(chat for chat, n in per_chat.items() if n > 1)
    assert duplicated == [], (duplicated, log[-4000:])
    assert fake.sent_twice() == 0
    # The restart met the "sent" mark of the held message, which was retried until it landed.
    recorded = re.search(
        rf"recorded the sent mark \(Telegram message {LOST_AT}\).* at try (\d+)", log
    )
    assert recorded, log[-4000:]
    report(
        rows=ROWS,
        lost_at_message=LOST_AT,
        server_down_s=round(down_s, 1),
        drained_after_restart_s=round(drained_s, 1),
        sent_mark_tries=int(recorded[1]),
        messages=len(fake.messages),
        duplicated=len(duplicated),
        lost=ROWS - len(per_chat),
    )
