"""A round's claims: a message's rows are claimed together with those of the other chats ready now.

A claim statement per message was, after the send itself, most of the sender's database work
(bench/history.py). A claim now also takes the next message of every other chat the pacer could
serve at once, up to one second of sending at the bot's pace (TELEGRAM_MAX_PER_SECOND); each of
those messages then costs its "sent" mark only.

What this changes for a row: claimed rows not sent when the round ends (another process holds
the chat, the deadline, an outage, a 429) are given back in one statement, due at once, their
attempt returned. A crash leaves them claimed until the lease ends (NOTIFY_CLAIM_LEASE_S), as it
leaves the message in flight, each charged one attempt. A claim too old to outlast one more Bot
API call (lease less TELEGRAM_TIMEOUT_S less RENEW_MARGIN_S) is renewed before its send, so no
message goes out under a lease another process may have taken over. A give-back is an outcome
(notifications/outcome_log.py): with the database lost at the round's end it is retried, then
kept for the next round; until it is written the rows stay claimed (unsent, and unsendable by
anyone until the lease ends).
"""

import time
from functools import partial

from django.conf import settings
from django.utils import timezone

from notifications.models import Notification
from notifications.outcome_log import OutcomeLog

RENEW_MARGIN_S = 5.0


class RoundClaims:
    """The units of one process_queue() round that this process has claimed and not yet sent."""

    def __init__(self, plan, pacer, outcomes=None):
        self.plan = plan  # chat id → deque of units, as _send_plan consumes it
        self.pacer = pacer
        self.outcomes = OutcomeLog() if outcomes is None else outcomes
        self.held = []

    def take(self, unit, room):
        """The claimed rows of `unit`, claimed first (with up to `room` other chats' next units
        that may go now) unless this round already holds a fresh claim on them."""
        if unit in self.held:
            if not self._stale(unit):
                self.held.remove(unit)
                return unit.rows
            self.give_back([unit])
        elif unit.claimed_at is not None:
            return unit.rows  # claimed ahead, but another process had every one of its rows
        self._claim([unit, *self._ready_others(unit, room)])
        if unit in self.held:
            self.held.remove(unit)
        return unit.rows

    def give_back(self, units=None):
        """Rows claimed and not sent: due again now, their attempt returned (one statement)."""
        units = list(self.held) if units is None else units
        self.held = [u for u in self.held if u not in units]
        rows = [n for u in units for n in u.rows]
        if rows:
            self.outcomes.record(
                f"the give-back of notifications {[n.pk for n in rows]}",
                partial(Notification.objects.give_back, rows, timezone.now()),
            )

    def _ready_others(self, unit, room):
        others = []
        room = min(room, max(1, int(settings.TELEGRAM_MAX_PER_SECOND)) - 1)
        for chat_id, units in self.plan.items():
            if len(others) >= room:
                break
            if (
                chat_id != unit.chat_id
                and units
                and units[0].claimed_at is None
                and self.pacer.delay(chat_id) == 0
            ):
                others.append(units[0])
        return others

    def _claim(self, units):
        rows = Notification.objects.claim(
            [n for u in units for n in u.rows], timezone.now(), settings.NOTIFY_CLAIM_LEASE_S
        )
        taken, now = {n.pk for n in rows}, time.monotonic()
        for u in units:
            u.rows = [n for n in u.rows if n.pk in taken]
            u.claimed_at = now
            if u.rows:
                self.held.append(u)

    @staticmethod
    def _stale(unit):
        age = time.monotonic() - unit.claimed_at
        return age > settings.NOTIFY_CLAIM_LEASE_S - settings.TELEGRAM_TIMEOUT_S - RENEW_MARGIN_S
