"""Fault 3: the Telegram Bot API is down for an hour, then back.

Every Bot API call answers 502 for the hour. The scheduler's whole tick runs once per travelled
minute (time-machine; the clock
cannot be moved inside a child process). During the outage the sender charges only
the row that discovered it and then asks getMe once per tick instead of hammering
sendMessage; when getMe answers again the queue drains in the next tick, every row
once, and the charged row not before its backoff.
"""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from notifications import sender
from notifications.models import BACKOFF, Notification
from scraping.tick import tick
from tests.factories import make_chat, make_notification

pytestmark = [
    pytest.mark.reliability,
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(120),
]

CHATS = 12


def _calls(telegram, method):
    return sum(1 for r in telegram.requests if r["method"] == method)


def test_an_hour_of_telegram_outage_loses_and_repeats_nothing(telegram, report):
    start = timezone.now()
    with time_machine.travel(start, tick=False) as clock:
        rows = [make_notification(chat=make_chat()) for _ in range(CHATS)]
        # Every Bot API method answers 502 (a proxy in front of a dead Bot API); the fake records
        # each call.
        telegram.fail(502, "Bad Gateway", methods=None, times=None)
        outage = telegram.rules[-1]
        for _minute in range(60):
            sender.pacer().chat_free_at.clear()
            assert tick()["sent"] == 0
            clock.shift(timedelta(minutes=1))
        # Backoff: one sendMessage discovered the outage, then one getMe per tick.
        assert _calls(telegram, "sendMessage") == 1
        assert _calls(telegram, "getMe") == 60
        assert Notification.objects.filter(status=Notification.Status.DEAD).count() == 0
        assert sum(n.attempts for n in Notification.objects.all()) == 1
        charged = Notification.objects.get(attempts=1)
        assert charged.next_attempt_at == start + BACKOFF[0]

        outage.times = 0  # back
        back_at = timezone.now()
        ticks = 0
        while Notification.objects.filter(status=Notification.Status.PENDING).exists():
            assert ticks < 5, "the queue did not drain within five ticks"
            sender.pacer().chat_free_at.clear()
            tick()
            ticks += 1
            clock.shift(timedelta(minutes=1))
        drained_after_s = ticks * 60

    assert {Notification.objects.get(pk=n.pk).status for n in rows} == {Notification.Status.SENT}
    assert len(telegram.messages) == CHATS
    assert telegram.sent_twice() == 0
    charged.refresh_from_db()
    # Backoff respected: the charged row went out after its next attempt time, and only once
    # Telegram was back.
    assert charged.sent_at >= start + BACKOFF[0]
    assert charged.sent_at >= back_at
    report(
        outage_minutes=60,
        lost=0,
        duplicated=telegram.sent_twice(),
        send_calls_during_outage=1,
        pings_during_outage=60,
        drained_after_ticks=ticks,
        recovered_after_s=drained_after_s,
    )
