"""Fault 6 (scale-out): two clusters on one database, 1,000 due keywords, once on each broker.

Two `qcluster` processes share the queue (the ORM broker's table, or one Redis list);
two tick processes run the scheduler's tick at the same time, repeatedly, so their
claims interleave (SCHEDULER_CLAIM_LIMIT=100 per tick). Whatever the queue does,
each keyword's window is scraped exactly once (one ScrapeRun, one search request at
the fake server) and each notification reaches the fake Bot API exactly once.
"""

import time

import pytest
from django.conf import settings
from django.utils import timezone

from notifications.models import Notification, Subscription, TelegramChat
from scraping.models import ScrapeRun
from tests.fakes.willhaben_factory import make_raw_ad
from tests.processes import child_env, run_shell_scripts, wait_for
from tracker.models import Keyword

pytestmark = [
    pytest.mark.reliability,
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(300),
]

KEYWORDS = 1000
SUBSCRIBED = 100  # every 10th keyword has its own chat: 100 notifications
TICK_LOOP = """
from scraping.tick import tick
from notifications.models import Notification
for _ in range(200):
    result = tick()
    if not result["claimed"] and not Notification.objects.filter(status="pending").exists():
        break
"""


def _seed(server):
    now = timezone.now()
    year_ago = now.replace(year=now.year - 1)
    keywords = Keyword.objects.bulk_create(
        Keyword(
            query=f"scale {i}",
            interval_minutes=60,
            next_run_at=now,
            cursor_published_at=year_ago,
            cursor_ad_id="1",
        )
        for i in range(KEYWORDS)
    )
    for kw in keywords:
        server.ads_for_query[kw.query] = [make_raw_ad(published=now)]
    chats = TelegramChat.objects.bulk_create(
        TelegramChat(chat_id=50_000 + i, status=TelegramChat.Status.ACTIVE)
        for i in range(SUBSCRIBED)
    )
    Subscription.objects.bulk_create(
        Subscription(chat=chat, keyword=keywords[i * 10]) for i, chat in enumerate(chats)
    )
    return keywords


def _tick_processes(env, n=2):
    run_shell_scripts(TICK_LOOP, env, n, timeout=240)


def test_two_clusters_scrape_each_keyword_once_and_notify_once(
    broker, willhaben_server, telegram, clusters, report
):
    willhaben_server.latency_s = 0.005
    _seed(willhaben_server)
    # Deep sweeps (issue 17) spread over a very long period: this test is about the scheduled window
    # only.
    env = dict(
        broker,
        SCRAPE_SWEEP_HOURS=1_000_000,
        WILLHABEN_BASE_URL=willhaben_server.base_url,
        SCRAPE_MIN_REQUEST_GAP_MS=0,
        SCRAPE_MAX_PAGES=1,
        NOTIFY_ON_FIRST_RUN=True,
        SCHEDULER_CLAIM_LIMIT=100,
        TELEGRAM_BOT_TOKEN=telegram.token,
        TELEGRAM_API_BASE_URL=telegram.base_url,
        SECRET_KEY=settings.SECRET_KEY,
        LOG_LEVEL="WARNING",
    )
    started = time.monotonic()
    clusters(workers=2, **env)
    clusters(workers=2, **env)
    _tick_processes(child_env(**env))  # claims interleave; the clusters scrape meanwhile
    wait_for(
        lambda: not ScrapeRun.objects.filter(status="running").exists(),
        180,
        "every run to finish",
        interval=0.5,
    )
    scraped_s = time.monotonic() - started
    _tick_processes(child_env(**env))  # both send what is left of the outbox at the same time
    elapsed = time.monotonic() - started

    runs = ScrapeRun.objects.values_list("keyword_id", "status")
    assert len(runs) == KEYWORDS, f"{len(runs)} runs for {KEYWORDS} keywords"
    assert {status for _, status in runs} == {"done"}
    assert len({kw for kw, _ in runs}) == KEYWORDS
    per_query = {}
    for request in willhaben_server.search_requests():
        per_query[request.param("keyword")] = per_query.get(request.param("keyword"), 0) + 1
    assert len(per_query) == KEYWORDS
    twice = {q: n for q, n in per_query.items() if n != 1}
    assert not twice, f"scraped more than once: {list(twice.items())[:5]}"

    assert Notification.objects.count() == SUBSCRIBED
    assert Notification.objects.filter(status="sent").count() == SUBSCRIBED
    assert len(telegram.messages) == SUBSCRIBED
    assert telegram.sent_twice() == 0
    report(
        broker=broker["Q_BROKER"],
        keywords=KEYWORDS,
        scraped_twice=len(twice),
        notifications=SUBSCRIBED,
        duplicated=telegram.sent_twice(),
        lost=SUBSCRIBED - len(telegram.messages),
        scraped_in_s=round(scraped_s, 1),
        total_s=round(elapsed, 1),
    )
