"""The shared send pace: every process of every cluster reserves its slots in the SendPace table.

Waits are counted on the database's clock, which runs on while a test makes its calls: a wait
is checked against the time that passed since the test began (`elapsed`), never against a
guess of how fast the machine is.
"""

import time

import pytest

from notifications.models import SendPace
from notifications.pacing import ELSEWHERE, GO, LATER, SharedPacer

pytestmark = pytest.mark.django_db

BOT, CHAT = 0.04, 1.05


def reserve(chat, bot_interval=BOT, max_wait=60, **kwargs):
    return SendPace.objects.reserve("4242", f"4242:{chat}", bot_interval, CHAT, max_wait, **kwargs)


def push(seconds, *chats, bot=False):
    keys = [f"4242:{chat}" for chat in chats] + (["4242"] if bot else [])
    SendPace.objects.push("4242", dict.fromkeys(keys, seconds))


@pytest.fixture
def elapsed():
    """Seconds since the test began (plus the database clock's resolution)."""
    started = time.monotonic()
    return lambda: time.monotonic() - started + 0.01


def test_slots_of_the_bot_are_spaced_for_every_chat(elapsed):
    spacing = 30  # slots far apart: no test run takes that long between its calls
    first, second, third = (reserve(chat, bot_interval=spacing) for chat in (1, 2, 3))
    assert first.busy is None and first.wait == 0
    assert (second.busy, third.busy) == (None, None)
    assert spacing - elapsed() <= second.wait <= spacing
    assert 2 * spacing - elapsed() <= third.wait <= 2 * spacing


def test_a_chat_with_a_reserved_slot_is_busy_and_nothing_is_reserved(elapsed):
    assert reserve(1).busy is None
    busy = reserve(1)
    assert busy.busy == "chat" and CHAT - elapsed() <= busy.wait <= CHAT
    # The refused reservation took no bot slot: the next chat's slot is the second one.
    assert reserve(2).wait <= BOT


def test_a_chat_reserved_by_another_owner_is_not_mine():
    assert reserve(1, owner="a").busy is None
    assert (reserve(1, owner="a").mine, reserve(1, owner="b").mine) == (True, False)


def test_arrival_pushes_the_chat_slot(elapsed):
    reserve(1)
    push(30, 1)
    assert 30 - elapsed() <= reserve(1).wait <= 30


def test_a_reservation_carries_the_previous_answers_arrival(elapsed):
    assert reserve(1).busy is None
    assert reserve(2, arrived=("4242:1", 30)).busy is None
    # chat 1 counts from its answer, as after push()
    assert 30 - elapsed() <= reserve(1).wait <= 30


def test_retry_after_holds_the_whole_bot(elapsed):
    push(5, 1, bot=True)
    slot = reserve(2)
    assert slot.busy is None and 5 - elapsed() <= slot.wait <= 5
    assert reserve(1).busy == "chat"


def test_nothing_is_reserved_beyond_the_deadline(elapsed):
    push(5, 1, bot=True)
    late = reserve(2, max_wait=1)
    assert late.busy == "bot" and 5 - elapsed() <= late.wait <= 5
    assert reserve(2).busy is None  # chat 2 was not taken by the refusal


def test_a_slot_far_ahead_is_a_clock_that_jumped_back_and_is_ignored():
    SendPace.objects.create(key="4242", free_at=4e9)  # the year 2096
    SendPace.objects.create(key="4242:1", free_at=4e9)
    slot = reserve(1)
    assert slot.busy is None and slot.wait == 0


def test_two_processes_share_the_chat_and_the_bot():
    a, b = SharedPacer(25, bot="4242"), SharedPacer(25, bot="4242")
    assert a.wait(7) == GO
    a.record(7)
    assert b.delay(7) == 0  # b has not heard of it yet ...
    assert b.wait(7) == ELSEWHERE  # ... the table tells it: a holds the chat
    assert 0.8 < b.delay(7) <= CHAT
    a.hold_chat(8, 3)
    assert b.wait(9, until=b.clock() + 1) == LATER  # the bot is held: no slot within b's deadline
    assert 2.5 < b.delay(9) <= 3


def test_a_process_waits_for_a_chat_it_holds_itself():
    a = SharedPacer(25, bot="4242")
    assert a.wait(7) == GO
    a.record(7)
    a.chat_free_at.clear()  # forgotten locally (as tests do between ticks); the table still knows
    assert a.wait(7) == LATER
    assert a.wait(7) == GO  # after sleeping the learned delay


def test_an_answer_rides_on_the_next_reservation(django_assert_num_queries):
    pacer = SharedPacer(25, bot="4242")
    assert pacer.wait(1) == GO
    reserved = SendPace.objects.get(key="4242:1").free_at
    with django_assert_num_queries(0):
        pacer.record(1)
    assert pacer.wait(2) == GO
    assert SendPace.objects.get(key="4242:1").free_at > reserved  # pushed from the answer
    pacer.record(2)
    reserved = SendPace.objects.get(key="4242:2").free_at
    pacer.flush()
    assert SendPace.objects.get(key="4242:2").free_at > reserved
    with django_assert_num_queries(0):
        pacer.flush()  # nothing left to write
