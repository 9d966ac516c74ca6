"""Telegram chats and Apprise destinations, their subscriptions, and the notification outbox.

One module per concern; every public name is importable from here as before the split.
"""

from notifications.fan_out_sql import FAN_OUT_BATCH
from notifications.models.chats import (
    MUTED_FOREVER,
    WELCOME_TEXT,
    TelegramChat,
    TelegramChatQuerySet,
)
from notifications.models.destinations import Destination
from notifications.models.outbox import (
    BACKOFF,
    MAX_ATTEMPTS,
    NO_PRICE_KEY,
    Notification,
    NotificationQuerySet,
)
from notifications.models.pace import SendPace
from notifications.models.subscriptions import Subscription

__all__ = [
    "BACKOFF",
    "Destination",
    "FAN_OUT_BATCH",
    "MAX_ATTEMPTS",
    "MUTED_FOREVER",
    "NO_PRICE_KEY",
    "WELCOME_TEXT",
    "Notification",
    "NotificationQuerySet",
    "SendPace",
    "Subscription",
    "TelegramChat",
    "TelegramChatQuerySet",
]
