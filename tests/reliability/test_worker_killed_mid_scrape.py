"""Fault 1: `kill -9` a worker in the middle of a scrape.

The worker has stored page 1 (ads + outbox rows, one transaction) and is waiting for
page 2 when it dies. The run stays `running` until the tick reaps it as `zombie`;
the keyword then runs again from its unchanged cursor: page 1's ads are known (no
second notification), page 2's ads are new. Every ad arrives, once.
"""

import time
from datetime import timedelta

import pytest
import time_machine
from django.conf import settings
from django.utils import timezone
from django_q.tasks import async_task

from notifications.models import Notification
from scraping.models import ScrapeRun
from scraping.tick import tick
from tests.factories import make_subscription
from tests.fakes.willhaben_factory import make_raw_ads
from tests.processes import wait_for
from tests.reliability.helpers import alive, kill9
from tracker.models import Ad

pytestmark = [
    pytest.mark.reliability,
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(150),
]


def test_worker_killed_mid_scrape_is_reaped_and_the_keyword_runs_again(
    willhaben_server, telegram, clusters, report
):
    now = timezone.now()
    willhaben_server.set_ads(make_raw_ads(5, newest=now))  # 3 rows per page: pages 1 and 2
    willhaben_server.hang_page(2, seconds=120)
    cluster = clusters(
        workers=2,
        WILLHABEN_BASE_URL=willhaben_server.base_url,
        SCRAPE_MIN_REQUEST_GAP_MS=0,
        SCRAPE_ROWS=3,
        SCRAPE_MAX_PAGES=2,
        HTTP_TIMEOUT=180,
        TELEGRAM_BOT_TOKEN=telegram.token,
        TELEGRAM_API_BASE_URL=telegram.base_url,
    )
    # The first claim happens "16 minutes ago" (past SCRAPE_ZOMBIE_MINUTES), so the real
    # tick after the kill finds a run older than the threshold instead of waiting for it.
    started = now - timedelta(minutes=settings.SCRAPE_ZOMBIE_MINUTES + 1)
    with time_machine.travel(started, tick=True):
        sub = make_subscription()
        keyword = sub.keyword
        keyword.cursor_published_at, keyword.cursor_ad_id = now - timedelta(hours=1), "1"
        keyword.interval_minutes = 60
        keyword.save()
        assert tick()["claimed"] == 1
    first = ScrapeRun.objects.get(keyword=keyword)

    # The worker stored page 1 and now waits for page 2: kill it there.
    page2 = lambda: [r for r in willhaben_server.search_requests() if r.param("page") == "2"]  # noqa: E731
    wait_for(
        page2,
        60,
        f"the request for page 2 ({len(willhaben_server.requests)} requests)\n{cluster.log_tail()}",
    )
    [victim] = wait_for(
        lambda: cluster.pids_connected_to(willhaben_server.port),
        10,
        "the worker talking to willhaben",
    )
    assert Ad.objects.count() == 3 and Notification.objects.count() == 3
    kill9(victim)
    wait_for(lambda: not alive(victim), 10, "the worker to die")
    killed_at = time.monotonic()
    willhaben_server.hang_page(2, 0)
    assert ScrapeRun.objects.get(pk=first.pk).status == ScrapeRun.Status.RUNNING

    result = tick()  # real time: the run is 16 minutes old
    assert (result["reaped"], result["claimed"]) == (1, 1), result
    first.refresh_from_db()
    assert (first.status, first.error) == ("failed", "zombie")
    second = ScrapeRun.objects.exclude(pk=first.pk).get(keyword=keyword)
    wait_for(
        lambda: ScrapeRun.objects.get(pk=second.pk).status != "running",
        60,
        "the second run",
        interval=0.2,
    )
    recovered_s = time.monotonic() - killed_at
    second.refresh_from_db()
    assert (second.status, second.ads_seen, second.ads_new) == ("done", 5, 2), (
        second.error,
        second.detail,
        cluster.log_tail(),
    )

    async_task("scraping.tick.tick")  # the cluster's next tick sends the outbox
    wait_for(
        lambda: Notification.objects.filter(status="sent").count() == 5,
        60,
        "five notifications sent",
        interval=0.3,
    )
    time.sleep(1)  # a late duplicate would arrive now
    assert Ad.objects.count() == 5
    assert Notification.objects.count() == 5
    assert len(telegram.messages) == 5
    assert telegram.sent_twice() == 0
    assert ScrapeRun.objects.filter(keyword=keyword).count() == 2
    report(
        kills=1, lost=0, duplicated=telegram.sent_twice(), recovered_after_s=round(recovered_s, 1)
    )
