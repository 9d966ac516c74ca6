"""Chats and the outbox in the admin: badges, subscription counts, approve / block."""

import re
from datetime import UTC, datetime

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.urls import reverse

from notifications.models import Notification, TelegramChat
from notifications.tests.test_quiet_hours import change_chat
from tests.factories import make_chat, make_notification, make_subscription

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]

CHATS = reverse("admin:notifications_telegramchat_changelist")


def act(client, action, *chats):
    return client.post(
        CHATS, {"action": action, ACTION_CHECKBOX_NAME: [c.pk for c in chats]}, follow=True
    )


def test_list_shows_status_badge_and_subscriptions_count(admin_client):
    chat = make_chat(status=TelegramChat.Status.PENDING)
    make_subscription(chat=chat)
    make_subscription(chat=chat)
    html = admin_client.get(CHATS).content.decode()
    assert '<span class="lago-badge lago-amber">pending approval</span>' in html
    assert '<td class="field-subscriptions_count">2</td>' in html


def test_approve_activates_pending_chats_only(admin_client):
    pending, blocked = (
        make_chat(status=TelegramChat.Status.PENDING),
        make_chat(status=TelegramChat.Status.BLOCKED),
    )
    response = act(admin_client, "approve", pending, blocked)
    assert "1 chat approved and welcomed; 1 were not pending." in response.content.decode()
    pending.refresh_from_db()
    blocked.refresh_from_db()
    assert (pending.status, blocked.status) == ("active", "blocked")
    welcome = Notification.objects.get(kind=Notification.Kind.WELCOME)
    assert welcome.chat_id == pending.pk and welcome.status == Notification.Status.PENDING


def test_block_stops_the_chat_and_cancels_its_queue(admin_client):
    chat = make_chat()
    queued = make_notification(chat=chat)
    response = act(admin_client, "block", chat)
    assert "1 chat blocked; 1 queued notification(s) cancelled." in response.content.decode()
    chat.refresh_from_db()
    queued.refresh_from_db()
    assert chat.status == "blocked" and queued.status == Notification.Status.CANCELLED


def test_notification_list_shows_badge_and_filters_by_kind(admin_client):
    make_notification(status=Notification.Status.DEAD, last_error="Forbidden")
    url = reverse("admin:notifications_notification_changelist")
    html = admin_client.get(url).content.decode()
    assert '<span class="lago-badge lago-red">dead</span>' in html and "Forbidden" in html
    assert len(admin_client.get(url, {"kind__exact": "price_drop"}).context["cl"].result_list) == 0
    assert (
        len(
            admin_client.get(url, {"kind__exact": "new", "status__exact": "dead"})
            .context["cl"]
            .result_list
        )
        == 1
    )


def test_approve_from_the_pending_filter_counts_right(admin_client):
    pending = [make_chat(status=TelegramChat.Status.PENDING) for _ in range(2)]
    data = {"action": "approve", ACTION_CHECKBOX_NAME: [c.pk for c in pending]}
    response = admin_client.post(f"{CHATS}?status__exact=pending", data, follow=True)
    html = response.content.decode()
    assert "2 chats approved and welcomed; 0 were not pending." in html
    assert "-" + "2 were not pending" not in html


def test_notification_page_is_read_only_without_internals(admin_client):
    n = make_notification(claim_token="secret-claim-token-123")
    html = admin_client.get(
        reverse("admin:notifications_notification_change", args=[n.pk])
    ).content.decode()
    assert "secret-claim-token-123" not in html and "claim" not in html.lower()
    assert 'name="_save"' not in html and 'name="_continue"' not in html


def test_only_a_pending_notification_shows_its_next_attempt(admin_client):
    when = datetime(2026, 12, 4, 18, 48, tzinfo=UTC)
    pending = make_notification(next_attempt_at=when)
    sent = make_notification(status=Notification.Status.SENT, next_attempt_at=when, sent_at=when)
    url = reverse("admin:notifications_notification_changelist")
    html = admin_client.get(url).content.decode()
    cells = re.findall(r'<td class="field-next_attempt[^"]*">([^<]*)</td>', html)
    assert sorted(cells) == ["-", "Dec. 4, 2026, 7:48 p.m."]  # the pending row's, in TIME_ZONE
    page = admin_client.get(reverse("admin:notifications_notification_change", args=[sent.pk]))
    assert "field-next_attempt_at" not in page.content.decode()
    page = admin_client.get(reverse("admin:notifications_notification_change", args=[pending.pk]))
    assert "field-next_attempt_at" in page.content.decode()


def test_admin_column_marks_admin_chats_and_leaves_normal_ones_plain(admin_client):
    make_chat(is_admin=True, title="the admins")
    make_chat(title="a subscriber")
    html = admin_client.get(CHATS).content.decode()
    assert "icon-no.svg" not in html  # Django's red ✖ of a boolean column
    cells = re.findall(r'<td class="field-(?:is_admin|admin_mark)">([^<]*)</td>', html)
    assert sorted(cells) == ["-", "✔"]


def test_chat_language_is_a_choice_of_the_languages_lago_speaks(admin_client):
    chat = make_chat(language="de")
    page = admin_client.get(reverse("admin:notifications_telegramchat_change", args=[chat.pk]))
    html = page.content.decode()
    select = re.search(r'<select name="language".*?</select>', html, flags=re.S).group()
    assert re.findall(r'<option value="([^"]*)"', select) == ["de", "en"]
    response = change_chat(admin_client, chat, language="fr")
    assert response.status_code == 200
    assert "Select a valid choice. fr is not one of the available choices." in (
        response.content.decode()
    )
    chat.refresh_from_db()
    assert chat.language == "de"
    assert change_chat(admin_client, chat, language="en").status_code == 302
    chat.refresh_from_db()
    assert chat.language == "en"


def test_make_admin_chat_for_active_chats_only(admin_client):
    active, pending = make_chat(), make_chat(status=TelegramChat.Status.PENDING)
    response = act(admin_client, "make_admin_chat", active, pending)
    assert "1 chat is an admin chat; 1 not active: approve them first." in (
        response.content.decode()
    )
    assert list(TelegramChat.objects.admins()) == [active]


def test_send_test_message_reaches_the_chat(admin_client, telegram):
    chat = make_chat(title="Flohmarkt")
    response = act(admin_client, "send_test_message", chat)
    assert "Test message sent to Flohmarkt." in response.content.decode()
    assert telegram.texts(chat.chat_id) == [
        "Test message from Lago: this chat receives Lago's messages."
    ]


def test_send_test_message_reports_the_error(admin_client, telegram):
    chat = make_chat(title="Flohmarkt")
    telegram.forbid(chat.chat_id)
    html = act(admin_client, "send_test_message", chat).content.decode()
    assert "Test message to Flohmarkt failed: Forbidden: " in html
    assert "bot was blocked by the user" in html
    assert telegram.token not in html


def test_send_test_message_in_the_chats_language(admin_client, telegram):
    chat = make_chat(title="Flohmarkt", language="de")
    act(admin_client, "send_test_message", chat)
    assert telegram.texts(chat.chat_id) == [
        "Testnachricht von Lago: Dieser Chat erhält Lagos Nachrichten."
    ]


def test_send_test_message_without_token_says_where_it_goes(admin_client, settings):
    settings.TELEGRAM_BOT_TOKEN = ""
    html = act(admin_client, "send_test_message", make_chat()).content.decode()
    assert "No bot token: set TELEGRAM_BOT_TOKEN in .env" in html


def test_make_admin_chat_speaks_german(admin_client, settings):
    settings.LANGUAGE_CODE = "de"
    html = act(admin_client, "make_admin_chat", make_chat()).content.decode()
    assert "1 Chat ist ein Admin-Chat" in html
    assert "Zum Admin-Chat machen" in admin_client.get(CHATS).content.decode()
