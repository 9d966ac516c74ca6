"""Price judgement at ingest: a page of 30 new ads judged against a keyword with 10,000 comparables.

    .venv/bin/python bench/price_check.py        # a temporary SQLite file
    DATABASE_URL=postgres://postgres@127.0.0.1:55432/<db> .venv/bin/python bench/price_check.py

Seeds one keyword with 10,000 links found within PRICE_COMPARE_DAYS (a mixed search: bikes,
helmets, locks, pumps, with brand, model and size in the title, every tenth ad gone) and a second
keyword with as many, so the comparables' query has to pick its keyword's rows by the index.

*Ours* is what ingest does (scraping.ingest._judge): the comparables loaded once per page
(Comparables.load, one query on keywordad_found_idx), then the page judged against them
(Comparables.judge_all: the titles scored in one rapidfuzz pass, then median, MAD, z per ad).
*Naive* loads all comparables into Python again for every ad (judge_price per ad). Prints the
time per page of both, the queries per page and `ratio` = naive / ours; the last line is one JSON
object.
"""

import json
import random
import statistics
import time
from datetime import timedelta
from decimal import Decimal

from common import setup_django

COMPARABLES = 10_000
PAGE = 30
ROUNDS = 5
KINDS = [
    ("Rennrad", 900, 2500),
    ("Mountainbike", 500, 2000),
    ("Fahrradhelm", 20, 120),
    ("Fahrradschloss", 10, 80),
    ("Luftpumpe", 5, 40),
    ("Kinderfahrrad", 60, 300),
]
BRANDS = ["Cube", "KTM", "Trek", "Specialized", "Giant", "Scott", "Canyon", "Abus", "Uvex", "SKS"]
EXTRAS = ["", "top Zustand", "wie neu", "gebraucht", "mit Rechnung", "Carbon", "Alu", "29 Zoll"]


def title(rng, i):
    kind, low, high = KINDS[i % len(KINDS)]
    words = [rng.choice(BRANDS), kind, f"{rng.choice(BRANDS)[:2].upper()}{i % 400}"]
    words += [f"{rng.randrange(40, 62)} cm", rng.choice(EXTRAS)]
    price = Decimal(rng.randrange(low, high))
    return " ".join(w for w in words if w), price


def seed(now):
    from tracker.models import Ad, Keyword, KeywordAd
    from tracker.relists import title_key

    rng = random.Random(30)
    keywords = [Keyword.objects.create(query="fahrrad"), Keyword.objects.create(query="rad")]
    ads = []
    for i in range(COMPARABLES * len(keywords)):
        text, price = title(rng, i)
        ads.append(
            Ad(
                source="willhaben",
                external_id=f"seed-{i}",
                title=text,
                title_key=title_key(text),
                price=price,
                url=f"https://www.willhaben.at/iad/seed-{i}/",
                gone_at=now - timedelta(days=i % 30) if i % 10 == 0 else None,
            )
        )
    Ad.objects.bulk_create(ads, batch_size=2000)
    ids = dict(Ad.objects.values_list("external_id", "id"))
    links = [
        KeywordAd(
            keyword=keywords[i % len(keywords)],
            ad_id=ids[ad.external_id],
            price=ad.price,
            found_at=now - timedelta(days=i % 89, minutes=i % 1440),
        )
        for i, ad in enumerate(ads)
    ]
    KeywordAd.objects.bulk_create(links, batch_size=2000)
    distinct = len({ad.title_key for i, ad in enumerate(ads) if i % len(keywords) == 0})
    return keywords[0], distinct


def page(round_number):
    from scraping.sources.base import ParsedAd

    rng = random.Random(1000 + round_number)
    ads = []
    for j in range(PAGE):
        text, price = title(rng, rng.randrange(COMPARABLES))
        ads.append(
            ParsedAd(
                external_id=f"new-{round_number}-{j}",
                title=text,
                price=price,
                url=f"https://www.willhaben.at/iad/new-{round_number}-{j}/",
            )
        )
    return ads


def ours(keyword, ads, now):
    from tracker.comparables import Comparables

    comparables = Comparables.load(keyword, now=now)
    return comparables.judge_all([(ad.price, ad.title, None, None, None) for ad in ads])


def naive(keyword, ads, now):
    from tracker.price_judgement import judge_price

    return [judge_price(keyword, ad.price, ad.title, now=now) for ad in ads]


def timed(judge, keyword, now):
    """(median ms per page over ROUNDS pages, queries per page, the last page's judgements)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    times, queries = [], 0
    for round_number in range(ROUNDS):
        ads = page(round_number)
        with CaptureQueriesContext(connection) as ctx:
            started = time.perf_counter()
            judgements = judge(keyword, ads, now)
            times.append((time.perf_counter() - started) * 1000)
        queries += len(ctx)
    return statistics.median(times), queries / ROUNDS, judgements


def main():
    db = setup_django()
    from django.db import connection
    from django.utils import timezone

    now = timezone.now()
    keyword, distinct = seed(now)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE tracker_keywordad")
            cursor.execute("ANALYZE tracker_ad")
    ours(keyword, page(0), now)  # warm-up: imports, the first connection
    ours_ms, ours_queries, judged = timed(ours, keyword, now)
    naive_ms, naive_queries, naive_judged = timed(naive, keyword, now)
    assert judged == naive_judged, "the two ways must judge alike"
    labels = sorted({j.label for j in judged})
    print(
        f"{db}: {COMPARABLES} comparables ({distinct} distinct titles), page of {PAGE}: "
        f"ours {ours_ms:.1f} ms ({ours_queries:.0f} queries), naive {naive_ms:.1f} ms "
        f"({naive_queries:.0f} queries), ratio {naive_ms / ours_ms:.1f}; labels {labels}"
    )
    result = {
        "bench": "price_check",
        "db": db,
        "comparables": COMPARABLES,
        "distinct_titles": distinct,
        "page": PAGE,
        "ms_per_page": round(ours_ms, 1),
        "queries_per_page": ours_queries,
        "naive_ms_per_page": round(naive_ms, 1),
        "naive_queries_per_page": naive_queries,
        "ratio": round(naive_ms / ours_ms, 1),
        "n_median": statistics.median(j.n for j in judged),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
