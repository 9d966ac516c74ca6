"""lago_pace_reserve() also records the previous send's arrival: one round trip per message for the pace, not two.

SharedPacer.record() no longer writes the store at once: the answer's push (free_at = max(free_at,
now + seconds), as OrmPaceStore.record) rides on the process's next reservation, which comes right
after the "sent" mark, or is written alone before the process sleeps or ends its round. Until then
the chat's reserved slot keeps it busy. The reservation is otherwise 0008's: pace_store.decide()'s
rule, also written as RESERVE_LUA; change all three together.
"""

from importlib import import_module

from django.db import migrations

OLD_SIGNATURE = "lago_pace_reserve(text, text, float8, float8, float8, float8, text)"
NEW_SIGNATURE = "lago_pace_reserve(text, text, float8, float8, float8, float8, text, text, float8)"

RESERVE = """
CREATE FUNCTION lago_pace_reserve(
    bot_key text, chat_key text, bot_interval float8, chat_interval float8, max_wait float8, horizon float8, who text,
    arrived_key text, arrived_s float8,
    OUT wait float8, OUT busy text, OUT mine boolean)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    now_s float8;
    bot_free float8;
    chat_free float8;
    chat_owner text;
    slot float8;
BEGIN
    SELECT free_at INTO bot_free FROM notifications_sendpace WHERE key = bot_key FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO notifications_sendpace (key, free_at, owner) VALUES (bot_key, 0, '') ON CONFLICT (key) DO NOTHING;
        SELECT free_at INTO bot_free FROM notifications_sendpace WHERE key = bot_key FOR UPDATE;
    END IF;
    now_s := extract(epoch FROM clock_timestamp());
    IF arrived_key IS NOT NULL THEN
        INSERT INTO notifications_sendpace AS pace (key, free_at, owner) VALUES (arrived_key, now_s + arrived_s, who)
            ON CONFLICT (key) DO UPDATE SET free_at = greatest(pace.free_at, excluded.free_at), owner = excluded.owner;
    END IF;
    SELECT free_at, owner INTO chat_free, chat_owner FROM notifications_sendpace WHERE key = chat_key;
    IF NOT FOUND THEN
        chat_free := 0;
        chat_owner := who;
    END IF;
    IF bot_free > now_s + horizon THEN bot_free := now_s; END IF;
    IF chat_free > now_s + horizon THEN chat_free := now_s; END IF;
    IF chat_free > now_s THEN
        wait := chat_free - now_s;
        busy := 'chat';
        mine := chat_owner = who;
        RETURN;
    END IF;
    slot := greatest(now_s, bot_free);
    mine := true;
    wait := slot - now_s;
    IF wait > max_wait THEN
        busy := 'bot';
        RETURN;
    END IF;
    INSERT INTO notifications_sendpace (key, free_at, owner)
        VALUES (bot_key, slot + bot_interval, who), (chat_key, slot + chat_interval, who)
        ON CONFLICT (key) DO UPDATE SET free_at = excluded.free_at, owner = excluded.owner;
END
$$;
"""


def replace(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP FUNCTION IF EXISTS {OLD_SIGNATURE}")
        schema_editor.execute(RESERVE)


def restore(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP FUNCTION IF EXISTS {NEW_SIGNATURE}")
        schema_editor.execute(import_module("notifications.migrations.0008_pace_reserve_function").RESERVE)


class Migration(migrations.Migration):
    dependencies = [("notifications", "0009_subscription_muted_idx")]

    operations = [migrations.RunPython(replace, restore, elidable=False)]
