"""django-q2 tasks of the notifications app.

`send_due` is the sender woken between ticks: a scrape that queued notifications enqueues it
(`wake_sender`), so its messages go out seconds after the scrape instead of at the next tick.
It may run beside the tick's own send step and beside other send_due tasks, on any worker of
any cluster: the outbox claims make each row go out once, and the shared pace keeps every
sender together inside Telegram's limits (notifications/sender.py, notifications/pacing.py).
"""

import logging

from django.conf import settings
from django.utils import timezone
from django_q.tasks import async_task

from notifications import telegram
from notifications.models import Destination, Notification
from notifications.sender import process_queue

logger = logging.getLogger(__name__)

SEND_TASK = "notifications.tasks.send_due"
GROUP = "send"


def send_due():
    """Sends one batch (NOTIFY_BATCH) of due notifications; returns how many rows were delivered.

    While a batch delivered something and more rows are ready, the next batch is a new task at
    the end of the queue: a long outbox drains at the pace Telegram allows, not one batch per
    tick, and the scrapes and ticks queued meanwhile are not held up behind it. A batch that
    delivered nothing (paused, outage, every chat paced elsewhere) ends the chain; the tick
    picks up whatever remains.
    """
    delivered = process_queue(limit=settings.NOTIFY_BATCH)
    if delivered and Notification.objects.sendable(timezone.now()).exists():
        wake_sender()
    return delivered


def wake_sender():
    """Enqueues a send_due task; returns whether it was written. A failure only delays the
    messages to the next tick, so it is logged, not raised. Without a bot token only Apprise
    destinations can be served: without an active one the tick alone says so, once a minute,
    not every scrape."""
    if telegram.sending_paused() and not Destination.objects.active().exists():
        return False
    try:
        async_task(SEND_TASK, task_name="send-due", group=GROUP)
    except Exception:
        logger.exception("notifications: could not enqueue a send task; the next tick sends")
        return False
    return True
