"""Fault 2: `kill -9` the worker that is sending notifications, again and again.

A real qcluster (one worker) sends the outbox through the tick, paced at 4 messages/s.
The worker is killed ten times: three times inside a hanging sendMessage call, six
times at a random moment of a paced batch, once while idle. After each kill
django-q2 forks a new worker; rows claimed by the dead one come back when their
lease (NOTIFY_CLAIM_LEASE_S=3) ends.

The Bot API has no idempotency key: a message Telegram accepted in the instant
before the kill (before the worker recorded `sent`) goes out again. The test finds
those kills — a row still claimed whose message the fake already holds — and asserts
that every duplicate the fake counts is one of them: zero duplicates from any other
kill, zero lost, every row `sent`.
"""

import random
import re
import time

import pytest
from django_q.tasks import async_task

from notifications.models import Notification
from tests.factories import make_chat, make_notification
from tests.processes import wait_for
from tests.reliability.helpers import alive, kill9

pytestmark = [
    pytest.mark.reliability,
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(180),
]

ROWS = 60
HANG_KILLS = 3
RANDOM_KILLS = 6
CLUSTER_ENV = (
    "TELEGRAM_BOT_TOKEN",
    "TELEGRAM_API_BASE_URL",
    "TELEGRAM_TIMEOUT_S",
    "TELEGRAM_MAX_PER_SECOND",
    "NOTIFY_CLAIM_LEASE_S",
)


def _sends(telegram):
    return sum(1 for r in telegram.requests if r["method"] in ("sendMessage", "sendPhoto"))


def _mentions(text, title):
    return re.search(rf"\b{re.escape(title)}\b", text) is not None  # "Ad 1" is not in "Ad 10"


def _delivered_but_unrecorded(telegram, titles):
    """Rows the fake holds a message for but whose outcome the dead worker never saved."""
    texts = [t or "" for t in telegram.texts()]
    claimed = Notification.objects.filter(status="pending", claimed_at__isnull=False).values_list(
        "pk", flat=True
    )
    return [pk for pk in claimed if any(_mentions(text, titles[pk]) for text in texts)]


def _worker(cluster, telegram):
    return wait_for(
        lambda: cluster.pids_connected_to(telegram.port), 10, "the worker talking to the Bot API"
    )[0]


def _kill(cluster, pid):
    kill9(pid)
    wait_for(lambda: not alive(pid), 10, "the worker to die")
    # django-q2's guard forks a replacement: sentinel, pusher, monitor and one worker again.
    wait_for(
        lambda: len(cluster.processes()) >= 4 and pid not in cluster.processes(),
        20,
        "a replacement worker",
    )


def test_killed_sender_loses_nothing_and_repeats_only_inside_the_send_call(
    telegram, clusters, report
):
    rows = [make_notification(chat=make_chat()) for _ in range(ROWS)]
    titles = {n.pk: n.ad.title for n in rows}
    telegram.port = int(telegram.base_url.rsplit(":", 1)[1])
    cluster = clusters(
        workers=1,
        TELEGRAM_BOT_TOKEN=telegram.token,
        TELEGRAM_API_BASE_URL=telegram.base_url,
        TELEGRAM_TIMEOUT_S=2,
        TELEGRAM_MAX_PER_SECOND=4,
        NOTIFY_CLAIM_LEASE_S=3,
    )
    assert set(CLUSTER_ENV) <= set(cluster.env)
    kills = {"idle": 0, "in_send_call": 0, "random": 0}
    in_window = []

    # Inside the send call: the fake holds sendMessage without answering (nothing delivered).
    for _ in range(HANG_KILLS):
        before = _sends(telegram)
        telegram.hang(seconds=60, times=1)
        async_task("scraping.tick.tick")
        wait_for(
            lambda b=before: _sends(telegram) > b and not any(r.times for r in telegram.rules),
            20,
            "a hanging sendMessage",
        )
        _kill(cluster, _worker(cluster, telegram))
        kills["in_send_call"] += 1
        in_window += _delivered_but_unrecorded(telegram, titles)

    # At a random moment of a paced batch: mostly between sends, rarely inside one.
    rng = random.Random(9)
    for _ in range(RANDOM_KILLS):
        before = _sends(telegram)
        async_task("scraping.tick.tick")
        wait_for(lambda b=before: _sends(telegram) > b, 20, "the batch to start sending")
        time.sleep(rng.uniform(0.05, 1.5))
        _kill(cluster, _worker(cluster, telegram))
        kills["random"] += 1
        in_window += _delivered_but_unrecorded(telegram, titles)

    # The leases run out; the next ticks deliver the rest.
    time.sleep(3.2)
    deadline = time.monotonic() + 90
    while Notification.objects.filter(status="pending").exists():
        assert time.monotonic() < deadline, (
            "still pending: "
            f"{list(Notification.objects.filter(status='pending').values('pk', 'attempts'))}"
        )
        async_task("scraping.tick.tick")
        time.sleep(2)
    time.sleep(1)

    # Idle: the worker that drained the queue waits for its next task; kill it there, then send
    # more.
    _kill(cluster, _worker(cluster, telegram))
    kills["idle"] += 1
    extra = [make_notification(chat=make_chat()) for _ in range(3)]
    titles.update({n.pk: n.ad.title for n in extra})
    async_task("scraping.tick.tick")
    wedged = False
    try:
        wait_for(
            lambda: not Notification.objects.filter(status="pending").exists(),
            15,
            "the rows queued after the idle kill",
        )
    except AssertionError:
        # An idle django-q2 worker waits in the multiprocessing task queue's get(), holding its
        # lock; SIGKILL there leaves the lock taken and the replacement worker never gets a task.
        # Nothing is lost: the rows wait, the tick stops beating, /health turns 503
        # (scheduler_stale) and the orchestrator restarts the cluster — done here by hand.
        wedged = True
        cluster.stop(timeout=10)
        cluster = clusters(workers=1, **{k: cluster.env[k] for k in CLUSTER_ENV})
        async_task("scraping.tick.tick")
        wait_for(
            lambda: not Notification.objects.filter(status="pending").exists(),
            30,
            "the rows after a cluster restart",
        )
    time.sleep(1)

    assert set(Notification.objects.values_list("status", flat=True)) == {"sent"}
    texts = [t or "" for t in telegram.texts()]
    per_row = {
        pk: sum(1 for text in texts if _mentions(text, title)) for pk, title in titles.items()
    }
    assert min(per_row.values()) == 1, "a notification was lost"
    duplicated = sorted(pk for pk, n in per_row.items() if n > 1)
    # Every duplicate is a row Telegram accepted in the instant before a kill; no other kill repeats
    # anything.
    assert duplicated == sorted(set(in_window))
    assert max(per_row.values()) <= 2
    assert telegram.sent_twice() == len(duplicated)
    report(
        kills=sum(kills.values()),
        **kills,
        messages=len(texts),
        rows=ROWS + 3,
        lost=0,
        duplicated=len(duplicated),
        duplicates_outside_send_window=0,
        idle_kill_wedged_cluster=wedged,
    )
