"""Benchmark: the weekly market report for 300 keywords × 20 chats (6,000 reports).

Seeds 300 keywords with 60 ads each over 14 weeks (18,000 ads and links; a fifth gone, a fifth
with a price change, some judged deals) and 20 chats that follow every keyword, all due for their
report now. Measures, as the product does them:

- queue: the tick's step (notifications.reports.queue_due_reports), writing the 6,000 REPORT rows;
- render: what the sender does for every row before the Bot API call (render_report: the
  keyword's figures from tracker.market_report, its chart as PNG, the caption), in the rows'
  order. The chart and figures are drawn once per keyword and language and shared by that
  keyword's chats (render_report's per-process cache); `chart_ms` and `data_ms` are the cost of
  one such drawing, measured first on every keyword.

Sending is not measured: 6,000 photos at Telegram's 30 messages a second take 200 s whatever
rendering costs.

    .venv/bin/python bench/report.py          # SQLite in a temporary file
    DATABASE_URL=postgres://... .venv/bin/python bench/report.py

The last line is one JSON object.
"""

import json
import random
import time
from datetime import timedelta
from decimal import Decimal

from common import setup_django

KEYWORDS, CHATS, ADS_PER_KEYWORD = 300, 20, 60


def seed(now):
    from notifications.models import Subscription, TelegramChat
    from tracker.models import Ad, Keyword, KeywordAd, PriceChange

    rng = random.Random(30)
    keywords = Keyword.objects.bulk_create(
        [
            Keyword(name=f"Bench {i}", query=f"bench {i}", next_run_at=now + timedelta(days=365))
            for i in range(KEYWORDS)
        ]
    )
    ads, links, changes = [], [], []
    for k in range(len(keywords)):
        base = rng.randint(50, 2000)
        for i in range(ADS_PER_KEYWORD):
            seen = now - timedelta(days=rng.uniform(0, 98))
            gone = seen + timedelta(days=rng.uniform(1, 30)) if rng.random() < 0.2 else None
            price = Decimal(round(base * rng.uniform(0.6, 1.4)))
            ads.append(
                Ad(
                    source="bench",
                    external_id=f"{k}-{i}",
                    title=f"Bench ad {k}-{i} " + "lang " * rng.randint(0, 12),
                    price=price,
                    url=f"https://example.invalid/{k}/{i}",
                    first_seen_at=seen,
                    last_seen_at=now,
                    gone_at=gone if gone is None or gone < now else None,
                )
            )
    ads = Ad.objects.bulk_create(ads, batch_size=2000)
    for n, ad in enumerate(ads):
        kw = keywords[n // ADS_PER_KEYWORD]
        deal = rng.random() < 0.1
        links.append(
            KeywordAd(
                keyword=kw,
                ad=ad,
                found_at=ad.first_seen_at,
                price=ad.price,
                price_label="deal" if deal else "fair",
                price_percent=Decimal(-rng.randint(15, 40)) if deal else Decimal(0),
                price_median=ad.price,
                price_n=20,
            )
        )
        if rng.random() < 0.2:
            seen = ad.first_seen_at + (now - ad.first_seen_at) / 2
            changes.append(
                PriceChange(ad=ad, old_price=ad.price + 50, new_price=ad.price, seen_at=seen)
            )
    KeywordAd.objects.bulk_create(links, batch_size=2000)
    PriceChange.objects.bulk_create(changes, batch_size=2000)
    chats = TelegramChat.objects.bulk_create(
        [
            TelegramChat(
                chat_id=9_300_000_000 + i,
                status="active",
                language="de" if i % 2 else "en",
                report_next_at=now - timedelta(minutes=1),
            )
            for i in range(CHATS)
        ]
    )
    Subscription.objects.bulk_create(
        [Subscription(chat=chat, keyword=kw) for chat in chats for kw in keywords], batch_size=2000
    )


def main():
    db = setup_django()
    from django.utils import timezone, translation

    from notifications.models import Notification, TelegramChat
    from notifications.reports import forget_drawn, queue_due_reports, render_report
    from tracker.market_report import market_report
    from tracker.models import Keyword
    from tracker.report_chart import report_chart_png

    now = timezone.now()
    seed(now)

    started = time.perf_counter()
    queued = queue_due_reports(now)
    queue_s = time.perf_counter() - started

    # One drawing per keyword, measured apart: the figures, then the chart.
    data_s = chart_s = 0.0
    for kw in Keyword.objects.all():
        t0 = time.perf_counter()
        report = market_report(kw, now)
        t1 = time.perf_counter()
        report_chart_png(report)
        data_s += t1 - t0
        chart_s += time.perf_counter() - t1

    forget_drawn()
    # The sender's order: every chat's first row, then every chat's second, … (sender._in_turn);
    # each chat's rows are queued in keyword order, so a keyword's chats come together.
    pks = list(
        Notification.objects.filter(kind=Notification.Kind.REPORT)
        .order_by("keyword_id", "chat_id")
        .values_list("pk", flat=True)
    )
    languages = dict(TelegramChat.objects.values_list("pk", "language"))
    started = time.perf_counter()
    photo_bytes = 0
    for i in range(0, len(pks), 500):  # the sender loads what it sends in batches
        for row in Notification.objects.load_for_sending(pks[i : i + 500]).values():
            with translation.override(languages[row.chat_id]):
                rendered = render_report(row, now)
            photo_bytes += len(rendered.photo_bytes)
    render_s = time.perf_counter() - started

    result = {
        "bench": "report",
        "db": db,
        "keywords": KEYWORDS,
        "chats": CHATS,
        "reports": queued,
        "queue_s": round(queue_s, 2),
        "render_s": round(render_s, 2),
        "seconds": round(queue_s + render_s, 2),
        "data_ms": round(data_s * 1000 / KEYWORDS, 1),
        "chart_ms": round(chart_s * 1000 / KEYWORDS, 1),
        "mean_png_kib": round(photo_bytes / max(len(pks), 1) / 1024, 1),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
