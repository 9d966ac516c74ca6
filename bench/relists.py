"""Relist matching (Ad.objects.match_new_ads): one indexed query per page of 200 new ads.

    .venv/bin/python bench/relists.py        # a temporary SQLite file
    DATABASE_URL=postgres://postgres@127.0.0.1:55432/<db> .venv/bin/python bench/relists.py

Seeds 100,000 ads, 20,000 of them gone within RELIST_WINDOW_DAYS, then matches 50 pages
of 200 new ads (a quarter of them relists) and reports the time per page, the queries per
page, and whether the database plans the candidate query on ad_relist_idx.
"""

import json
import time
from datetime import timedelta
from decimal import Decimal

from common import setup_django

TOTAL = 100_000
GONE_EVERY = 5  # every fifth ad is gone
PAGES = 50
PAGE = 200


def seed(now):
    from tracker.models import Ad
    from tracker.relists import title_key

    rows = []
    for i in range(TOTAL):
        title = f"Bench bike model {i} size {i % 7}"
        rows.append(
            Ad(
                source="willhaben",
                external_id=f"seed-{i}",
                title=title,
                title_key=title_key(title),
                price=Decimal("100"),
                url=f"https://www.willhaben.at/iad/seed-{i}/",
                postcode=f"{1010 + i % 23}",
                seller_id=f"{i % 997}",
                gone_at=now - timedelta(days=i % 30) if i % GONE_EVERY == 0 else None,
            )
        )
    Ad.objects.bulk_create(rows, batch_size=5000)


def pages():
    from scraping.sources.base import ParsedAd

    for p in range(PAGES):
        page = []
        for j in range(PAGE):
            n = p * PAGE + j
            i = n * GONE_EVERY if j % 4 == 0 else TOTAL + n  # a quarter relist a gone ad
            page.append(
                ParsedAd(
                    external_id=f"new-{n}",
                    title=f"BENCH bike model {i}, size {i % 7}!",
                    price=Decimal("110"),
                    url=f"https://www.willhaben.at/iad/new-{n}/",
                    postcode=f"{1010 + i % 23}",
                    seller_id=f"{i % 997}",  # relists are linked only for the same seller
                )
            )
        yield page


def plan(now):
    """The database's plan for one page's candidate query: does it use ad_relist_idx?"""
    from django.db import connection

    from tracker.models import Ad
    from tracker.relists import title_key

    page = next(pages())
    keys = {(title_key(a.title), a.postcode) for a in page}
    sql, params = Ad.objects.relist_candidates("willhaben", keys, now).query.sql_with_params()
    prefix = "EXPLAIN " if connection.vendor == "postgresql" else "EXPLAIN QUERY PLAN "
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("ANALYZE tracker_ad")
        cursor.execute(prefix + sql, params)
        return " ".join(str(col) for row in cursor.fetchall() for col in row)


def main():
    db = setup_django()
    from django.db import connection, reset_queries
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from tracker.models import Ad

    now = timezone.now()
    seed(now)
    matched, queries = 0, 0
    started = time.perf_counter()
    for page in pages():
        with CaptureQueriesContext(connection) as ctx:
            matched += len(Ad.objects.match_new_ads("willhaben", page, now))
        queries += len(ctx)
        reset_queries()
    per_page_ms = (time.perf_counter() - started) * 1000 / PAGES
    uses_index = "ad_relist_idx" in plan(now)
    per_page = f"{per_page_ms:.1f} ms and {queries / PAGES:.0f} queries per page of {PAGE}"
    print(f"{db}: {per_page}, {matched} relists, index used: {uses_index}")
    result = {
        "bench": "relists",
        "db": db,
        "ads": TOTAL,
        "ms_per_page": round(per_page_ms, 1),
        "queries_per_page": queries / PAGES,
        "relists": matched,
        "uses_ad_relist_idx": uses_index,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
