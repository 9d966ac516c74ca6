"""The shared pace's reservation as one PostgreSQL function: one round trip per message sent.

Through the ORM a reservation was a transaction of four statements (lock the bot's row,
read the chat's, write both); in this function each statement still takes a fresh snapshot
after the lock (READ COMMITTED, a VOLATILE function), so it sees every reservation made
while it waited. The rule is pace_store.decide()'s (and RESERVE_LUA's); SQLite keeps the
Python path (notifications/pace_store.py).
"""

from django.db import migrations

RESERVE = """
CREATE OR REPLACE FUNCTION lago_pace_reserve(
    bot_key text, chat_key text, bot_interval float8, chat_interval float8, max_wait float8, horizon float8, who text,
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


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(RESERVE)


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP FUNCTION IF EXISTS lago_pace_reserve(text, text, float8, float8, float8, float8, text)")


class Migration(migrations.Migration):
    dependencies = [("notifications", "0007_send_pace")]

    operations = [migrations.RunPython(create, drop, elidable=False)]
