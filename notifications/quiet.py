"""Quiet hours: before the sender claims anything, due rows of chats inside their window wait.

`hold(now)` moves every due pending row of a chat that is inside its quiet hours to the end
of the window (TelegramChat.quiet_ends_at), without counting an attempt. When the window
ends they are all due together, and the sender's usual per-chat grouping sends them as one
digest when there are more than NOTIFY_DIGEST_THRESHOLD. Nothing is dropped.

Alerts (kind `alert`: admin/ops alerts and the welcome message after an approval) are not
held: an operator must hear of a failing scraper at night, and a welcome answers an action
the chat is waiting for.
"""

import logging
from collections import defaultdict

from notifications.models import Notification, TelegramChat

logger = logging.getLogger(__name__)


def hold(now) -> int:
    """Defers the due rows of chats in their quiet hours to the window's end; returns how many."""
    # Only due rows: a row claimed by a sender (next_attempt_at = its lease) is left alone,
    # and the UPDATE re-checks the condition, so a concurrent claim wins or loses cleanly.
    waiting = Notification.objects.due(now).exclude(kind=Notification.Kind.ALERT)
    by_end = defaultdict(list)
    # Chats with rows to hold (an uncorrelated IN: one pass over the due rows, on SQLite too).
    for chat_pk, end in (
        TelegramChat.objects.filter(pk__in=waiting.values("chat_id")).quiet_until(now).items()
    ):
        by_end[end].append(chat_pk)
    held = 0
    for end, chat_pks in by_end.items():
        count = waiting.filter(chat_id__in=chat_pks).update(next_attempt_at=end)
        if count:
            logger.info(
                "notifications: %d notifications of %d chats held for quiet hours until %s",
                count,
                len(chat_pks),
                end.isoformat(),
            )
        held += count
    return held
