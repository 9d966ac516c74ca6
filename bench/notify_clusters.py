"""Benchmark: two sender processes on one bot, with the shared pace and without it (baseline).

600 notifications to 200 chats (3 each); two processes run `process_queue()` in a loop at
the same moment, as two clusters' ticks would, each with TELEGRAM_MAX_PER_SECOND=25.
The fake Bot API enforces Telegram's 30 msg/s overall and 1 msg/s per chat and answers
429 beyond them. Shared pace (TELEGRAM_SHARED_PACE, the default): one pace in the
broker's store; baseline: each process paces itself. Goal: 0 × 429 and nothing sent
twice with the shared pace.

    .venv/bin/python bench/notify_clusters.py                  # SQLite in a temporary file
    DATABASE_URL=postgres://... .venv/bin/python bench/notify_clusters.py
    Q_BROKER=redis REDIS_URL=redis://127.0.0.1:6379/0 DATABASE_URL=postgres://... \
        .venv/bin/python bench/notify_clusters.py

The last line is one JSON object.
"""

import json
import os
import time

from common import child_env, seed_notifications, setup_django

CHATS, PER_CHAT, CEILING, PER_PROCESS = 200, 3, 30, 25
SENDERS = 2
CHAT_ID_BASE = 7_800_000_000


def seed():
    from notifications.models import SendPace, TelegramChat
    from tracker.models import Ad

    Ad.objects.filter(source="bench").delete()
    TelegramChat.objects.filter(chat_id__gte=CHAT_ID_BASE).delete()
    SendPace.objects.all().delete()
    seed_notifications(CHAT_ID_BASE, CHATS, PER_CHAT)


def run(server, shared):
    from django.db import connections

    from tests.processes import run_shell_scripts, sender_loop

    server.reset()
    server.rate_limit(overall=CEILING, per_chat=1)
    seed()
    connections.close_all()
    env = child_env(TELEGRAM_SHARED_PACE=shared, PACE_START_AT=time.time() + 8)
    run_shell_scripts(sender_loop(120), env, SENDERS, timeout=300)
    at = [m["at"] for m in server.messages]
    seconds = max(at) - min(at)
    return {
        "msgs_per_s": round(len(at) / seconds, 2),
        "seconds": round(seconds, 1),
        "http_429": server.count_429,
        "delivered": len({(m["chat_id"], m["text"]) for m in server.messages}),
        "sent_twice": server.sent_twice(),
    }


def main():
    from tests.fakes.telegram import FakeTelegram

    server = FakeTelegram().start()
    db = setup_django(
        TELEGRAM_BOT_TOKEN=server.token,
        TELEGRAM_API_BASE_URL=server.base_url,
        TELEGRAM_MAX_PER_SECOND=PER_PROCESS,
    )
    broker = os.environ.get("Q_BROKER", "orm")
    try:
        shared = run(server, True)
        baseline = run(server, False)
    finally:
        server.stop()
    for name, figures in (("shared pace", shared), ("per-process pacing (baseline)", baseline)):
        print(
            f"{name}: {figures['delivered']} of {CHATS * PER_CHAT} delivered in "
            f"{figures['seconds']} s, "
            f"{figures['msgs_per_s']} msg/s, {figures['http_429']} × 429, {figures['sent_twice']} "
            "sent twice"
        )
    print(
        json.dumps(
            {
                "bench": "notify_clusters",
                "db": db,
                "broker": broker,
                "senders": SENDERS,
                "shared": shared,
                "baseline": baseline,
            }
        )
    )


if __name__ == "__main__":
    main()
