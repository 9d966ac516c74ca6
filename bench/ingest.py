"""Ingest 10,000 parsed ads: the bulk path (scraping.ingest) vs a naive per-ad update_or_create
loop.

    .venv/bin/python bench/ingest.py        # a temporary SQLite file
    DATABASE_URL=postgres://postgres@127.0.0.1:55432/lago_wt3 .venv/bin/python bench/ingest.py

Each path gets the same work: 10,000 ads in pages of 200 (the API's row cap), half
of them already stored and linked to the keyword (seeded untimed), 10% of the
10,000 with a lower price than stored, 3 active subscribers. Each page is one
transaction on both paths. Rows are written under a throwaway source slug and
deleted afterwards, so pointing it at a real database leaves nothing behind.
"""

import json
import time
import uuid
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from common import setup_django

TOTAL = 10_000
PAGE = 200
T0 = datetime(2025, 6, 1, tzinfo=UTC)
FIELDS = ("title", "price", "currency", "url", "location", "postcode", "image_url", "published_at")


def make_ads(source_tag):
    from scraping.sources.base import ParsedAd

    ads = []
    for i in range(TOTAL):
        ads.append(
            ParsedAd(
                external_id=f"{source_tag}-{i}",
                title=f"Bench ad {i}",
                price=Decimal("90.00") if i % 10 == 0 else Decimal("100.00"),
                url=f"https://www.willhaben.at/iad/bench-{i}/",
                location="Wien",
                postcode="1010",
                published_at=T0 - timedelta(seconds=i),
            )
        )
    return ads


def seed(keyword, source, ads):
    """Store the even-numbered ads at 100.00 and link them: the 'known' half."""
    from scraping.ingest import ingest_page

    known = [a for i, a in enumerate(ads) if i % 2 == 0]
    known = [type(a)(**{**a.__dict__, "price": Decimal("100.00")}) for a in known]
    for start in range(0, len(known), PAGE):
        ingest_page(keyword, known[start : start + PAGE], source=source, notify=False)


def bulk(keyword, source, ads):
    from scraping.ingest import ingest_page

    for start in range(0, len(ads), PAGE):
        ingest_page(keyword, ads[start : start + PAGE], source=source)


def naive(keyword, source, ads):
    """The obvious ORM loop: a handful of queries per ad."""
    from django.db import transaction

    from notifications.models import Notification, Subscription
    from scraping.ingest import passes_filters
    from tracker.models import Ad, KeywordAd, PriceChange

    chats = list(Subscription.objects.filter(keyword=keyword).values_list("chat_id", flat=True))
    for start in range(0, len(ads), PAGE):
        with transaction.atomic():
            for a in ads[start : start + PAGE]:
                old = (
                    Ad.objects.filter(source=source, external_id=a.external_id)
                    .values_list("price", flat=True)
                    .first()
                )
                fields = {k: getattr(a, k) for k in FIELDS}
                ad, created = Ad.objects.update_or_create(
                    source=source, external_id=a.external_id, defaults=fields
                )
                if not created and old != a.price:
                    PriceChange.objects.create(ad=ad, old_price=old, new_price=a.price)
                if not passes_filters(keyword, a):
                    continue
                _link, new = KeywordAd.objects.get_or_create(keyword=keyword, ad=ad)
                dropped = not new and old is not None and a.price < old
                if new or dropped:
                    kind = Notification.Kind.NEW if new else Notification.Kind.PRICE_DROP
                    for chat_id in chats:
                        Notification.objects.get_or_create(
                            chat_id=chat_id,
                            ad=ad,
                            kind=kind,
                            price=a.price,
                            defaults={"keyword": keyword, "old_price": old},
                        )


def run(path):
    from tests.factories import make_chat, make_keyword, make_subscription

    tag = f"bench{uuid.uuid4().hex[:8]}"
    keyword = make_keyword(query=tag)
    chats = [make_chat() for _ in range(3)]
    for chat in chats:
        make_subscription(chat=chat, keyword=keyword)
    ads = make_ads(tag)
    try:
        seed(keyword, tag, ads)
        started = time.perf_counter()
        path(keyword, tag, ads)
        elapsed = time.perf_counter() - started
        check(keyword, tag)
    finally:
        cleanup(keyword, tag, chats)
    return TOTAL / elapsed


def check(keyword, source):
    """Both paths must do the same work, or the comparison means nothing."""
    from notifications.models import Notification
    from tracker.models import Ad, PriceChange

    assert Ad.objects.filter(source=source).count() == TOTAL
    assert PriceChange.objects.filter(ad__source=source).count() == TOTAL // 10
    assert Notification.objects.filter(keyword=keyword, kind="new").count() == 3 * TOTAL // 2
    assert (
        Notification.objects.filter(keyword=keyword, kind="price_drop").count() == 3 * TOTAL // 10
    )


def cleanup(keyword, source, chats):
    from tracker.models import Ad

    Ad.objects.filter(source=source).delete()
    keyword.delete()
    for chat in chats:
        chat.delete()


def main():
    setup_django()
    from django.conf import settings

    db = "postgresql" if settings.IS_POSTGRES else "sqlite"
    bulk_rate = run(bulk)
    naive_rate = run(naive)
    print(f"{db}: bulk {bulk_rate:,.0f} ads/s, naive {naive_rate:,.0f} ads/s")
    speedup = round(bulk_rate / naive_rate, 1)
    result = {
        "bench": "ingest",
        "db": db,
        "bulk_ads_per_s": round(bulk_rate),
        "naive_ads_per_s": round(naive_rate),
    }
    print(json.dumps({**result, "speedup": speedup}))


if __name__ == "__main__":
    main()
