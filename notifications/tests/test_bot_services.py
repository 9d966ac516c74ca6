"""The bot's services and model methods, without Telegram."""

import pytest

from notifications.bot import access
from notifications.bot.replies import ChatRef
from notifications.models import TelegramChat
from tests.factories import make_chat, make_keyword, make_subscription

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


@pytest.mark.parametrize(
    "status,command,allowed",
    [
        (TelegramChat.Status.ACTIVE, "status", True),
        (TelegramChat.Status.ACTIVE, "stats", False),
        (TelegramChat.Status.ACTIVE, "approve", False),
        (TelegramChat.Status.PENDING, "status", False),
        (TelegramChat.Status.BLOCKED, None, False),
        (TelegramChat.Status.STOPPED, "help", False),
    ],
)
def test_access(status, command, allowed):
    make_chat(chat_id=42, status=status)
    assert (access.access(ChatRef(42), command) is None) is allowed


def test_access_for_unknown_chat_and_admin():
    assert access.access(ChatRef(43), "help").text == access.UNKNOWN_TEXT
    make_chat(chat_id=44, is_admin=True)
    assert access.access(ChatRef(44), "stats") is None


def test_register_admin_from_settings(settings):
    settings.TELEGRAM_ADMIN_CHAT_IDS = [45]
    chat, outcome = TelegramChat.objects.register(45, "Ops")
    assert (
        outcome == "welcome"
        and chat.is_admin
        and chat.status == TelegramChat.Status.ACTIVE
        and chat.title == "Ops"
    )


def test_pending_registration_tells_every_active_admin_but_not_others():
    make_chat(chat_id=1, is_admin=True)
    make_chat(chat_id=2, is_admin=True, status=TelegramChat.Status.BLOCKED)
    make_chat(chat_id=3)
    reply = access.start(ChatRef(46, "<Eve>"))
    assert [chat_id for chat_id, _ in reply.others] == [1]
    assert "&lt;Eve&gt;" in reply.others[0][1].text


def test_migrate_over_an_empty_placeholder_keeps_the_subscriptions():
    old = make_chat(chat_id=-5)
    sub = make_subscription(old, make_keyword())
    make_chat(chat_id=-1005, status=TelegramChat.Status.PENDING)
    TelegramChat.objects.migrate(-5, -1005)
    assert TelegramChat.objects.get(chat_id=-1005).pk == old.pk
    assert sub.chat_id == old.pk and TelegramChat.objects.count() == 1
    assert (
        TelegramChat.objects.migrate(-5, -1005) is None
    )  # the second half of Telegram's pair: nothing to do
