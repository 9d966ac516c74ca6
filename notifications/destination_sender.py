"""The sender's Apprise step: due outbox rows of destinations, one message per destination.

The rows are the outbox's like any chat's: claimed (one attempt, a lease) before the call,
their outcome written through the sender's OutcomeLog after it, retried on the BACKOFF
schedule and dead after MAX_ATTEMPTS. No database transaction is open during the Apprise call,
which ends within APPRISE_TIMEOUT_S (apprise_channel.send), so a slow destination holds up the
others by at most that long.

Pace: at most one message per APPRISE_MIN_GAP_S to a destination, for all processes together
(a slot in the SendPace table, as a Telegram chat's). Whatever is due for a destination when
its slot comes goes out as one message: a digest when more than one row waits.

A row that dies (its sixth failure, or a URL Apprise refuses) pauses its destination with an
admin alert, as Telegram's "blocked" stops a chat: its queued rows are cancelled, visible and
retryable in the outbox.
"""

import logging
import time
import uuid
from functools import partial

from django.conf import settings
from django.db.models import Count
from django.utils import timezone, translation

from notifications import apprise_channel, destination_messages
from notifications.messages import DIGEST_MAX_ITEMS
from notifications.models import Destination, Notification, SendPace, TelegramChat
from notifications.outcome_log import LOST

logger = logging.getLogger(__name__)

PACE_KEY = "apprise"
# One owner per process: a destination's slot reserved by this process is its own to use.
_OWNER = uuid.uuid4().hex


def send_due(limit, outcomes, deadline):
    """Sends up to `limit` messages to destinations before `deadline` (time.monotonic());
    returns how many rows were delivered."""
    sendable = Notification.objects.sendable(timezone.now()).filter(
        chat__channel=TelegramChat.Channel.APPRISE
    )
    backlogs = dict(
        sendable.order_by().values("chat_id").annotate(n=Count("pk")).values_list("chat_id", "n")
    )
    delivered = messages = 0
    for chat_pk, backlog in sorted(backlogs.items()):
        if messages >= limit or time.monotonic() >= deadline:
            break
        if not _take_slot(chat_pk):
            continue
        pks = _next_rows(sendable.filter(chat_id=chat_pk))
        loaded = Notification.objects.load_for_sending(pks)
        rows = Notification.objects.claim(
            [loaded[pk] for pk in pks if pk in loaded],
            timezone.now(),
            settings.NOTIFY_CLAIM_LEASE_S,
        )
        destination = Destination.objects.filter(pk=chat_pk).first()
        if rows and destination is not None:  # a deleted destination took its rows with it
            messages += 1
            delivered += _deliver(destination, rows, backlog, outcomes)
            _paced(chat_pk)
    if delivered:
        logger.info("notifications: delivered %d notifications to destinations", delivered)
    return delivered


def _next_rows(due):
    """The pks of the next message's rows: a weekly report alone (its chart is the message's
    attachment), else up to DIGEST_MAX_ITEMS others, oldest first."""
    due = due.order_by("next_attempt_at", "pk")
    first = due.values_list("pk", "kind").first()
    if first is None:
        return []
    if first[1] == Notification.Kind.REPORT:
        return [first[0]]
    return list(
        due.exclude(kind=Notification.Kind.REPORT).values_list("pk", flat=True)[:DIGEST_MAX_ITEMS]
    )


def _deliver(destination, rows, backlog, outcomes):
    """Sends `rows` (claimed) as one message; records the outcome; returns rows delivered."""
    name = f"notifications {[n.pk for n in rows]} to {destination.log_name}"
    try:
        with translation.override(destination.language or None):
            if len(rows) > 1:
                message, listed = destination_messages.render_digest(rows, backlog)
            else:
                message, listed = destination_messages.render(rows[0]), 1
        if listed < len(rows):
            rest, rows = rows[listed:], rows[:listed]
            give_back = partial(Notification.objects.give_back, rest, timezone.now())
            outcomes.record(f"the give-back of {name}", give_back)
        body_format = apprise_channel.preferred_format(destination.apprise_url)
        apprise_channel.send(
            destination.apprise_url,
            message.title,
            message.body(body_format),
            body_format,
            attachment=message.attachment,
        )
    except apprise_channel.DeliveryError as err:
        return _failed(destination, rows, err, name, outcomes)
    except ValueError as exc:  # the stored URL no longer parses (an Apprise upgrade)
        err = apprise_channel.DeliveryError(str(exc), permanent=True)
        return _failed(destination, rows, err, name, outcomes)
    except LOST:
        raise  # the database is gone: nothing was sent; the rows come back when their lease ends
    except Exception as exc:  # a bug or odd data in one row must not abort the round
        logger.exception("notifications: sending %s crashed", name)
        err = apprise_channel.DeliveryError(f"unexpected error: {exc!r}"[:500])
        return _failed(destination, rows, err, name, outcomes)
    now = timezone.now()
    outcomes.record(f"the sent mark of {name}", partial(_settle, destination, rows, now))
    return len(rows)


def _settle(destination, rows, now):
    Notification.objects.settle_sent(rows, None, now)
    destination.note_success(now)


def _failed(destination, rows, err, name, outcomes):
    logger.warning("notifications: sending %s failed: %s", name, err)

    def write():
        destination.note_failure(err.reason)
        for n in rows:
            if err.permanent:
                n.mark_dead(err.reason)
            else:
                n.mark_failed(err.reason)

    outcomes.record(f"the failure of {name}", write)
    dead = [n for n in rows if n.status == Notification.Status.DEAD]
    if dead:
        reason = err.reason if err.permanent else f"failed {dead[0].attempts} times: {err.reason}"
        # One alert per dead row, however often the write is retried (the outcome log's rule).
        pause = partial(destination.pause, reason, alert_key=f"destination-dead:{dead[0].pk}")
        outcomes.record(f"the pause of {destination.log_name}", pause)
    return 0


def _take_slot(chat_pk):
    """Whether this destination may get a message now (APPRISE_MIN_GAP_S since its last one),
    reserving the slot when it may."""
    gap = settings.APPRISE_MIN_GAP_S
    if gap <= 0:
        return True
    slot = SendPace.objects.reserve(PACE_KEY, f"{PACE_KEY}:{chat_pk}", 0.0, gap, 0.0, owner=_OWNER)
    return slot.busy is None


def _paced(chat_pk):
    """The gap counts from the answer, not from the reservation."""
    gap = settings.APPRISE_MIN_GAP_S
    if gap <= 0:
        return
    try:
        SendPace.objects.push(PACE_KEY, {f"{PACE_KEY}:{chat_pk}": gap}, owner=_OWNER)
    except Exception:
        logger.warning("notifications: the pace could not note a send", exc_info=True)
