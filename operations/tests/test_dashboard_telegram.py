"""The dashboard's Telegram section: the bot state from getMe (fake Bot API over HTTP), where the
token goes, chats waiting for approval with approve buttons, the missing admin chat."""

import pytest
from django.contrib.auth.models import Permission, User
from django.urls import reverse

from notifications import telegram as bot_api
from notifications.models import Notification, TelegramChat
from tests.factories import make_chat

pytestmark = pytest.mark.django_db

INDEX = reverse("admin:index")


@pytest.fixture(autouse=True)
def fresh_bot_state():
    bot_api.forget_bot_state()
    yield
    bot_api.forget_bot_state()


def telegram_section(client):
    html = client.get(INDEX).content.decode()
    start = html.index('id="lago-telegram"')
    return html[start : html.index("</div>", start)]


def test_polling_as_the_bots_name_and_getme_is_cached(admin_client, telegram, english):
    first = telegram_section(admin_client)
    assert "polling as @lago_test_bot" in first
    assert "restart the bot process" in first and ".env" in first
    admin_client.get(INDEX)
    assert [r["method"] for r in telegram.requests] == ["getMe"]


def test_cache_expires_after_a_minute(telegram, settings):
    now = [1000.0]
    assert bot_api.bot_state(clock=lambda: now[0]).state == "ok"
    now[0] += 59
    bot_api.bot_state(clock=lambda: now[0])
    now[0] += 2
    bot_api.bot_state(clock=lambda: now[0])
    assert [r["method"] for r in telegram.requests] == ["getMe", "getMe"]


def test_rejected_token_is_named_without_the_token(admin_client, telegram, settings, english):
    settings.TELEGRAM_BOT_TOKEN = "123456789:AAWrongTokenWrongTokenWrongToken"
    section = telegram_section(admin_client)
    assert "token rejected by Telegram" in section
    assert "AAWrongToken" not in section


def test_unreachable_telegram_shows_the_reason(admin_client, telegram, english):
    telegram.fail(status=502, description="Bad Gateway", methods=["getMe"], times=None)
    section = telegram_section(admin_client)
    assert "cannot reach Telegram" in section and "Bad Gateway" in section
    assert telegram.token not in section


def test_no_token_says_where_it_goes(admin_client, settings, english):
    settings.TELEGRAM_BOT_TOKEN = ""
    section = telegram_section(admin_client)
    assert "no bot token" in section
    assert "TELEGRAM_BOT_TOKEN_FILE" in section


def test_warns_when_no_admin_chat_exists(admin_client, settings, english):
    settings.TELEGRAM_BOT_TOKEN = ""
    make_chat(is_admin=True, status=TelegramChat.Status.BLOCKED)
    assert "No admin chat" in telegram_section(admin_client)
    make_chat(is_admin=True)
    assert "No admin chat" not in telegram_section(admin_client)


def test_pending_chat_is_approved_from_the_dashboard(admin_client, settings, english):
    settings.TELEGRAM_BOT_TOKEN = ""
    chat = make_chat(status=TelegramChat.Status.PENDING, title="Hausflohmarkt")
    make_chat(title="already active")
    section = telegram_section(admin_client)
    assert "Hausflohmarkt" in section and "already active" not in section
    assert 'name="csrfmiddlewaretoken"' in section
    assert f'name="_selected_action" value="{chat.pk}"' in section
    response = admin_client.post(
        reverse("admin:notifications_telegramchat_changelist"),
        {"action": "approve", "_selected_action": [chat.pk]},
        follow=True,
    )
    assert "1 chat approved and welcomed" in response.content.decode()
    chat.refresh_from_db()
    assert chat.status == TelegramChat.Status.ACTIVE
    assert Notification.objects.filter(chat=chat, kind=Notification.Kind.WELCOME).exists()
    assert "Hausflohmarkt" not in telegram_section(admin_client)


def test_approve_button_needs_the_change_permission(client, settings, english):
    settings.TELEGRAM_BOT_TOKEN = ""
    make_chat(status=TelegramChat.Status.PENDING, title="Hausflohmarkt")
    viewer = User.objects.create_user("viewer", password="x", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_telegramchat"))
    client.force_login(viewer)
    section = telegram_section(client)
    assert "Hausflohmarkt" in section and "<form" not in section


def test_section_speaks_german(admin_client, telegram):
    make_chat(status=TelegramChat.Status.PENDING, title="Hausflohmarkt")
    section = telegram_section(admin_client)
    assert "empfängt als @lago_test_bot" in section
    assert "auf Freigabe warten" in section and "Freigeben" in section
    assert "Kein Admin-Chat" in section
