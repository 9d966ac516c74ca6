"""A group that became a supergroup, found by the sender, when a row for the new id already exists.

Telegram answers sendMessage to the old group with "group chat was upgraded to a supergroup
chat" and parameters.migrate_to_chat_id (the fake's `migrate()`). The sender must move the
chat through the guarded TelegramChatQuerySet.migrate (as the bot's migration update does)
and deliver to the new id; moving the row by hand onto an id another row holds raised
IntegrityError out of process_queue().
"""

import pytest

from notifications.models import Notification, Subscription, TelegramChat
from notifications.sender import process_queue
from tests.factories import make_chat, make_notification, make_subscription

pytestmark = pytest.mark.django_db

OLD, NEW = -100, -1001234


def sends(telegram):
    return [r["chat_id"] for r in telegram.requests if r["method"] in {"sendMessage", "sendPhoto"}]


def test_migration_onto_a_placeholder_row_moves_the_chat_and_delivers(telegram):
    group = make_chat(chat_id=OLD, title="Flat hunt")
    sub = make_subscription(group)
    # A /start from the supergroup that raced the migration: a row without subscriptions.
    make_chat(chat_id=NEW, status=TelegramChat.Status.PENDING)
    n = make_notification(chat=group, keyword=sub.keyword)
    telegram.migrate(OLD, NEW)

    assert process_queue() == 1

    assert [m["chat_id"] for m in telegram.messages] == [NEW]
    n.refresh_from_db()
    assert n.status == Notification.Status.SENT
    assert n.message_id == telegram.messages[0]["message_id"]
    # The old row (with its subscription) continues under the new id; the placeholder gave way.
    assert list(TelegramChat.objects.values_list("pk", "chat_id")) == [(group.pk, NEW)]
    assert Subscription.objects.get(pk=sub.pk).chat_id == group.pk

    # The next message goes straight to the new id.
    make_notification(chat=group, keyword=sub.keyword)
    before = len(telegram.requests)
    assert process_queue() == 1
    assert sends(telegram)[-1:] == [NEW] and len(telegram.requests) == before + 1


def test_migration_onto_a_chat_with_subscriptions_keeps_both_and_still_delivers(telegram):
    group = make_chat(chat_id=OLD)
    supergroup = make_chat(chat_id=NEW)
    make_subscription(supergroup)
    n = make_notification(chat=group)
    telegram.migrate(OLD, NEW)

    assert process_queue() == 1

    assert [m["chat_id"] for m in telegram.messages] == [NEW]
    n.refresh_from_db()
    assert n.status == Notification.Status.SENT
    assert sorted(TelegramChat.objects.values_list("pk", "chat_id")) == [
        (group.pk, OLD),
        (supergroup.pk, NEW),
    ]
