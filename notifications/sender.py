"""The outbox sender: claim due rows, send them paced, record every outcome on the row.

Once-only delivery rests on the claim (see NotificationQuerySet.claim): a row is marked
taken, with a lease, before the network call; one claim takes the next message of every chat
ready to send (notifications/round_claims.py). Every outcome (sent, failed, given back) is
written through the process's OutcomeLog (notifications/outcome_log.py), which retries it on a
fresh connection when the database is lost and keeps it for the next round, sending nothing
meanwhile: a message goes out twice only if the process dies between Telegram's answer and
the write of its outcome, or if the database stays away past the claim's lease and another
process takes the row first (see outcome_log.py).

Attempts: the claim counts an attempt; a crashed claim therefore uses one up and the row
comes back when the lease ends (NOTIFY_CLAIM_LEASE_S), not on the backoff schedule.
A 429 gives its attempt back. An outage (timeouts, 5xx, connection errors confirmed by a
failing getMe) charges only the row that discovered it; further rows (those claimed ahead
given back uncharged) wait until getMe answers again, so an outage of any length kills no
notification.
"""

import logging
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from functools import partial

from django.conf import settings
from django.db.models import Count, F, Q, Window
from django.db.models.functions import RowNumber
from django.utils import timezone, translation

from notifications import destination_sender, telegram
from notifications.messages import DIGEST_MAX_ITEMS, render, render_digest
from notifications.models import Notification, TelegramChat
from notifications.outcome_log import LOST, RETRY_S, OutcomeLog
from notifications.pacing import ELSEWHERE, GO, Pacer, make_pacer
from notifications.reports import forget_drawn, render_report
from notifications.round_claims import RoundClaims
from notifications.telegram import DeliveryError

logger = logging.getLogger(__name__)


class _State:
    """Per-process sender state, kept across process_queue() calls."""

    pacer: Pacer | None = None
    pacer_config = None
    outage = False
    outcomes = OutcomeLog()


def reset_state(outcome_patience=RETRY_S):
    """Forget pacing, outage, unwritten outcomes and drawn reports (tests; a fresh process starts
    this way)."""
    forget_drawn()
    _State.pacer = None
    _State.outage = False
    _State.outcomes = OutcomeLog(outcome_patience)


def pacer() -> Pacer:
    names = ("TELEGRAM_MAX_PER_SECOND", "TELEGRAM_SHARED_PACE", "TELEGRAM_BOT_TOKEN")
    config = tuple(getattr(settings, name) for name in names)
    if _State.pacer is None or _State.pacer_config != config:
        _State.pacer = make_pacer(
            settings.TELEGRAM_MAX_PER_SECOND, shared=settings.TELEGRAM_SHARED_PACE
        )
        _State.pacer_config = config
    return _State.pacer


@dataclass(eq=False)
class Unit:
    """One message to send: a single row, or a digest of several rows of one chat."""

    chat_id: int
    pks: list = field(default_factory=list)
    backlog: int = 0
    rows: list = field(default_factory=list)  # the rows of `pks`, loaded with what sending reads
    claimed_at: float | None = (
        None  # time.monotonic() of this round's claim on `rows` (round_claims.py)
    )

    @property
    def is_digest(self):
        return self.backlog > 0


def process_queue(limit=None) -> int:
    """Sends up to `limit` (NOTIFY_BATCH) due messages to Telegram chats, then as many to Apprise
    destinations (notifications/destination_sender.py) in the round's remaining time; returns
    how many rows were delivered. Without a bot token, or in a Telegram outage, destinations
    are still served."""
    _State.outcomes.flush()  # what an earlier round could not record comes first
    limit = limit or settings.NOTIFY_BATCH
    deadline = time.monotonic() + settings.NOTIFY_MAX_SECONDS
    now = timezone.now()
    paused = telegram.sending_paused()
    if paused:
        due = Notification.objects.due().filter(chat__channel=TelegramChat.Channel.TELEGRAM)
        logger.warning(
            "notifications: sending paused (TELEGRAM_BOT_TOKEN is not set); %d due notifications "
            "wait",
            due.count(),
        )
    Notification.objects.hold_for_quiet_hours(now)
    Notification.objects.cancel_for_inactive_chats()
    Notification.objects.expire_exhausted(now)
    delivered = 0
    if not paused:
        plan = build_plan(now, limit)
        if not _State.outage or _service_back():
            delivered = _run(plan, limit)
    return delivered + destination_sender.send_due(limit, _State.outcomes, deadline)


def _service_back():
    if telegram.ping():
        logger.info("notifications: Telegram answers again; resuming")
        _State.outage = False
        return True
    logger.warning("notifications: Telegram still unreachable; the queue waits")
    return False


def build_plan(now, limit) -> "OrderedDict[int, deque[Unit]]":
    """Per Telegram chat, the units to send, oldest first; chats over budget get one digest."""
    sendable = Notification.objects.sendable(now).filter(
        chat__channel=TelegramChat.Channel.TELEGRAM
    )
    # A report is a photo of its own, never a digest line; it goes beside a chat's digest.
    backlogs = _backlogs(sendable.exclude(kind=Notification.Kind.REPORT))
    plan = OrderedDict((unit.chat_id, deque([unit])) for unit in _digests(now, backlogs))
    singles = sendable.exclude(Q(chat_id__in=backlogs) & ~Q(kind=Notification.Kind.REPORT))
    for pk, chat_id in _in_turn(singles).values_list("pk", "chat__chat_id")[:limit]:
        plan.setdefault(chat_id, deque()).append(Unit(chat_id, [pk]))
    return _load_rows(plan)


def _backlogs(sendable):
    """{chat pk: (Telegram chat id, due rows)} of the chats with more due rows than one message
    each."""
    per_chat = sendable.order_by().values("chat_id", "chat__chat_id").annotate(n=Count("pk"))
    over = per_chat.filter(n__gt=settings.NOTIFY_DIGEST_THRESHOLD)
    return {
        chat_pk: (chat_id, n)
        for chat_pk, chat_id, n in over.values_list("chat_id", "chat__chat_id", "n")
    }


def _in_turn(rows):
    """`rows` in turns: every chat's oldest row first, then every chat's second, …: a batch
    spreads over chats, so per-chat pacing never idles the sender while other chats wait."""
    turn = Window(
        RowNumber(),
        partition_by=[F("chat_id")],
        order_by=[F("next_attempt_at").asc(), F("pk").asc()],
    )
    return rows.annotate(turn=turn).order_by("turn", "next_attempt_at", "pk")


def _digests(now, backlogs):
    """One digest per backlogged chat, with its first rows, all read in one query."""
    digests = OrderedDict()
    rows = _in_turn(
        Notification.objects.sendable_in_chats(now)
        .filter(chat_id__in=backlogs)
        .exclude(kind=Notification.Kind.REPORT)
    )
    for pk, chat_pk in rows.filter(turn__lte=DIGEST_MAX_ITEMS).values_list("pk", "chat_id"):
        chat_id, backlog = backlogs[chat_pk]
        digests.setdefault(chat_pk, Unit(chat_id, [], backlog)).pks.append(pk)
    return digests.values()


def _load_rows(plan):
    """Loads every planned row in one query (not one per message); units whose rows are gone are
    dropped."""
    rows = Notification.objects.load_for_sending(
        [pk for units in plan.values() for unit in units for pk in unit.pks]
    )
    for chat_id, units in list(plan.items()):
        for unit in units:
            unit.rows = [rows[pk] for pk in unit.pks if pk in rows]
        plan[chat_id] = deque(unit for unit in units if unit.rows)
        if not plan[chat_id]:
            del plan[chat_id]
    return plan


def _run(plan, limit):
    p = pacer()
    claims = RoundClaims(plan, p, _State.outcomes)
    try:
        delivered, messages = _send_plan(plan, limit, p, claims)
    finally:
        try:
            claims.give_back()  # what was claimed ahead and not sent
        finally:
            p.flush()  # the last answer's arrival, which no further reservation carries
    if delivered:
        logger.info("notifications: delivered %d notifications in %d messages", delivered, messages)
    return delivered


def _send_plan(plan, limit, p, claims):
    delivered = messages = 0
    deadline = time.monotonic() + settings.NOTIFY_MAX_SECONDS
    while plan and messages < limit and time.monotonic() < deadline:
        chat_id = min(plan, key=p.delay)
        if time.monotonic() + p.delay(chat_id) > deadline:
            break
        turn = p.wait(chat_id, until=deadline)
        if turn == ELSEWHERE and not _still_due(plan[chat_id]):
            del plan[
                chat_id
            ]  # another process sent these meanwhile; due rows wait for the chat's slot
        if turn != GO:
            continue
        unit = plan[chat_id].popleft()
        if not plan[chat_id]:
            del plan[chat_id]
        outcome = _deliver(unit, claims.take(unit, room=limit - messages - 1))
        messages += outcome.attempted
        delivered += outcome.delivered
        if outcome.drop_chat:
            plan.pop(chat_id, None)
        if outcome.stop:
            break
    return delivered, messages


def render_unit(unit, rows):
    """The message for `unit` from its loaded `rows`, in the chat's language
    (TelegramChat.language):
    (Rendered, the rows it lists). A digest lists as many rows as fit one message."""
    with translation.override(rows[0].chat.language):
        if unit.is_digest:
            rendered, listed = render_digest(rows, unit.backlog)
            return rendered, rows[:listed]
        if rows[0].kind == Notification.Kind.REPORT:
            return render_report(rows[0]), rows[:1]
        return render(rows[0]), rows[:1]


def _still_due(units):
    """Whether any of a chat's planned rows is still due (not sent or claimed by another
    process)."""
    return (
        Notification.objects.filter(pk__in=[pk for unit in units for pk in unit.pks]).due().exists()
    )


@dataclass
class Outcome:
    attempted: int = 0
    delivered: int = 0
    drop_chat: bool = False
    stop: bool = False


def _deliver(unit, rows) -> Outcome:
    """Sends `unit`, whose claimed `rows` are given, and records the outcome on them."""
    if not rows:
        return Outcome()
    try:
        rendered, listed = render_unit(unit, rows)
        if len(listed) < len(rows):
            given_back = rows[len(listed) :]
            give_back = partial(Notification.objects.give_back, given_back, timezone.now())
            _record("the give-back", given_back, give_back)
        rows = listed
        message_id = _send(rows[0].chat, rendered)
    except DeliveryError as err:
        return _failed(rows, err)
    except LOST:
        # The database is gone past the outcome log's patience (a give-back, a chat migration):
        # nothing was sent, and no failure could be recorded either. The round ends; the rows
        # come back when their lease ends.
        raise
    except Exception as exc:  # a bug or odd data in one row must not abort the batch
        logger.exception(
            "notifications: sending %s to chat %s crashed",
            [n.pk for n in rows],
            rows[0].chat.chat_id,
        )
        error = f"unexpected error: {exc!r}"[:500]
        _record_each("the failure", rows, lambda n: n.mark_failed(error))
        return Outcome(attempted=1)
    what = f"the sent mark (Telegram message {message_id})"
    _record(what, rows, partial(Notification.objects.settle_sent, rows, message_id, timezone.now()))
    logger.debug("notifications: sent %s to chat %s", [n.pk for n in rows], rows[0].chat.chat_id)
    return Outcome(attempted=1, delivered=len(rows))


def _record(what, rows, write):
    """`write()`, what became of `rows`, through the outcome log (retried until written)."""
    _State.outcomes.record(_naming(what, rows), write)


def _record_each(what, rows, write_one):
    """`write_one(row)` of each row, as one write through the outcome log."""

    def write():
        for n in rows:
            write_one(n)

    _record(what, rows, write)


def _naming(what, rows):
    return f"{what} of notifications {[n.pk for n in rows]} to chat {rows[0].chat.chat_id}"


def _send(chat, rendered):
    """Sends, following one group → supergroup migration.

    The chat's row moves to the new id through the guarded TelegramChatQuerySet.migrate
    (as the bot's migration update does); the message goes to the new id even when the
    row cannot move (another row with subscriptions already holds that id).
    """
    chat_id = chat.chat_id
    for _ in range(2):
        try:
            return telegram.send_message(
                chat_id,
                rendered.html,
                photo_url=rendered.photo_url,
                reply_markup=rendered.reply_markup,
                plain_text=rendered.plain,
                photo_bytes=rendered.photo_bytes,
            )
        except DeliveryError as err:
            if err.migrate_to_chat_id is None:
                raise
            chat.migrate_to(err.migrate_to_chat_id)
            chat_id = err.migrate_to_chat_id
        finally:
            _paced(chat_id)
    raise DeliveryError("chat migrated again right after migrating")


def _paced(chat_id):
    """Counts a send when its answer is in: Telegram has received it by then, so the next slot
    is measured from no earlier than its arrival there. The shared pace's store being
    unreachable must not cost the outcome of a message Telegram accepted, which is recorded
    next."""
    try:
        pacer().record(chat_id)
    except Exception:
        logger.warning(
            "notifications: the send pace could not note a send to chat %s", chat_id, exc_info=True
        )


def _failed(rows, err) -> Outcome:
    chat = rows[0].chat
    if err.retry_after is not None:
        logger.warning(
            "notifications: Telegram flood control for chat %s: retry in %ss",
            chat.chat_id,
            err.retry_after,
        )
        _record_each("the deferral", rows, lambda n: n.defer(err.retry_after, err.reason))
        pacer().hold_chat(chat.chat_id, err.retry_after)
        return Outcome(attempted=1, drop_chat=True)
    if err.chat_gone:
        _record("the block", rows, partial(chat.block, err.reason))
        return Outcome(attempted=1, drop_chat=True)
    if err.permanent:
        _record_each("the death", rows, lambda n: n.mark_dead(err.reason))
        return Outcome(attempted=1)
    _record_each("the failure", rows, lambda n: n.mark_failed(err.reason))
    if telegram.ping():
        return Outcome(attempted=1)
    logger.warning(
        "notifications: Telegram unreachable (%s); holding the queue until getMe answers",
        err.reason,
    )
    _State.outage = True
    return Outcome(attempted=1, stop=True)
