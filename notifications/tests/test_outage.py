"""An hour-long Bot API outage: nothing dies, nothing repeats, everything arrives afterwards."""

from datetime import timedelta

import pytest
from django.utils import timezone

from notifications import sender
from notifications.models import Notification
from notifications.sender import process_queue
from tests.factories import make_chat, make_notification

pytestmark = pytest.mark.django_db


def test_hour_long_outage_ends_with_every_message_delivered_once(telegram, time_machine):
    time_machine.move_to(timezone.now(), tick=False)
    chats = [make_chat() for _ in range(4)]
    rows = [make_notification(chat=chats[i % 4]) for i in range(12)]
    telegram.down = True
    for _minute in range(60):
        sender.pacer().chat_free_at.clear()
        assert process_queue() == 0
        time_machine.shift(timedelta(minutes=1))
    assert Notification.objects.filter(status=Notification.Status.DEAD).count() == 0
    # Only the row that discovered the outage was charged an attempt.
    assert sum(n.attempts for n in Notification.objects.all()) == 1

    telegram.down = False
    for _minute in range(3):
        sender.pacer().chat_free_at.clear()
        process_queue()
        time_machine.shift(timedelta(minutes=1))

    assert {Notification.objects.get(pk=n.pk).status for n in rows} == {Notification.Status.SENT}
    assert len(telegram.messages) == 12
    assert telegram.sent_twice() == 0


def test_outage_is_logged_once_per_tick_at_warning(telegram, caplog):
    make_notification()
    make_notification()
    telegram.down = True
    process_queue()
    caplog.clear()
    process_queue()
    ours = [r for r in caplog.records if r.name == "notifications.sender"]
    assert [(r.levelname, "unreachable" in r.getMessage()) for r in ours] == [("WARNING", True)]
