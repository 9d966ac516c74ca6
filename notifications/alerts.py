"""Admin alerts go through the outbox like every other message, so they are
retried, paced and visible in the admin — and a unique key per alert makes a
repeated call a no-op."""

from notifications.models import Notification, TelegramChat


def alert_admins(key, text):
    """Queues `text` for every active admin chat, once per `key`."""
    rows = [
        Notification(chat=chat, kind=Notification.Kind.ALERT, alert_key=key[:200], text=text)
        for chat in TelegramChat.objects.admins()
    ]
    Notification.objects.bulk_create(rows, ignore_conflicts=True)
