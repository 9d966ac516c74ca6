"""Seed a bench database with a realistic amount of data (run by bench/health.py, not by hand).

50 keywords, 10,000 ads, a day of scrape runs (every 5 minutes per keyword),
price changes, 5,000 sent and a few pending/dead notifications. Skips seeding
when keywords already exist (a PostgreSQL DATABASE_URL may hold real data);
always refreshes the scheduler heartbeat so /health answers 200.
"""

import os
import sys
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import django

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lago.settings")
django.setup()

from django.utils import timezone  # noqa: E402

from notifications.models import Notification, TelegramChat  # noqa: E402
from scraping.models import ScrapeRun  # noqa: E402
from tracker.models import (  # noqa: E402
    Ad,
    Heartbeat,  # noqa: E402
    Keyword,
    KeywordAd,
    PriceChange,
)

KEYWORDS, ADS, RUNS_PER_KEYWORD, SENT = 50, 10_000, 288, 5_000


def seed(now):
    keywords = Keyword.objects.bulk_create(
        [
            Keyword(
                name=f"bench {i}", query=f"bench query {i}", last_run_at=now - timedelta(minutes=2)
            )
            for i in range(KEYWORDS)
        ]
    )
    ads = Ad.objects.bulk_create(
        [
            Ad(
                source="willhaben",
                external_id=str(900_000 + i),
                title=f"Bench ad {i}",
                price=Decimal(100 + i % 500),
                url=f"https://www.willhaben.at/iad/object?adId={900_000 + i}",
                first_seen_at=now - timedelta(minutes=i),
            )
            for i in range(ADS)
        ],
        batch_size=1000,
    )
    KeywordAd.objects.bulk_create(
        [KeywordAd(keyword=keywords[i % KEYWORDS], ad=ad) for i, ad in enumerate(ads)],
        batch_size=1000,
    )
    drops = [
        PriceChange(
            ad=ad, old_price=ad.price, new_price=ad.price - 10, seen_at=now - timedelta(minutes=i)
        )
        for i, ad in enumerate(ads[:2000])
    ]
    PriceChange.objects.bulk_create(drops, batch_size=1000)
    runs = [
        ScrapeRun(
            keyword=k,
            source="willhaben",
            status="done",
            started_at=now - timedelta(minutes=5 * n),
            finished_at=now - timedelta(minutes=5 * n) + timedelta(seconds=20),
            ads_seen=30,
            ads_new=n % 3,
        )
        for k in keywords
        for n in range(RUNS_PER_KEYWORD)
    ]
    ScrapeRun.objects.bulk_create(runs, batch_size=1000)
    chat = TelegramChat.objects.create(chat_id=424242, status="active")
    statuses = ["sent"] * SENT + ["pending"] * 30 + ["dead"] * 5
    Notification.objects.bulk_create(
        [
            Notification(
                chat=chat,
                ad=ads[i],
                kind="new",
                price=ads[i].price,
                status=s,
                created_at=now - timedelta(seconds=i),
            )
            for i, s in enumerate(statuses)
        ],
        batch_size=1000,
    )


if __name__ == "__main__":
    now = timezone.now()
    if not Keyword.objects.exists():
        seed(now)
    Heartbeat.beat("scheduler", detail="bench")
    print(
        f"seeded: {Keyword.objects.count()} keywords, {Ad.objects.count()} ads, "
        f"{ScrapeRun.objects.count()} runs, "
        f"{Notification.objects.count()} notifications"
    )
