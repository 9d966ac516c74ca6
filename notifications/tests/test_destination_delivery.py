"""Apprise destinations get the outbox's guarantees: one post per row, retries on the backoff,
dead after six failures (which pauses the destination with an admin alert), pace and digest,
quiet hours and mute; the URL's password in no log line."""

import threading
from datetime import time, timedelta
from decimal import Decimal
from time import sleep

import pytest
from django.urls import reverse
from django.utils import timezone

from notifications.models import Destination, Notification, TelegramChat
from notifications.sender import process_queue
from tests.factories import (
    make_ad,
    make_chat,
    make_destination,
    make_keyword,
    make_notification,
    make_subscription,
)
from tests.fakes.apprise_endpoint import FakeAppriseEndpoint

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


@pytest.fixture
def family(apprise_endpoint):
    return make_destination(title="family", apprise_url=apprise_endpoint.url("family"))


def test_a_row_is_posted_once_with_title_price_location_and_link(apprise_endpoint, family):
    keyword = make_keyword(name="rennrad", query="rennrad")
    ad = make_ad(
        title="Puch Rennrad",
        price=Decimal("1700"),
        location="Wien",
        postcode="1070",
        image_url="https://cache.willhaben.at/mmo/1_hoved.jpg",
    )
    n = make_notification(chat=family, ad=ad, keyword=keyword)
    assert process_queue() == 1
    assert process_queue() == 0
    [post] = apprise_endpoint.posts
    assert post["title"] == "🆕 New ad: Puch Rennrad"
    assert "€ 1.700" in post["message"] and "1070 Wien" in post["message"]
    assert f"Open ad: {ad.url}" in post["message"]
    assert "Image: https://cache.willhaben.at/mmo/1_hoved.jpg" in post["message"]
    assert "🔎 rennrad · willhaben" in post["message"]
    assert post["auth"] == ("user", "secret")
    n.refresh_from_db()
    family.refresh_from_db()
    assert n.status == Notification.Status.SENT and n.attempts == 1
    assert family.last_success_at is not None


def test_the_message_is_in_the_destinations_language(apprise_endpoint, family):
    family.language = "de"
    family.save()
    make_notification(chat=family, ad=make_ad(title="Ski", price=Decimal("80")))
    process_queue()
    assert apprise_endpoint.posts[0]["title"] == "🆕 Neue Anzeige: Ski"


def test_a_telegram_chat_and_a_destination_get_a_new_ad_once_each(
    telegram, apprise_endpoint, family
):
    keyword = make_keyword()
    chat = make_chat()
    make_subscription(chat=chat, keyword=keyword)
    make_subscription(chat=family, keyword=keyword)
    ad = make_ad(title="Bianchi", price=Decimal("450"))
    now = timezone.now()
    assert (
        Notification.objects.fan_out(
            keyword, [(ad.pk, "new", ad.price, None)], [chat.pk, family.pk], now
        )
        == 2
    )
    assert process_queue() == 2
    assert process_queue() == 0
    assert [m["chat_id"] for m in telegram.messages] == [chat.chat_id]
    assert telegram.sent_twice() == 0
    assert len(apprise_endpoint.posts) == 1 and "Bianchi" in apprise_endpoint.posts[0]["title"]


def test_a_500_retries_after_the_backoff_then_delivers_once(apprise_endpoint, family, time_machine):
    failed_at = timezone.now()
    time_machine.move_to(failed_at, tick=False)
    n = make_notification(chat=family)
    apprise_endpoint.fail_next(1)
    assert process_queue() == 0
    n.refresh_from_db()
    assert (n.status, n.attempts) == (Notification.Status.PENDING, 1)
    assert "500" in n.last_error
    assert n.next_attempt_at - failed_at == timedelta(minutes=1)  # BACKOFF's first step
    time_machine.move_to(failed_at + timedelta(seconds=55))
    assert process_queue() == 0  # not due before the backoff's minute
    assert len(apprise_endpoint.refused) == 1 and apprise_endpoint.posts == []
    time_machine.move_to(failed_at + timedelta(minutes=1))
    assert process_queue() == 1
    assert process_queue() == 0
    assert len(apprise_endpoint.posts) == 1
    n.refresh_from_db()
    assert (n.status, n.attempts) == (Notification.Status.SENT, 2)


def test_six_failures_make_the_row_dead_and_pause_the_destination(
    apprise_endpoint, family, time_machine, admin_client, caplog
):
    admin_chat = make_chat(is_admin=True)
    time_machine.move_to(timezone.now())
    apprise_endpoint.status = 500
    n = make_notification(chat=family)
    waiting = make_notification(chat=family)
    for _ in range(6):
        process_queue()
        time_machine.move_to(timezone.now() + timedelta(minutes=17))
    n.refresh_from_db()
    family.refresh_from_db()
    assert (n.status, n.attempts) == (Notification.Status.DEAD, 6)
    assert len(apprise_endpoint.refused) == 6  # the two rows went as one digest each time
    assert family.status == TelegramChat.Status.PAUSED
    assert "500" in family.status_reason
    waiting.refresh_from_db()
    assert waiting.status == Notification.Status.DEAD
    alert = Notification.objects.get(kind=Notification.Kind.ALERT)
    assert alert.chat == admin_chat and "family" in alert.text and "paused" in alert.text
    outbox = admin_client.get(reverse("admin:notifications_notification_changelist")).content
    assert outbox.count(b">dead</span>") == 2
    page = admin_client.get(reverse("admin:notifications_destination_changelist")).content
    assert b">paused</span>" in page and b"secret" not in page
    assert not any("secret" in r.getMessage() for r in caplog.records)


def test_a_paused_destination_gets_nothing_queued_nor_sent(apprise_endpoint, family):
    keyword = make_keyword()
    make_subscription(chat=family, keyword=keyword)
    queued = make_notification(chat=family)
    Destination.objects.get(pk=family.pk).pause("by hand", alert=False)
    raced = make_notification(chat=family)  # written by a fan-out that read it as active
    assert process_queue() == 0
    queued.refresh_from_db()
    raced.refresh_from_db()
    assert queued.status == raced.status == Notification.Status.CANCELLED
    assert apprise_endpoint.posts == []


def test_several_due_rows_become_one_digest(apprise_endpoint, family):
    rows = [make_notification(chat=family, ad=make_ad(title=f"Rad {i}")) for i in range(3)]
    assert process_queue() == 3
    [post] = apprise_endpoint.posts
    assert post["title"].startswith("📬 3 new")
    assert all(f"Rad {i}" in post["message"] for i in range(3))
    assert {n.status for n in Notification.objects.filter(pk__in=[r.pk for r in rows])} == {"sent"}


def test_the_pace_keeps_one_message_per_gap_and_sends_the_rest_as_one(
    apprise_endpoint, family, settings
):
    # The pace is kept on the database's clock (SendPace), which a fake clock does not move.
    settings.APPRISE_MIN_GAP_S = 1.0
    make_notification(chat=family)
    assert process_queue() == 1
    make_notification(chat=family)
    make_notification(chat=family)
    assert process_queue() == 0  # inside the gap
    sent = wait_until(process_queue)
    assert sent == 2
    assert len(apprise_endpoint.posts) == 2
    assert apprise_endpoint.posts[1]["title"].startswith("📬 2 new")


def wait_until(work, tries=100, pause=0.1):
    for _ in range(tries):
        result = work()
        if result:
            return result
        sleep(pause)
    return None


def test_quiet_hours_and_mute_hold_a_destinations_rows(apprise_endpoint, family, time_machine):
    time_machine.move_to(timezone.now().replace(hour=12, minute=0))
    family.time_zone = "UTC"
    family.quiet_start, family.quiet_end = time(11, 0), time(13, 0)
    family.save()
    n = make_notification(chat=family)
    assert process_queue() == 0
    n.refresh_from_db()
    assert n.next_attempt_at.hour == 13 and n.attempts == 0
    family.set_quiet_hours(None, None)
    family.mute(timezone.now() + timedelta(hours=2))
    assert process_queue() == 0
    family.unmute()
    assert process_queue() == 1
    assert len(apprise_endpoint.posts) == 1


def test_destination_rows_are_sent_without_a_bot_token(apprise_endpoint, family, settings):
    settings.TELEGRAM_BOT_TOKEN = ""
    make_notification(chat=family)
    make_notification(chat=make_chat())
    assert process_queue() == 1
    assert len(apprise_endpoint.posts) == 1


def test_a_refused_url_kills_the_row_at_once(apprise_endpoint, family):
    TelegramChat.objects.filter(pk=family.pk).update(apprise_url="foo://nothing")
    n = make_notification(chat=family)
    process_queue()
    n.refresh_from_db()
    family.refresh_from_db()
    assert n.status == Notification.Status.DEAD and "foo://" in n.last_error
    assert family.status == TelegramChat.Status.PAUSED


def test_a_hanging_destination_fails_within_its_timeout_and_the_others_are_served(
    telegram, apprise_endpoint, family, settings
):
    settings.APPRISE_TIMEOUT_S = 0.5
    slow_endpoint = FakeAppriseEndpoint().start()
    slow_endpoint.hold = threading.Event()
    try:
        # Its URL asks for a 30 s read timeout: APPRISE_TIMEOUT_S caps it.
        url = slow_endpoint.url("slow") + "?rto=30"
        slow = make_destination(title="slow", apprise_url=url)
        stuck = make_notification(chat=slow)
        make_notification(chat=family)
        chat_row = make_notification(chat=make_chat())
        assert process_queue() == 2
        assert slow_endpoint.arrived.is_set()
    finally:
        slow_endpoint.stop()
    stuck.refresh_from_db()
    chat_row.refresh_from_db()
    assert (stuck.status, stuck.attempts) == (Notification.Status.PENDING, 1)
    assert stuck.last_error
    assert chat_row.status == Notification.Status.SENT
    assert len(apprise_endpoint.posts) == 1 and len(telegram.messages) == 1
