"""The shared send pace: every process of every cluster reserves its slots in one store."""

import pytest

from notifications.models import SendPace
from notifications.pace_store import OrmPaceStore, RedisPaceStore
from notifications.pacing import ELSEWHERE, GO, LATER, SharedPacer
from tests.reliability.helpers import running_redis

pytestmark = pytest.mark.django_db

BOT, CHAT = 0.04, 1.05


@pytest.fixture(params=["orm", "redis"])
def store(request):
    if request.param == "orm":
        yield OrmPaceStore("4242")
        return
    with running_redis() as url:
        yield RedisPaceStore("4242", url)


def test_slots_of_the_bot_are_spaced_for_every_chat(store):
    spacing = 0.5  # far above the time a reservation takes on a busy machine
    first = store.reserve(1, spacing, CHAT, 60)
    second = store.reserve(2, spacing, CHAT, 60)
    third = store.reserve(3, spacing, CHAT, 60)
    assert first.busy is None and first.wait < 0.1
    assert (second.busy, third.busy) == (None, None)
    assert spacing - 0.2 < second.wait <= spacing
    assert 2 * spacing - 0.2 < third.wait <= 2 * spacing


def test_a_chat_with_a_reserved_slot_is_busy_and_nothing_is_reserved(store):
    assert store.reserve(1, BOT, CHAT, 60).busy is None
    busy = store.reserve(1, BOT, CHAT, 60)
    assert busy.busy == "chat" and 0.8 < busy.wait <= CHAT
    # The refused reservation took no bot slot: the next chat's slot is the second one.
    assert store.reserve(2, BOT, CHAT, 60).wait <= BOT


def test_arrival_pushes_the_chat_slot(store):
    store.reserve(1, BOT, CHAT, 60)
    store.record(1, 3.05)
    assert store.reserve(1, BOT, CHAT, 60).wait > 2.5


def test_a_reservation_carries_the_previous_answers_arrival(store):
    assert store.reserve(1, BOT, CHAT, 60).busy is None
    assert store.reserve(2, BOT, CHAT, 60, arrived=(1, 3.05)).busy is None
    assert (
        store.reserve(1, BOT, CHAT, 60).wait > 2.5
    )  # chat 1 counts from its answer, as after record()


def test_retry_after_holds_the_whole_bot(store):
    store.hold(1, 5)
    slot = store.reserve(2, BOT, CHAT, 60)
    assert slot.busy is None and 4.5 < slot.wait <= 5
    assert store.reserve(1, BOT, CHAT, 60).busy == "chat"


def test_nothing_is_reserved_beyond_the_deadline(store):
    store.hold(1, 5)
    late = store.reserve(2, BOT, CHAT, 1)
    assert late.busy == "bot" and late.wait > 4.5
    assert store.reserve(2, BOT, CHAT, 60).busy is None  # chat 2 was not taken by the refusal


def test_two_processes_share_the_chat_and_the_bot(store):
    a, b = SharedPacer(25, store=store), SharedPacer(25, store=store)
    assert a.wait(7) == GO
    a.record(7)
    assert b.delay(7) == 0  # b has not heard of it yet ...
    assert b.wait(7) == ELSEWHERE  # ... the store tells it: a holds the chat
    assert 0.8 < b.delay(7) <= CHAT
    a.hold_chat(8, 3)
    assert b.wait(9, until=b.clock() + 1) == LATER  # the bot is held: no slot within b's deadline
    assert 2.5 < b.delay(9) <= 3


def test_a_process_waits_for_a_chat_it_holds_itself(store):
    a = SharedPacer(25, store=store)
    assert a.wait(7) == GO
    a.record(7)
    a.chat_free_at.clear()  # forgotten locally (as tests do between ticks); the store still knows
    assert a.wait(7) == LATER
    assert a.wait(7) == GO  # after sleeping the learned delay


@pytest.mark.postgres
def test_on_postgresql_a_reservation_is_one_statement(django_assert_num_queries):
    store = OrmPaceStore("4242")
    with django_assert_num_queries(1):
        assert store.reserve(1, BOT, CHAT, 60).busy is None
    with django_assert_num_queries(1):
        busy = store.reserve(1, BOT, CHAT, 60, owner="another")
    assert (busy.busy, busy.mine) == ("chat", False)


@pytest.mark.postgres
def test_on_postgresql_an_answer_rides_on_the_next_reservation(django_assert_num_queries):
    pacer = SharedPacer(25, store=OrmPaceStore("4242"))
    assert pacer.wait(1) == GO
    reserved = SendPace.objects.get(key="4242:1").free_at
    with django_assert_num_queries(0):
        pacer.record(1)
    with django_assert_num_queries(1):
        assert pacer.wait(2) == GO
    assert SendPace.objects.get(key="4242:1").free_at > reserved  # pushed from the answer
    pacer.record(2)
    with django_assert_num_queries(1):
        pacer.flush()
    with django_assert_num_queries(0):
        pacer.flush()  # nothing left to write
