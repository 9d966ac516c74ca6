"""Six months of history: every page and operation on an empty and on a seeded database.

    DATABASE_URL=postgres://… .venv/bin/python bench/history.py [--months 6] [--full]

PostgreSQL only (the seed is server-side `generate_series`, see bench/history_seed.py).
Measures the p50 of /health, /stats, /metrics, the admin dashboard, the keyword, ad
(plain and with a title search), price-change, scrape-run (plain and failed-only) and
notification changelists (Django's test Client, logged in as a superuser), `status --json`,
one tick with 50 due keywords and one `process_queue()` with 1,000 due rows (fake Bot API,
pacing lifted: the figure is our cost, not Telegram's 30/s), first on the empty database,
then on the seeded one. `status --json` runs with an empty stats cache each time, as the
one-shot command does (the pages may use a 30 s cache on a big installation: STATS_CACHE_S).

"Empty" is the same installation on its first day: its 300 keywords, 20 chats and 400
subscriptions, no runs, ads, price changes or notifications (plus the 1,000 ads the
sender's rows point to), so that big/empty measures six months of history, not 300
keywords against fewer.

What is seeded: with default retention (RETENTION_RUNS_DAYS=30, RETENTION_NOTIFICATIONS_DAYS=90)
a six-month database holds 30 days of scrape runs and 90 days of notifications, so that is
what is seeded (2.6M runs, 500k notifications), plus `--months` of ads, keyword-ad links and
price changes. `--full` seeds every run and notification of the whole period instead (13M
runs; ~15 min on 2 cores) and lets retention delete the expired ones.

db_mb_per_month: after retention, the runs and notifications tables stay at their window's
size; what keeps growing is ads, keyword-ad links and price changes (tables and indexes), so
their size divided by `--months` is the growth per month.

Last line: one JSON object.
"""

import argparse
import io
import json
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import history_seed  # noqa: E402
from common import setup_django  # noqa: E402

REPEAT = 5
DUE_KEYWORDS, DUE_ROWS = 50, 1000
PAGES = {
    "health": "/health",
    "stats": "/stats",
    "metrics": "/metrics",
    "dashboard": "/admin/",
    "keyword_changelist": "/admin/tracker/keyword/",
    "ad_changelist": "/admin/tracker/ad/",
    "ad_search": "/admin/tracker/ad/?q=Canyon+Rennrad",
    "pricechange_changelist": "/admin/tracker/pricechange/",
    "runs_changelist": "/admin/scraping/scraperun/",
    "runs_failed_changelist": "/admin/scraping/scraperun/?status__exact=failed",
    "notification_changelist": "/admin/notifications/notification/",
}
GROWING = ["tracker_ad", "tracker_keywordad", "tracker_pricechange"]
BOUNDED = ["scraping_scraperun", "notifications_notification"]


def p50_ms(action, prepare=None, repeat=REPEAT):
    times = []
    for _ in range(repeat):
        if prepare:
            prepare()
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(times), 1)


def get(client, url):
    def action():
        response = client.get(url)
        assert response.status_code in (200, 503), (url, response.status_code)

    return action


def status_json():
    from django.core.management import call_command

    from operations import stats_cache

    # `manage.py status` is a process of its own: it starts with an empty cache
    stats_cache.forget()
    try:
        call_command("status", "--json", stdout=io.StringIO())
    except SystemExit:
        pass  # degraded/unhealthy exit codes: the report was still built


def make_due(keyword_ids):
    """The tick's input: `keyword_ids` due now, no run of theirs running, an empty task queue."""

    def prepare():
        from django.utils import timezone
        from django_q.models import OrmQ

        from scraping.models import ScrapeRun
        from tracker.models import Keyword

        now = timezone.now()
        ScrapeRun.objects.filter(status="running").update(status="done", finished_at=now)
        Keyword.objects.exclude(pk__in=keyword_ids).update(
            next_run_at=now + timedelta(hours=1), next_sweep_at=now + timedelta(days=1)
        )
        Keyword.objects.filter(pk__in=keyword_ids).update(
            next_run_at=now - timedelta(minutes=1), next_sweep_at=now + timedelta(days=1)
        )
        OrmQ.objects.all().delete()

    return prepare


def tick_once():
    from scraping.tick import tick

    claimed = tick()["claimed"]
    assert claimed == DUE_KEYWORDS, claimed


def queue_rows(ads):
    """The sender's input: exactly DUE_ROWS pending rows due now, 50 for each of 20 chats.

    Fresh chats each time: the pace store keeps each chat's one-message-per-second slot,
    and the repetitions come faster than that. The previous repetition's chats go (with
    the rows their digests left queued), so every repetition starts from the same queue.
    """
    counter = [0]

    def prepare():
        from decimal import Decimal

        from notifications.models import Notification, TelegramChat

        counter[0] += 1
        TelegramChat.objects.filter(chat_id__gte=30_000, chat_id__lt=40_000).delete()
        base = 30_000 + 100 * counter[0]
        chats = TelegramChat.objects.bulk_create(
            TelegramChat(chat_id=base + i, status="active") for i in range(20)
        )
        Notification.objects.bulk_create(
            Notification(
                chat=chats[i % len(chats)], ad=ads[i % len(ads)], kind="new", price=Decimal(i)
            )
            for i in range(DUE_ROWS)
        )

    return prepare


def process_queue_once():
    from notifications.sender import process_queue

    assert process_queue() > 0


def operations(fixtures):
    """p50 of status --json, the tick and the sender, on the data `fixtures` names."""
    return {
        "status_json": p50_ms(status_json),
        "tick_50_due": p50_ms(tick_once, make_due(fixtures["due_keywords"])),
        "process_queue_1000": p50_ms(process_queue_once, queue_rows(fixtures["ads"])),
    }


def measure(client, fixtures):
    from tracker.models import Heartbeat

    Heartbeat.beat("scheduler", detail="bench")  # /health answers 200, as in production
    Heartbeat.beat("bot", detail="bench")
    figures = {name: p50_ms(get(client, url)) for name, url in PAGES.items()}
    return {**figures, **operations(fixtures)}


def empty_fixtures(plan):
    """The same installation on its first day: its 300 keywords, 20 chats and 400 subscriptions,
    no history; plus the 1,000 ads the sender's rows point to. The ratio then measures what
    six months of history cost, not what 300 keywords cost against 50."""
    from decimal import Decimal

    from django.db import connection
    from django.utils import timezone

    from tracker.models import Ad, Keyword

    history_seed.seed(connection, plan, timezone.now(), only=history_seed.CONFIGURATION)
    ads = Ad.objects.bulk_create(
        Ad(
            source="willhaben",
            external_id=f"e{i}",
            title=f"Empty {i}",
            price=Decimal(1),
            url=f"https://example.invalid/{i}",
        )
        for i in range(DUE_ROWS)
    )
    keywords = Keyword.objects.order_by("pk").values_list("pk", flat=True)[:DUE_KEYWORDS]
    return {"due_keywords": list(keywords), "ads": ads}


def drop_empty_fixtures():
    from django_q.models import OrmQ

    from notifications.models import TelegramChat
    from scraping.models import ScrapeRun
    from tracker.models import Ad, Keyword

    ScrapeRun.objects.all().delete()
    OrmQ.objects.all().delete()
    TelegramChat.objects.all().delete()  # cascades to their subscriptions and notifications
    Ad.objects.all().delete()
    Keyword.objects.all().delete()


def big_fixtures():
    from tracker.models import Ad, Keyword

    return {
        "due_keywords": list(
            Keyword.objects.order_by("pk").values_list("pk", flat=True)[:DUE_KEYWORDS]
        ),
        "ads": list(Ad.objects.order_by("pk")[:DUE_ROWS]),
    }


def table_mb(tables):
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT sum(pg_total_relation_size(t::regclass)) FROM unnest(%s::text[]) t", [tables]
        )
        return round(int(cursor.fetchone()[0]) / 1e6, 1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--months", type=int, default=6)
    parser.add_argument(
        "--scale", type=float, default=1.0, help="fraction of the row counts (quick trials only)"
    )
    parser.add_argument(
        "--full",
        action="store_true",
        help="seed every run and notification of the period, then apply retention",
    )
    args = parser.parse_args()

    from tests.fakes.telegram import FakeTelegram
    from tests.fakes.willhaben import FakeWillhaben

    telegram, willhaben = FakeTelegram().start(), FakeWillhaben().start()
    engine = setup_django(
        HEALTHCHECK_SCHEDULER_STALE_S=10**9,
        HEALTHCHECK_BOT_STALE_S=10**9,
        TELEGRAM_BOT_TOKEN=telegram.token,
        TELEGRAM_API_BASE_URL=telegram.base_url,
        TELEGRAM_MAX_PER_SECOND=10_000,
        WILLHABEN_BASE_URL=willhaben.base_url,
        SCHEDULER_CLAIM_LIMIT=1000,
        STATS_TOKEN="",
    )
    if engine != "postgresql":
        sys.exit(
            "bench/history.py seeds with generate_series: set DATABASE_URL to a PostgreSQL server"
        )
    try:
        run(args)
    finally:
        telegram.stop()
        willhaben.stop()


def run(args):
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.utils import timezone

    from scraping import retention

    get_user_model().objects.create_superuser("bench", password="bench-pass-123")
    client = Client(HTTP_HOST="localhost")
    client.login(username="bench", password="bench-pass-123")

    days = 30 * args.months
    run_days = days if args.full else min(days, settings.RETENTION_RUNS_DAYS)
    note_days = days if args.full else min(days, settings.RETENTION_NOTIFICATIONS_DAYS)
    plan = history_seed.Plan.make(args.months, run_days, note_days, args.scale)
    empty = measure(client, empty_fixtures(plan))
    print(f"empty: {empty}", flush=True)
    drop_empty_fixtures()
    print(f"seeding {plan.as_dict()}", flush=True)
    t0 = time.perf_counter()
    rows = history_seed.seed(connection, plan, timezone.now())
    seed_s = round(time.perf_counter() - t0, 1)
    t0 = time.perf_counter()
    pruned = retention.prune().counts
    prune_s = round(time.perf_counter() - t0, 1)
    print(f"retention deleted {pruned} in {prune_s} s", flush=True)
    big = measure(client, big_fixtures())

    growing_mb, bounded_mb = table_mb(GROWING), table_mb(BOUNDED)
    pages = {name: {"empty_ms": empty[name], "big_ms": big[name]} for name in empty}
    for name, figures in pages.items():
        print(f"  {name:26} empty {figures['empty_ms']:8.1f} ms   big {figures['big_ms']:8.1f} ms")
    print(
        f"  ads + links + price changes {growing_mb} MB over {args.months} months; runs + "
        f"notifications (bounded) {bounded_mb} MB"
    )
    print(
        json.dumps(
            {
                "bench": "history",
                "database": "postgresql",
                "months": args.months,
                "full": args.full,
                "scale": args.scale,
                "seeded": rows,
                "seed_s": seed_s,
                "pruned": pruned,
                "prune_s": prune_s,
                "pages": pages,
                "worst_big_ms": max(f["big_ms"] for f in pages.values()),
                "worst_ratio": round(
                    max(f["big_ms"] / max(f["empty_ms"], 0.1) for f in pages.values()), 2
                ),
                "growing_tables_mb": growing_mb,
                "bounded_tables_mb": bounded_mb,
                "db_mb_per_month": round(growing_mb / args.months, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
