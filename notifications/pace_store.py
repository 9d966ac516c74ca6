"""One send pace per bot, shared by every sender process of every cluster.

Each sender reserves a send slot before it sends: atomically, in the store of the
configured broker (the database for Q_BROKER=orm, Redis for Q_BROKER=redis), against
the store's own clock, so processes on several hosts pace against one clock. A
reservation is a short transaction (or one Lua script); the sender sleeps until its
slot afterwards, holding nothing.

Per bot the slots are spaced evenly, `bot_interval` apart; per chat a slot is taken only
when the chat is free (otherwise the answer says how long it is busy, and the sender
picks another chat meanwhile). A chat's slot names its owner (the reserving pacer):
a chat busy in another process is left to that process for the round, so two senders
working through the same outbox split the chats instead of reserving slots for rows
the other one has already sent. Telegram's 429 holds the chat and the whole bot for
retry_after seconds, for every process.
"""

import importlib
from dataclasses import dataclass

from django.conf import settings
from django.db import connection, transaction

from notifications.models import SendPace

# A stored slot further ahead than this is a clock that jumped back, not a reservation.
HORIZON_S = 3600.0
NOW_SQL = {
    "postgresql": "extract(epoch from clock_timestamp())::float8",
    "sqlite": "(julianday('now') - 2440587.5) * 86400.0",
}
GREATEST = {"postgresql": "GREATEST", "sqlite": "MAX"}


@dataclass(frozen=True)
class Slot:
    """`wait` seconds until the slot; `busy` None (reserved), "chat" or "bot" (nothing reserved);
    `mine`: a busy chat was reserved by the asking owner itself."""

    wait: float
    busy: str | None = None
    mine: bool = True


def decide(now, bot_free, chat_free, bot_interval, chat_interval, max_wait, mine=True):
    """The reservation rule: (Slot, new bot free_at, new chat free_at) or (Slot, None, None).

    Also written as RESERVE_LUA (Redis) and as the PostgreSQL function of migration 0008: change all
    three together."""
    bot_free = now if bot_free > now + HORIZON_S else bot_free
    chat_free = now if chat_free > now + HORIZON_S else chat_free
    if chat_free > now:
        return Slot(chat_free - now, "chat", mine), None, None
    slot = max(now, bot_free)
    if slot - now > max_wait:
        return Slot(slot - now, "bot"), None, None
    return Slot(slot - now), slot + bot_interval, slot + chat_interval


def bot_key():
    """The bot's id: the public part of the token before the colon (the secret part never leaves settings)."""
    return (settings.TELEGRAM_BOT_TOKEN or "").partition(":")[0]


class OrmPaceStore:
    """Slots in the SendPace table: the bot's row is the lock (a row lock on PostgreSQL, the
    database file's write lock on SQLite), taken by the transaction's first statement."""

    def __init__(self, bot):
        self.bot = bot
        self.table = connection.ops.quote_name(SendPace._meta.db_table)

    def _sql(self, vendor_map):
        return vendor_map[connection.vendor]

    def _chat(self, chat_id):
        return f"{self.bot}:{chat_id}"

    def reserve(self, chat_id, bot_interval, chat_interval, max_wait, owner="", arrived=None):
        """A slot for `chat_id` (see decide()). `arrived`: (chat id, seconds) of an answer not yet
        recorded (SharedPacer.record), pushed as record() would before anything is decided."""
        if connection.vendor == "postgresql":
            return self._reserve_in_function(
                chat_id, bot_interval, chat_interval, max_wait, owner, arrived
            )
        lock = f'UPDATE {self.table} SET free_at = free_at WHERE "key" = %s RETURNING free_at, {self._sql(NOW_SQL)}'
        with transaction.atomic(), connection.cursor() as cursor:
            if arrived:
                self.record(*arrived, owner=owner)
            cursor.execute(lock, [self.bot])
            row = cursor.fetchone()
            if row is None:  # the bot's first message: its row is created, then locked
                SendPace.objects.bulk_create([SendPace(key=self.bot)], ignore_conflicts=True)
                cursor.execute(lock, [self.bot])
                row = cursor.fetchone()
            bot_free, now = row
            cursor.execute(
                f'SELECT free_at, owner FROM {self.table} WHERE "key" = %s', [self._chat(chat_id)]
            )
            chat_free, chat_owner = cursor.fetchone() or (0.0, owner)
            slot, bot_at, chat_at = decide(
                now, bot_free, chat_free, bot_interval, chat_interval, max_wait, chat_owner == owner
            )
            if slot.busy is None:
                cursor.execute(
                    f'INSERT INTO {self.table} ("key", free_at, owner) VALUES (%s, %s, %s), (%s, %s, %s) '
                    'ON CONFLICT ("key") DO UPDATE SET free_at = excluded.free_at, owner = excluded.owner',
                    [self.bot, bot_at, owner, self._chat(chat_id), chat_at, owner],
                )
        return slot

    def _reserve_in_function(self, chat_id, bot_interval, chat_interval, max_wait, owner, arrived):
        """The same reservation in one call of lago_pace_reserve() (migrations 0008, 0010): one round trip, not five."""
        arrived_key, arrived_s = (
            (self._chat(arrived[0]), float(arrived[1])) if arrived else (None, None)
        )
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT wait, busy, mine FROM lago_pace_reserve(%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                [
                    self.bot,
                    self._chat(chat_id),
                    bot_interval,
                    chat_interval,
                    max_wait,
                    HORIZON_S,
                    owner,
                    arrived_key,
                    arrived_s,
                ],
            )
            wait, busy, mine = cursor.fetchone()
        return Slot(wait, busy, mine)

    def _push(self, keys, seconds, owner):
        """free_at = max(free_at, now + seconds) for each key, in one upsert."""
        values = ", ".join([f"(%s, {self._sql(NOW_SQL)} + %s, %s)"] * len(keys))
        sql = (
            f'INSERT INTO {self.table} ("key", free_at, owner) VALUES {values} ON CONFLICT ("key") DO UPDATE '
            f"SET free_at = {self._sql(GREATEST)}({self.table}.free_at, excluded.free_at), owner = excluded.owner"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, [p for key in keys for p in (key, float(seconds), owner)])

    def record(self, chat_id, chat_interval, owner=""):
        """The message has arrived: the chat's next slot is measured from now at the earliest."""
        self._push([self._chat(chat_id)], chat_interval, owner)

    def hold(self, chat_id, seconds, owner=""):
        """Telegram's retry_after: nothing goes to the chat, or anywhere from this bot, before then."""
        self._push([self.bot, self._chat(chat_id)], seconds, owner)


# Values are "<free_at> <owner>". KEYS: bot, chat[, arrived chat]. ARGV: bot interval, chat
# interval, max wait, horizon, owner[, arrived seconds]. The same rule as decide(), after the
# arrived chat's push (as PUSH_LUA).
LUA_HEAD = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1e6
local function read(key)
  local value = redis.call('GET', key)
  if not value then return 0, nil end
  local at, owner = string.match(value, '^(%S+) ?(.*)$')
  return tonumber(at), owner
end
local function write(key, at, owner)
  redis.call('SET', key, string.format('%.6f %s', at, owner), 'PX', math.ceil((at - now + 60) * 1000))
end
local function push(key, seconds, owner)
  local at = now + seconds
  local old = read(key)
  if old > at and old <= now + 3600 then at = old end
  write(key, at, owner)
end
"""
RESERVE_LUA = (
    LUA_HEAD
    + """
if KEYS[3] then push(KEYS[3], tonumber(ARGV[6]), ARGV[5]) end
local horizon = tonumber(ARGV[4])
local bot = read(KEYS[1])
local chat, owner = read(KEYS[2])
if bot > now + horizon then bot = now end
if chat > now + horizon then chat = now end
if chat > now then
  return {owner == ARGV[5] and 'chat' or 'chat-elsewhere', string.format('%.6f', chat - now)}
end
local slot = math.max(now, bot)
if slot - now > tonumber(ARGV[3]) then return {'bot', string.format('%.6f', slot - now)} end
write(KEYS[1], slot + tonumber(ARGV[1]), ARGV[5])
write(KEYS[2], slot + tonumber(ARGV[2]), ARGV[5])
return {'ok', string.format('%.6f', slot - now)}
"""
)
# KEYS: keys to push. ARGV: seconds, owner. free_at = max(free_at, now + seconds).
PUSH_LUA = (
    LUA_HEAD
    + """
for _, key in ipairs(KEYS) do push(key, tonumber(ARGV[1]), ARGV[2]) end
return 1
"""
)


class RedisPaceStore:
    """Slots as Redis keys (lago:pace:<bot>[:<chat>]) with an expiry, changed by Lua scripts only."""

    def __init__(self, bot, url):
        self.bot = bot
        # Loaded only with Q_BROKER=redis, as django-q2 does: importing redis costs every
        # process (manage.py status, the web) a quarter of a second on the ORM broker.
        redis = importlib.import_module("redis")
        self.client = redis.Redis.from_url(url)
        self._reserve = self.client.register_script(RESERVE_LUA)
        self._push = self.client.register_script(PUSH_LUA)

    def _keys(self, chat_id):
        return f"lago:pace:{self.bot}", f"lago:pace:{self.bot}:{chat_id}"

    def reserve(self, chat_id, bot_interval, chat_interval, max_wait, owner="", arrived=None):
        keys, args = (
            list(self._keys(chat_id)),
            [bot_interval, chat_interval, max_wait, HORIZON_S, owner],
        )
        if arrived:
            keys.append(self._keys(arrived[0])[1])
            args.append(float(arrived[1]))
        answer, wait = self._reserve(keys=keys, args=args)
        answer = answer.decode()
        if answer == "chat-elsewhere":
            return Slot(float(wait), "chat", mine=False)
        return Slot(float(wait), None if answer == "ok" else answer)

    def record(self, chat_id, chat_interval, owner=""):
        self._push(keys=[self._keys(chat_id)[1]], args=[chat_interval, owner])

    def hold(self, chat_id, seconds, owner=""):
        self._push(keys=list(self._keys(chat_id)), args=[seconds, owner])


def shared_store():
    """The pace store of the configured broker."""
    if settings.Q_BROKER == "redis":
        return RedisPaceStore(bot_key(), settings.REDIS_URL)
    return OrmPaceStore(bot_key())
