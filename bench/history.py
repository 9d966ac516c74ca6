"""Months of history: how the history pages and retention behave as the tables grow.

    .venv/bin/python bench/history.py [--months 6] [--scale 0.005]

A REDUCED version of issue 16's bench: it seeds a fraction (`--scale`) of a realistic
installation's history (300 keywords every 5 minutes: 13M scrape runs and 1M notifications
in six months; 300k ads, 200k price changes), measures the p50 of a few pages on the
empty and on the seeded database, then runs retention (`scraping.retention.prune`) and
reports what it deleted, how long that took and, on PostgreSQL, the size of the history
tables before and after. Not measured yet: /stats, /metrics, the dashboard, `status`,
the tick and process_queue, and db_mb_per_month.

Last line: one JSON object.
"""

import argparse
import json
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import setup_django  # noqa: E402

REPEAT = 5
PAGES = {
    "health": "/health",
    "runs_changelist": "/admin/scraping/scraperun/",
    "runs_failed_changelist": "/admin/scraping/scraperun/?status__exact=failed",
    "notification_changelist": "/admin/notifications/notification/",
    "pricechange_changelist": "/admin/tracker/pricechange/",
}


def p50_ms(client, url):
    times = []
    for _ in range(REPEAT):
        start = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - start) * 1000)
        assert response.status_code in (200, 503), (url, response.status_code)
    return round(statistics.median(times), 1)


def measure(client):
    return {name: p50_ms(client, url) for name, url in PAGES.items()}


def seed(months, scale):
    from decimal import Decimal

    from django.utils import timezone

    from notifications.models import Notification, TelegramChat
    from scraping.models import ScrapeRun
    from tracker.models import Ad, Keyword, PriceChange

    now = timezone.now()
    span = timedelta(days=30 * months)
    n_runs = int(13_000_000 * months / 6 * scale)
    n_notes = int(1_000_000 * months / 6 * scale)
    n_ads = max(100, int(300_000 * scale))
    n_changes = int(200_000 * months / 6 * scale)
    keywords = Keyword.objects.bulk_create(Keyword(query=f"bench {i}") for i in range(30))
    chats = TelegramChat.objects.bulk_create(TelegramChat(chat_id=10_000 + i, status="active") for i in range(20))
    ads = Ad.objects.bulk_create(
        Ad(source="willhaben", external_id=str(i), title=f"Bench ad {i}", price=Decimal(100), url=f"https://example.invalid/{i}")
        for i in range(n_ads)
    )
    statuses = ["done"] * 90 + ["failed"] * 5 + ["skipped"] * 5
    batch = 5000
    for start in range(0, n_runs, batch):
        ScrapeRun.objects.bulk_create(
            ScrapeRun(
                keyword=keywords[i % len(keywords)],
                source="willhaben",
                status=statuses[i % len(statuses)],
                started_at=now - span * (i / n_runs),
                finished_at=now - span * (i / n_runs),
            )
            for i in range(start, min(n_runs, start + batch))
        )
    for start in range(0, n_notes, batch):
        Notification.objects.bulk_create(
            Notification(
                chat=chats[i % len(chats)],
                ad=ads[i % len(ads)],
                kind="new",
                price=Decimal(1 + i // len(ads)),  # (ad, price) unique: no outbox conflict
                status="sent" if i % 50 else "dead",
                created_at=now - span * (i / n_notes),
            )
            for i in range(start, min(n_notes, start + batch))
        )
    PriceChange.objects.bulk_create(
        PriceChange(ad=ads[i % len(ads)], old_price=100, new_price=90, seen_at=now - span * (i / max(1, n_changes)))
        for i in range(n_changes)
    )
    return {"scrape_runs": n_runs, "notifications": n_notes, "ads": n_ads, "price_changes": n_changes}


def history_mb():
    from django.db import connection

    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT sum(pg_total_relation_size(c)) FROM unnest(ARRAY['scraping_scraperun', 'notifications_notification']::regclass[]) c"
        )
        return round(int(cursor.fetchone()[0]) / 1e6, 1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--months", type=int, default=6)
    parser.add_argument("--scale", type=float, default=0.005, help="fraction of the issue's row counts (1 = 13M runs at 6 months)")
    args = parser.parse_args()
    engine = setup_django(HEALTHCHECK_SCHEDULER_STALE_S=10**9)

    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client

    from scraping import retention

    get_user_model().objects.create_superuser("bench", password="bench-pass-123")
    client = Client(HTTP_HOST="localhost")
    client.login(username="bench", password="bench-pass-123")
    empty = measure(client)
    t0 = time.perf_counter()
    rows = seed(args.months, args.scale)
    print(f"database: {engine}; seeded {rows} in {time.perf_counter() - t0:.1f} s", flush=True)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    big = measure(client)
    mb_before = history_mb()
    t0 = time.perf_counter()
    result = retention.prune()
    prune_s = round(time.perf_counter() - t0, 2)
    mb_after = history_mb()
    pages = {name: {"empty_ms": empty[name], "big_ms": big[name]} for name in PAGES}
    for name, figures in pages.items():
        print(f"  {name:26} empty {figures['empty_ms']:8.1f} ms   big {figures['big_ms']:8.1f} ms")
    print(f"  retention deleted {result.counts} in {prune_s} s; history tables {mb_before} MB -> {mb_after} MB (PostgreSQL only)")
    print(
        json.dumps(
            {
                "bench": "history",
                "database": engine,
                "months": args.months,
                "scale": args.scale,
                "rows": rows,
                "pages": pages,
                "worst_big_ms": max(f["big_ms"] for f in pages.values()),
                "worst_ratio": round(max(f["big_ms"] / max(f["empty_ms"], 0.1) for f in pages.values()), 2),
                "prune_s": prune_s,
                "pruned": result.counts,
                "history_mb_before_prune": mb_before,
                "history_mb_after_prune": mb_after,
            }
        )
    )


if __name__ == "__main__":
    main()
