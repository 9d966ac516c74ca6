"""A scrape that queued notifications wakes the sender: they go out without waiting for a tick,
and a long outbox drains batch after batch at the pace Telegram allows, each row once."""

import pydoc

import pytest
from django_q.models import OrmQ
from django_q.signing import SignedPackage

from notifications.models import Notification
from notifications.tasks import SEND_TASK, send_due, wake_sender
from scraping.claims import claim_due_keywords
from scraping.tasks import run_scrape
from scraping.tick import tick
from tests.factories import (
    make_ad,
    make_chat,
    make_destination,
    make_keyword,
    make_notification,
    make_subscription,
)
from tests.fakes.willhaben_factory import make_raw_ads

pytestmark = pytest.mark.django_db


def run_queued_tasks(limit=100):
    """What a worker does with each queued task, oldest first, until the queue is empty;
    returns the functions run, in order."""
    ran = []
    while row := OrmQ.objects.order_by("id").first():
        assert len(ran) < limit, f"the queue does not drain: {ran[-5:]}"
        task = SignedPackage.loads(row.payload)
        row.delete()
        ran.append(task["func"])
        pydoc.locate(task["func"])(*task["args"], **task["kwargs"])
    return ran


@pytest.fixture
def subscribed(settings):
    settings.NOTIFY_ON_FIRST_RUN = True
    keyword = make_keyword(query="rennrad")
    chats = [make_chat() for _ in range(3)]
    for chat in chats:
        make_subscription(chat=chat, keyword=keyword)
    return keyword, chats


def test_rows_queued_by_a_finished_scrape_are_sent_without_a_tick(
    willhaben_server, telegram, subscribed
):
    willhaben_server.set_ads(make_raw_ads(2))
    [run] = claim_due_keywords()
    assert run_scrape(run.pk) == "done"
    assert Notification.objects.pending().count() == 6
    assert telegram.messages == []
    # Only the tasks the scrape left in the queue run: no tick.
    assert run_queued_tasks() == [SEND_TASK]
    assert Notification.objects.pending().count() == 0
    assert len(telegram.messages) == 6
    assert telegram.sent_twice() == 0


def test_a_scrape_that_queued_nothing_does_not_wake_the_sender(
    willhaben_server, telegram, subscribed
):
    willhaben_server.set_ads([])
    [run] = claim_due_keywords()
    run_scrape(run.pk)
    assert run_queued_tasks() == []


def test_a_long_outbox_drains_batch_after_batch_without_a_tick(telegram, settings):
    settings.NOTIFY_BATCH = 10
    for _ in range(30):
        chat = make_chat()
        for _ in range(2):
            make_notification(chat=chat, ad=make_ad())
    assert send_due() == 10
    ran = run_queued_tasks()
    assert ran == [SEND_TASK] * len(ran) and len(ran) >= 5
    assert Notification.objects.pending().count() == 0
    assert len(telegram.messages) == 60
    assert telegram.sent_twice() == 0


def test_two_wakes_at_once_send_each_row_once(telegram, settings):
    settings.NOTIFY_BATCH = 10
    for _ in range(10):
        chat = make_chat()
        for _ in range(2):
            make_notification(chat=chat, ad=make_ad())
    # Two wakes before any sender ran (two scrapes finishing together): two chains.
    assert wake_sender() and wake_sender()
    run_queued_tasks()
    assert Notification.objects.pending().count() == 0
    assert len(telegram.messages) == 20
    assert telegram.sent_twice() == 0


def test_a_tick_sends_one_batch_and_a_long_outbox_goes_on_without_the_next_tick(telegram, settings):
    settings.NOTIFY_BATCH = 10
    for _ in range(25):
        make_notification()
    assert tick()["sent"] == 10
    assert Notification.objects.pending().count() == 15
    run_queued_tasks()
    assert Notification.objects.pending().count() == 0
    assert len(telegram.messages) == 25


def test_without_a_bot_token_a_scrape_enqueues_no_sender(willhaben_server, subscribed, settings):
    settings.TELEGRAM_BOT_TOKEN = ""
    willhaben_server.set_ads(make_raw_ads(2))
    [run] = claim_due_keywords()
    run_scrape(run.pk)
    assert Notification.objects.pending().count() == 6
    assert run_queued_tasks() == []


def test_without_a_bot_token_an_active_destination_still_wakes_the_sender(settings):
    settings.TELEGRAM_BOT_TOKEN = ""
    assert wake_sender() is False
    destination = make_destination()
    assert wake_sender() is True
    destination.pause("by hand", alert=False)
    assert wake_sender() is False
