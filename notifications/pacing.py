"""Send pacing so that normal operation never meets Telegram's 429.

Telegram's limits: about 30 messages per second per bot, one per second per
private chat, 20 per minute per group (negative chat ids). We keep a sliding
window of our own send times (not a token bucket: a full bucket plus its refill
would allow twice the rate inside one second) and a next-free slot per chat.

Monotonic time: wall-clock jumps (NTP, time-machine in tests) must not stall or burst.
A Pacer paces one process. A SharedPacer (TELEGRAM_SHARED_PACE, the default) also
reserves every send in the SendPace table (notifications/models/pace.py), so all
processes of all clusters on one bot keep one pace together, whichever the broker.

Per bot the shared slots are spaced evenly; per chat a slot is taken only when the chat
is free. A chat's slot names its owner (the reserving pacer): a chat busy in another
process is left to that process for the round, so two senders working through the same
outbox split the chats instead of reserving slots for rows the other one has already
sent. Telegram's 429 holds the chat and the whole bot for retry_after seconds, for every
process.
"""

import time
import uuid
from collections import deque

from django.conf import settings

from notifications.models import SendPace

# A wait() with no deadline reserves no slot further ahead than this.
MAX_RESERVE_AHEAD_S = 60.0
# What wait() answers: send now; not yet (pick again); another process is sending to this chat.
GO, LATER, ELSEWHERE = "go", "later", "elsewhere"

# Arrival times at Telegram jitter by a few milliseconds; keep this much clear of each limit.
MARGIN_S = 0.05
PRIVATE_INTERVAL_S = 1.0
GROUP_INTERVAL_S = 60.0 / 20


class Pacer:
    def __init__(self, max_per_second, clock=time.monotonic):
        self.max_per_second = max_per_second
        self.clock = clock
        self.window = 1.0 + MARGIN_S
        self.recent = deque(maxlen=max(1, max_per_second))
        self.chat_free_at = {}

    @staticmethod
    def chat_interval(chat_id):
        return (GROUP_INTERVAL_S if chat_id < 0 else PRIVATE_INTERVAL_S) + MARGIN_S

    def delay(self, chat_id=None):
        """Seconds to wait before a message to chat_id may go out (0: now)."""
        now = self.clock()
        wait = 0.0
        if len(self.recent) == self.recent.maxlen:
            wait = self.recent[0] + self.window - now
        if chat_id is not None:
            wait = max(wait, self.chat_free_at.get(chat_id, 0.0) - now)
        return max(0.0, wait)

    def record(self, chat_id):
        now = self.clock()
        self.recent.append(now)
        self.chat_free_at[chat_id] = now + self.chat_interval(chat_id)

    def hold_chat(self, chat_id, seconds):
        """Telegram said retry_after for this chat: nothing goes there before then."""
        self.chat_free_at[chat_id] = max(
            self.chat_free_at.get(chat_id, 0.0), self.clock() + seconds
        )

    def wait(self, chat_id, until=None):
        """Sleeps until a message to chat_id may go out; GO when it may go now (see SharedPacer)."""
        pause = self.delay(chat_id)
        if pause > 0:
            self.flush()
            time.sleep(pause)
        return GO

    def flush(self):
        """Writes what this pacer still owes the shared pace (SharedPacer); nothing here."""


class SharedPacer(Pacer):
    """The process's own pacing, plus a slot reserved in the SendPace table before each send.

    The bot's slots are spaced (1 + MARGIN_S) / max_per_second apart for all processes
    together; a chat busy in another process answers how long it is busy, and the sender
    picks another chat meanwhile (wait() answers LATER, or ELSEWHERE when another
    process holds the chat). Sleeping happens after the reservation, outside any transaction.
    """

    def __init__(self, max_per_second, bot=None, clock=time.monotonic):
        super().__init__(max_per_second, clock=clock)
        self.bot = bot_key() if bot is None else bot
        self.bot_interval = self.window / max(1, max_per_second)
        self.bot_free_at = 0.0
        self.owner = uuid.uuid4().hex
        self.arrived = None  # (chat key, seconds): an answer the table has not heard of yet

    def delay(self, chat_id=None):
        return max(super().delay(chat_id), self.bot_free_at - self.clock())

    def wait(self, chat_id, until=None):
        super().wait(chat_id)
        ahead = MAX_RESERVE_AHEAD_S if until is None else max(0.0, until - self.clock())
        slot = SendPace.objects.reserve(
            self.bot,
            self._key(chat_id),
            self.bot_interval,
            self.chat_interval(chat_id),
            ahead,
            owner=self.owner,
            arrived=self.arrived,
        )
        self.arrived = None
        if slot.busy == "chat":
            self.chat_free_at[chat_id] = max(
                self.chat_free_at.get(chat_id, 0.0), self.clock() + slot.wait
            )
            return LATER if slot.mine else ELSEWHERE
        if slot.busy == "bot":
            self.bot_free_at = max(self.bot_free_at, self.clock() + slot.wait)
            return LATER
        if slot.wait > 0:
            time.sleep(slot.wait)
        return GO

    def record(self, chat_id):
        """The answer is in: the chat's next slot counts from now at the earliest, in every process.

        The table hears it with this pacer's next reservation (one transaction per message, not
        two), or from flush() before this pacer sleeps or its round ends. Until then no other
        process can take the chat: the slot reserved for this send keeps it busy a full
        interval, and the next reservation follows within milliseconds (the "sent" mark).
        """
        super().record(chat_id)
        self.flush()
        self.arrived = (self._key(chat_id), self.chat_interval(chat_id))

    def flush(self):
        if self.arrived is not None:
            SendPace.objects.push(self.bot, dict([self.arrived]), owner=self.owner)
            self.arrived = None

    def hold_chat(self, chat_id, seconds):
        """retry_after holds the chat and the whole bot, in every process."""
        self.flush()
        super().hold_chat(chat_id, seconds)
        self.bot_free_at = max(self.bot_free_at, self.clock() + seconds)
        SendPace.objects.push(
            self.bot, {self.bot: seconds, self._key(chat_id): seconds}, owner=self.owner
        )

    def _key(self, chat_id):
        return f"{self.bot}:{chat_id}"


def bot_key():
    """The bot's id: the public part of the token before the colon (the secret part never
    leaves settings)."""
    return (settings.TELEGRAM_BOT_TOKEN or "").partition(":")[0]


def make_pacer(max_per_second, shared):
    return SharedPacer(max_per_second) if shared else Pacer(max_per_second)
