"""Benchmark: the outbox to 50 Apprise destinations through a local json:// endpoint.

Ten waves: each queues one new-ad row per destination and runs one process_queue(), so every
row goes out as a message of its own (500 messages). Then a burst: ten rows per destination
queued at once go out as one digest each (500 rows in 50 messages). APPRISE_MIN_GAP_S=0: the
figure is the sender's and Apprise's own cost per message, one destination after the other.
Goal: every row delivered once (0 duplicates, 0 missing).

    .venv/bin/python bench/notify_apprise.py          # SQLite in a temporary file
    DATABASE_URL=postgres://... .venv/bin/python bench/notify_apprise.py

The last line is one JSON object.
"""

import json
import re
import time
from collections import Counter

from common import setup_django

DESTINATIONS, WAVES, BURST = 50, 10, 10


def seed_destinations(endpoint):
    from notifications.models import Destination

    return [
        Destination.objects.create(
            title=f"bench {i}", apprise_url=endpoint.url(f"d{i}"), status="active", language="en"
        )
        for i in range(DESTINATIONS)
    ]


def queue(destinations, per_destination, first):
    from decimal import Decimal

    from notifications.models import Notification
    from tracker.models import Ad

    count = len(destinations) * per_destination
    ads = Ad.objects.bulk_create(
        [
            Ad(
                source="bench",
                external_id=str(first + i),
                title=f"Bench ad {first + i}",
                price=Decimal(100 + i),
                url=f"https://example.invalid/ad/{first + i}",
            )
            for i in range(count)
        ]
    )
    Notification.objects.bulk_create(
        [
            Notification(
                chat=destinations[i % len(destinations)],
                ad=ad,
                kind=Notification.Kind.NEW,
                price=ad.price,
            )
            for i, ad in enumerate(ads)
        ]
    )
    return count


def drain():
    from notifications.models import Notification
    from notifications.sender import process_queue

    start = time.monotonic()
    while Notification.objects.pending().exists() and time.monotonic() - start < 300:
        process_queue()
    return time.monotonic() - start


def main():
    from tests.fakes.apprise_endpoint import FakeAppriseEndpoint

    endpoint = FakeAppriseEndpoint().start()
    db = setup_django(TELEGRAM_BOT_TOKEN="", APPRISE_MIN_GAP_S=0, APPRISE_TIMEOUT_S=10)
    from notifications.models import Notification

    try:
        destinations = seed_destinations(endpoint)
        single_s, first = 0.0, 0
        for _ in range(WAVES):
            first += queue(destinations, 1, first)
            single_s += drain()
        singles = len(endpoint.posts)
        first += queue(destinations, BURST, first)
        burst_s = drain()
        digests = len(endpoint.posts) - singles
        sent = Notification.objects.filter(status=Notification.Status.SENT).count()
    finally:
        endpoint.stop()
    # Each message body names its ads once: a message its one ad, a digest each listed ad.
    per_ad = Counter(
        n for p in endpoint.posts for n in re.findall(r"Bench ad (\d+)\b", p["message"])
    )
    duplicates = sum(n - 1 for n in per_ad.values() if n > 1)
    print(
        f"{singles} messages to {DESTINATIONS} destinations in {single_s:.2f} s; "
        f"{BURST * DESTINATIONS} rows as {digests} digests in {burst_s:.2f} s; "
        f"{sent} rows sent, {len(per_ad)} ads named, {duplicates} named twice"
    )
    print(
        json.dumps(
            {
                "bench": "notify_apprise",
                "db": db,
                "destinations": DESTINATIONS,
                "msgs_per_s": round(singles / single_s, 1),
                "digest_rows_per_s": round(BURST * DESTINATIONS / burst_s, 1),
                "delivered": sent,
                "sent_twice": duplicates,
                "missing": WAVES * DESTINATIONS + BURST * DESTINATIONS - len(per_ad),
            }
        )
    )


if __name__ == "__main__":
    main()
