"""Pacing keeps the sender inside Telegram's limits, so normal operation never meets a 429."""

import pytest

from notifications.models import Notification
from notifications.pacing import Pacer
from notifications.sender import process_queue
from tests.factories import make_chat, make_notification


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_sliding_window_allows_at_most_n_per_window():
    clock = FakeClock()
    pacer = Pacer(3, clock=clock)
    for chat in (1, 2, 3):
        assert pacer.delay(chat) == 0
        pacer.record(chat)
    assert pacer.delay(4) == pytest.approx(pacer.window)
    clock.now += pacer.window
    assert pacer.delay(4) == 0


def test_one_message_per_second_per_private_chat_and_twenty_per_minute_per_group():
    clock = FakeClock()
    pacer = Pacer(30, clock=clock)
    pacer.record(5)
    pacer.record(-5)
    assert 1.0 < pacer.delay(5) < 1.1
    assert 3.0 < pacer.delay(-5) < 3.1
    assert pacer.delay(6) == 0


def test_retry_after_holds_the_chat():
    clock = FakeClock()
    pacer = Pacer(30, clock=clock)
    pacer.hold_chat(9, 7)
    assert pacer.delay(9) == 7


@pytest.mark.django_db
def test_burst_across_chats_meets_no_429(telegram, settings):
    settings.TELEGRAM_MAX_PER_SECOND = 30
    telegram.rate_limit(overall=30, per_chat=1)
    # 40 chats could take 40 msg/s: both the overall and the per-chat limit bind.
    chats = [make_chat() for _ in range(40)]
    for chat in chats:  # chat-major order: the sender must interleave by itself
        for _ in range(2):
            make_notification(chat=chat)
    while Notification.objects.pending().exists():
        process_queue()
    assert telegram.count_429 == 0
    assert len(telegram.messages) == 80
    assert telegram.sent_twice() == 0
