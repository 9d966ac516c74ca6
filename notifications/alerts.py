"""Admin alerts: messages to every active admin chat, through the same outbox."""

from notifications.models import Notification, TelegramChat


def enqueue_admin_alert(key: str, text: str) -> int:
    """Queues `text` for each active admin chat, once per `key` per chat; returns rows created.

    Call it inside the transaction that detects the condition; the sender delivers it.
    A key already used for a chat is ignored (the unique constraint decides, not a read).
    """
    chats = list(TelegramChat.objects.admins())
    before = Notification.objects.filter(kind=Notification.Kind.ALERT, alert_key=key).count()
    Notification.objects.bulk_create(
        [
            Notification(chat=chat, kind=Notification.Kind.ALERT, alert_key=key[:200], text=text)
            for chat in chats
        ],
        ignore_conflicts=True,
    )
    return Notification.objects.filter(kind=Notification.Kind.ALERT, alert_key=key).count() - before
