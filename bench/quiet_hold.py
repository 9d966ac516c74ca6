"""Benchmark: the quiet-hours hold step (Notification.objects.hold_for_quiet_hours) that runs
before every sending round.

2,000 active chats, 1,000 of them inside their quiet hours (in 4 time zones), 500 with quiet hours
elsewhere in the day, 500 without; 10 due rows each (20,000). Measures hold(now) when it moves the
10,000 rows of the quiet chats (first call), and the steady state (nothing left to move), which is
what every process_queue() call pays. Goal: steady state well under a second with 1,000 quiet chats.

    .venv/bin/python bench/quiet_hold.py          # SQLite in a temporary file
    DATABASE_URL=postgres://... .venv/bin/python bench/quiet_hold.py

The last line is one JSON object.
"""

import json
import time
from datetime import timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

from common import setup_django

CHATS, PER_CHAT = 2000, 10
ZONES = ["Europe/Vienna", "Europe/London", "America/New_York", "Asia/Tokyo"]


def seed(now):
    from notifications.models import Notification, TelegramChat
    from tracker.models import Ad

    chats = []
    for i in range(CHATS):
        zone = ZONES[i % len(ZONES)]
        local = now.astimezone(ZoneInfo(zone))
        if i < CHATS // 2:  # quiet now: from two hours ago to two hours ahead
            start, end = (local - timedelta(hours=2)).time(), (local + timedelta(hours=2)).time()
        elif i < CHATS * 3 // 4:  # quiet at another time of day
            start, end = (local + timedelta(hours=3)).time(), (local + timedelta(hours=5)).time()
        else:
            start = end = None
        clip = (lambda t: t.replace(second=0, microsecond=0)) if start else (lambda t: t)
        chats.append(
            TelegramChat(
                chat_id=9_100_000_000 + i,
                status="active",
                quiet_start=clip(start),
                quiet_end=clip(end),
                time_zone=zone,
            )
        )
    chats = TelegramChat.objects.bulk_create(chats)
    ads = Ad.objects.bulk_create(
        [
            Ad(
                source="bench",
                external_id=str(i),
                title=f"Bench ad {i}",
                price=Decimal(100),
                url=f"https://example.invalid/{i}",
            )
            for i in range(PER_CHAT)
        ]
    )
    Notification.objects.bulk_create(
        [
            Notification(chat=c, ad=a, kind="new", price=a.price, next_attempt_at=now)
            for c in chats
            for a in ads
        ],
        batch_size=2000,
    )


def main():
    db = setup_django()
    from django.utils import timezone

    from notifications.models import Notification

    hold = Notification.objects.hold_for_quiet_hours

    now = timezone.now()
    seed(now)
    start = time.perf_counter()
    held = hold(now)
    first_ms = (time.perf_counter() - start) * 1000
    start = time.perf_counter()
    again = hold(now)
    steady_ms = (time.perf_counter() - start) * 1000
    print(
        json.dumps(
            {
                "bench": "quiet_hold",
                "db": db,
                "quiet_chats": CHATS // 2,
                "held": held,
                "first_ms": round(first_ms, 1),
                "steady_ms": round(steady_ms, 1),
                "held_again": again,
            }
        )
    )


if __name__ == "__main__":
    main()
