"""The keyword list at scale: 300 keywords × 2,000 ads each, counted per row without JOINs (issue
16).

    .venv/bin/python bench/keyword_list.py

Seeds 300 keywords, 300,000 ads linked twice (600,000 keyword-ad links, 2,000 per keyword),
20 chats × 20 subscriptions and 30 runs per keyword, then measures the p50 of the keyword
changelist (default order and sorted by ads found), of one keyword's page, and — for
comparison — of the keyword rows counted the naive way (JOIN + COUNT(DISTINCT) over ads and
subscriptions, what the list must not do). PostgreSQL gives the meaningful figures.

Last line: one JSON object.
"""

import json
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import setup_django  # noqa: E402

KEYWORDS, ADS_PER_KEYWORD, CHATS, SUBSCRIPTIONS_PER_CHAT, RUNS_PER_KEYWORD = 300, 2_000, 20, 20, 30
REPEAT = 5
BATCH = 5_000


def p50_ms(call):
    times = []
    for _ in range(REPEAT):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(times), 1)


def seed_ads_sql(n_ads):
    """PostgreSQL: the ads and links in two INSERT … SELECT statements (the ORM needs minutes for
    900,000 rows)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO tracker_ad (source, external_id, title, price, currency, url, location, "
            "postcode, image_url,"
            " first_seen_at, last_seen_at) SELECT 'willhaben', n::text, 'ad ' || n, 100, 'EUR', "
            "'https://x.invalid/' || n,"
            " '', '', '', now(), now() FROM generate_series(0, %s - 1) n",
            [n_ads],
        )
        # Ad n belongs to keywords n mod K and (n + 1) mod K: each keyword has 2,000 ads.
        cursor.execute(
            "WITH a AS (SELECT id, row_number() OVER (ORDER BY id) - 1 AS n FROM tracker_ad),"
            " k AS (SELECT id, row_number() OVER (ORDER BY id) - 1 AS i FROM tracker_keyword)"
            " INSERT INTO tracker_keywordad (keyword_id, ad_id, found_at)"
            " SELECT k.id, a.id, now() - a.n * interval '1 minute' FROM a CROSS JOIN "
            "generate_series(0, 1) s"
            " JOIN k ON k.i = (a.n + s) %% %s",
            [KEYWORDS],
        )


def seed_ads_orm(n_ads, keywords, now):
    from decimal import Decimal

    from tracker.models import Ad, KeywordAd

    for start in range(0, n_ads, BATCH):
        ads = Ad.objects.bulk_create(
            Ad(
                source="willhaben",
                external_id=str(n),
                title=f"ad {n}",
                price=Decimal(100),
                url=f"https://x.invalid/{n}",
            )
            for n in range(start, start + BATCH)
        )
        links = [
            KeywordAd(
                keyword=keywords[(start + i + shift) % KEYWORDS],
                ad=ad,
                found_at=now - timedelta(minutes=start + i),
            )
            for i, ad in enumerate(ads)
            for shift in (0, 1)
        ]
        KeywordAd.objects.bulk_create(links, batch_size=BATCH)


def seed():
    from django.db import connection
    from django.utils import timezone

    from notifications.models import Subscription, TelegramChat
    from scraping.models import ScrapeRun
    from tracker.models import Keyword, KeywordAd

    now = timezone.now()
    keywords = Keyword.objects.bulk_create(
        Keyword(name=f"bench keyword {i} · bis € 500", query=f"bench {i}") for i in range(KEYWORDS)
    )
    n_ads = KEYWORDS * ADS_PER_KEYWORD // 2
    if connection.vendor == "postgresql":
        seed_ads_sql(n_ads)
    else:
        seed_ads_orm(n_ads, keywords, now)
    chats = TelegramChat.objects.bulk_create(
        TelegramChat(chat_id=10_000 + i, status="active") for i in range(CHATS)
    )
    Subscription.objects.bulk_create(
        Subscription(chat=chat, keyword=keywords[(c * SUBSCRIPTIONS_PER_CHAT + j) % KEYWORDS])
        for c, chat in enumerate(chats)
        for j in range(SUBSCRIPTIONS_PER_CHAT)
    )
    ScrapeRun.objects.bulk_create(
        (
            ScrapeRun(
                keyword=k,
                source="willhaben",
                status="done",
                started_at=now - timedelta(minutes=5 * n),
                ads_seen=30,
            )
            for k in keywords
            for n in range(RUNS_PER_KEYWORD)
        ),
        batch_size=BATCH,
    )
    return {
        "keywords": KEYWORDS,
        "ads": n_ads,
        "keyword_ads": KeywordAd.objects.count(),
        "subscriptions": Subscription.objects.count(),
    }


def main():
    engine = setup_django()
    from django.contrib import admin
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.db.models import Count
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from tracker.models import Keyword

    t0 = time.perf_counter()
    rows = seed()
    print(f"database: {engine}; seeded {rows} in {time.perf_counter() - t0:.1f} s", flush=True)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")
    get_user_model().objects.create_superuser("bench", password="bench-pass-123")
    client = Client(HTTP_HOST="localhost")
    client.login(username="bench", password="bench-pass-123")
    keyword = Keyword.objects.order_by("pk").first()

    def get(url):
        def call():
            response = client.get(url)
            assert response.status_code == 200, (url, response.status_code)

        return call

    # The changelist's column numbers count the action checkbox first.
    ads_column = 1 + list(admin.site._registry[Keyword].list_display).index("ads_found")
    figures = {
        "changelist_ms": p50_ms(get("/admin/tracker/keyword/")),
        "changelist_by_ads_ms": p50_ms(get(f"/admin/tracker/keyword/?o=-{ads_column}")),
        "keyword_page_ms": p50_ms(get(f"/admin/tracker/keyword/{keyword.pk}/change/")),
        "join_count_ms": p50_ms(
            lambda: list(
                Keyword.objects.annotate(
                    n_ads=Count("matches", distinct=True),
                    n_subs=Count("subscriptions", distinct=True),
                )
                .order_by("pk")[:100]
                .values_list("pk", "n_ads", "n_subs")
            )
        ),
    }
    for name, ms in figures.items():
        print(f"  {name:22} {ms:8.1f} ms")
    with CaptureQueriesContext(connection) as ctx:
        client.get("/admin/tracker/keyword/")
    sql_ms = sum(float(q["time"]) for q in ctx.captured_queries) * 1000
    print(f"  changelist SQL: {len(ctx)} queries, {sql_ms:.1f} ms; slowest:")
    for q in sorted(ctx.captured_queries, key=lambda q: -float(q["time"]))[:3]:
        print(f"    {float(q['time']) * 1000:7.1f} ms  {q['sql'][:300]}")
    print(json.dumps({"bench": "keyword_list", "database": engine, "rows": rows, **figures}))


if __name__ == "__main__":
    main()
