"""The send pace one bot keeps across every sender process of every cluster
(notifications/pacing.py).

Every reservation is a short transaction that first locks the bot's row (a row lock on
PostgreSQL, the write lock an IMMEDIATE transaction takes on SQLite), so reservations of
one bot are taken one after another whatever the broker: the database is always there.
Times are read from the database's clock, so senders on several hosts pace against one clock.
"""

from dataclasses import dataclass

from django.db import models, transaction
from django.db.models.functions import Now

# A stored slot further ahead than this is a clock that jumped back, not a reservation.
HORIZON_S = 3600.0


@dataclass(frozen=True)
class Slot:
    """`wait` seconds until the slot; `busy` None (reserved), "chat" or "bot" (nothing reserved);
    `mine`: a busy chat was reserved by the asking owner itself."""

    wait: float
    busy: str | None = None
    mine: bool = True


class SendPaceQuerySet(models.QuerySet):
    def reserve(self, bot, chat, bot_interval, chat_interval, max_wait, owner="", arrived=None):
        """A send slot on `bot` for its chat key `chat`, at most `max_wait` seconds ahead.

        The bot's slots are `bot_interval` apart. A chat is taken only when it is free: a busy
        chat, or a bot slot beyond `max_wait`, reserves nothing and says how long to wait.
        `arrived` (chat key, seconds): an answer not yet recorded, pushed first as push() would.
        """
        with transaction.atomic():
            now, slots = self._lock(bot, [chat, arrived[0]] if arrived else [chat])
            pushed = {}
            if arrived:
                pushed = self._pushed(now, slots, {arrived[0]: arrived[1]}, owner)
                slots.update(pushed)
            bot_free = _sane(slots[bot][0], now)
            chat_free, chat_owner = slots.get(chat, (0.0, owner))
            chat_free = _sane(chat_free, now)
            at = max(now, bot_free)
            if chat_free > now:
                slot = Slot(chat_free - now, "chat", chat_owner == owner)
            elif at - now > max_wait:
                slot = Slot(at - now, "bot")
            else:
                slot = Slot(at - now)
                pushed.update({bot: (at + bot_interval, owner), chat: (at + chat_interval, owner)})
            self._write(pushed)
        return slot

    def push(self, bot, seconds, owner=""):
        """free_at = max(free_at, now + seconds) for each key of `seconds` (key → seconds)."""
        with transaction.atomic():
            now, slots = self._lock(bot, list(seconds))
            self._write(self._pushed(now, slots, seconds, owner))

    def _lock(self, bot, keys):
        """Locks the bot's row (created on its first message); returns the database's time after
        the lock and {key: (free_at, owner)} of the bot and `keys`."""
        if not list(self.select_for_update().filter(key=bot).values_list("key")):
            self.bulk_create([SendPace(key=bot)], ignore_conflicts=True)
            list(self.select_for_update().filter(key=bot).values_list("key"))
        rows = self.filter(key__in=[bot, *keys]).annotate(now=Now())
        rows = list(rows.values_list("key", "free_at", "owner", "now"))
        slots = {key: (free_at, owner) for key, free_at, owner, _ in rows}
        return rows[0][3].timestamp(), slots

    @staticmethod
    def _pushed(now, slots, seconds, owner):
        return {
            key: (max(_sane(slots.get(key, (0.0, ""))[0], now), now + s), owner)
            for key, s in seconds.items()
        }

    def _write(self, slots):
        if slots:
            self.bulk_create(
                [SendPace(key=k, free_at=at, owner=owner) for k, (at, owner) in slots.items()],
                update_conflicts=True,
                unique_fields=["key"],
                update_fields=["free_at", "owner"],
            )


def _sane(free_at, now):
    return now if free_at > now + HORIZON_S else free_at


class SendPace(models.Model):
    """The next free send slot of one bot ("<bot id>") or of one chat of it ("<bot id>:<chat id>").

    Times are seconds since the epoch on the database's clock. Rows are reserved in short
    transactions and never held while a sender sleeps.
    """

    key = models.CharField(max_length=64, primary_key=True)
    free_at = models.FloatField(default=0.0)
    # The pacer that reserved the slot: a chat busy for another process is left to it.
    owner = models.CharField(max_length=32, blank=True, default="")

    objects = SendPaceQuerySet.as_manager()

    class Meta:
        verbose_name = "send pace"

    def __str__(self):
        return f"{self.key} free at {self.free_at:.3f}"
