"""Benchmark: 600 notifications to 50 chats through the fake Bot API at Telegram's limits.

The fake enforces 30 msg/s overall (sliding one-second window) and 1 msg/s per chat and
answers 429 beyond them. The sender runs with TELEGRAM_MAX_PER_SECOND=30. Goal: >= 27 msg/s,
zero 429s, all 600 delivered once.

    .venv/bin/python bench/notify.py          # SQLite in a temporary file
    DATABASE_URL=postgres://... .venv/bin/python bench/notify.py   # a throwaway sibling database

The last line is one JSON object.
"""

import json
import time

from common import seed_notifications, setup_django

CHATS, PER_CHAT, CEILING = 50, 12, 30
CHAT_ID_BASE = 7_700_000_000  # bench chats live in their own id range and are deleted afterwards


def configure(server):
    setup_django(
        TELEGRAM_BOT_TOKEN=server.token,
        TELEGRAM_API_BASE_URL=server.base_url,
        TELEGRAM_MAX_PER_SECOND=CEILING,
    )


def seed():
    cleanup()
    seed_notifications(CHAT_ID_BASE, CHATS, PER_CHAT)


def cleanup():
    from notifications.models import TelegramChat
    from tracker.models import Ad

    Ad.objects.filter(source="bench").delete()
    TelegramChat.objects.filter(
        chat_id__gte=CHAT_ID_BASE, chat_id__lt=CHAT_ID_BASE + CHATS
    ).delete()


def run():
    from notifications.models import Notification
    from notifications.sender import process_queue

    pending = Notification.objects.pending().filter(chat__chat_id__gte=CHAT_ID_BASE)
    start = time.monotonic()
    rounds = 0
    while pending.exists() and time.monotonic() - start < 300:
        process_queue()
        rounds += 1
    return time.monotonic() - start, rounds


def main():
    from tests.fakes.telegram import FakeTelegram

    server = FakeTelegram().start()
    server.rate_limit(overall=CEILING, per_chat=1)
    configure(server)
    try:
        seed()
        elapsed, rounds = run()
        from notifications.models import Notification

        sent_rows = Notification.objects.filter(
            chat__chat_id__gte=CHAT_ID_BASE, status=Notification.Status.SENT
        ).count()
        cleanup()
    finally:
        server.stop()
    delivered = len({(m["chat_id"], m["text"]) for m in server.messages})
    rate = len(server.messages) / elapsed
    first, last = server.messages[0]["at"], server.messages[-1]["at"]
    print(
        f"{len(server.messages)} messages to {CHATS} chats in {elapsed:.2f} s over {rounds} "
        "process_queue() calls"
    )
    print(
        f"achieved {rate:.2f} msg/s against the {CEILING}/s ceiling ({rate / CEILING:.0%}); "
        f"first→last message {len(server.messages) / (last - first):.2f} msg/s"
    )
    print(
        f"HTTP 429: {server.count_429}; rows marked sent: {sent_rows}; sent twice: "
        f"{server.sent_twice()}"
    )
    print(
        json.dumps(
            {
                "bench": "notify",
                "msgs_per_s": round(rate, 2),
                "http_429": server.count_429,
                "delivered": delivered,
                "sent_twice": server.sent_twice(),
            }
        )
    )


if __name__ == "__main__":
    main()
