"""lago_pace_reserve() with two more arguments also records the previous send's arrival: one
round trip per message for the pace, not two.

SharedPacer.record() no longer writes the store at once: the answer's push (free_at = max(free_at,
now + seconds), as OrmPaceStore.record) rides on the process's next reservation, which comes right
after the "sent" mark, or is written alone before the process sleeps or ends its round. Until then
the chat's reserved slot keeps it busy.

This overload pushes, then calls 0008's function, which keeps the reservation rule. The bot's row
is locked first (once it exists), as every reservation locks it first: a push taken before that lock could wait on
a chat row that a reservation holding the bot's row is about to write, and deadlock with it. The
inner function's statements take fresh snapshots, so they see the push.
"""

from django.db import migrations

SIGNATURE = "lago_pace_reserve(text, text, float8, float8, float8, float8, text, text, float8)"

RESERVE_AFTER_ARRIVAL = """
CREATE FUNCTION lago_pace_reserve(
    bot_key text, chat_key text, bot_interval float8, chat_interval float8, max_wait float8, horizon float8, who text,
    arrived_key text, arrived_s float8,
    OUT wait float8, OUT busy text, OUT mine boolean)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    IF arrived_key IS NOT NULL THEN
        PERFORM 1 FROM notifications_sendpace WHERE key = bot_key FOR UPDATE;
        INSERT INTO notifications_sendpace AS pace (key, free_at, owner)
            VALUES (arrived_key, extract(epoch FROM clock_timestamp()) + arrived_s, who)
            ON CONFLICT (key) DO UPDATE SET free_at = greatest(pace.free_at, excluded.free_at), owner = excluded.owner;
    END IF;
    SELECT r.wait, r.busy, r.mine INTO wait, busy, mine
        FROM lago_pace_reserve(bot_key, chat_key, bot_interval, chat_interval, max_wait, horizon, who) AS r;
END
$$;
"""


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(RESERVE_AFTER_ARRIVAL)


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP FUNCTION IF EXISTS {SIGNATURE}")


class Migration(migrations.Migration):
    dependencies = [("notifications", "0009_subscription_muted_idx")]

    operations = [migrations.RunPython(create, drop, elidable=False)]
