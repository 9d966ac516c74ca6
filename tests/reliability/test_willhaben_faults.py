"""Fault 4: willhaben answers 429 with Retry-After, then 403 streaks, then garbage, then a changed
schema.

One keyword, one real qcluster. Each window is claimed by the tick and scraped by a
worker; every bad answer ends its run `banned` or `failed` with a slug, the same
worker processes keep serving (none died and was replaced), and the first good
answer afterwards is processed like any other.
"""

import pytest
from django.utils import timezone

from notifications.models import Notification
from scraping.models import ScrapeRun
from scraping.tick import tick
from tests.factories import make_subscription
from tests.fakes.willhaben_factory import make_raw_ads
from tests.processes import wait_for
from tracker.models import Ad, Keyword

pytestmark = [
    pytest.mark.reliability,
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(150),
]


def _run_window(keyword, server):
    """Make the keyword due, tick, wait for the worker; returns (run, search requests of this
    run)."""
    before = len(server.search_requests())
    Keyword.objects.filter(pk=keyword.pk).update(next_run_at=timezone.now())
    assert tick()["claimed"] == 1
    run = ScrapeRun.objects.filter(keyword=keyword).latest("pk")
    wait_for(
        lambda: ScrapeRun.objects.get(pk=run.pk).status != "running",
        30,
        f"run {run.pk} to finish",
        interval=0.1,
    )
    run.refresh_from_db()
    return run, server.search_requests()[before:]


def test_bad_answers_end_runs_with_slugs_and_the_worker_carries_on(
    willhaben_server, clusters, report
):
    now = timezone.now()
    sub = make_subscription()
    keyword = sub.keyword
    keyword.cursor_published_at, keyword.cursor_ad_id = now.replace(year=now.year - 1), "1"
    keyword.save()
    willhaben_server.set_ads(make_raw_ads(3, newest=now))
    cluster = clusters(
        workers=1,
        WILLHABEN_BASE_URL=willhaben_server.base_url,
        SCRAPE_MIN_REQUEST_GAP_MS=0,
        SCRAPE_MAX_PAGES=1,
        HTTP_RETRIES=1,
        HTTP_BACKOFF_BASE_S=0.05,
        HTTP_BACKOFF_MAX_S=0.1,
        HTTP_RETRY_AFTER_MAX_S=5,
    )
    workers = set(cluster.processes())
    outcomes = []

    # 429 with Retry-After: 1 → waited for, retried once, still 429 → banned.
    willhaben_server.fail_next(status=429, times=2, retry_after=1)
    run, requests = _run_window(keyword, willhaben_server)
    assert (run.status, run.error, len(requests)) == ("banned", "http_429", 2)
    assert requests[1].at - requests[0].at >= 0.95, "Retry-After was not honoured"
    outcomes.append(("429 Retry-After: 1", run.status, run.error))

    # A Retry-After beyond HTTP_RETRY_AFTER_MAX_S is not waited for: banned at once.
    willhaben_server.fail_next(status=429, times=1, retry_after=3600)
    run, requests = _run_window(keyword, willhaben_server)
    assert (run.status, run.error, len(requests)) == ("banned", "http_429", 1)
    outcomes.append(("429 Retry-After: 3600", run.status, run.error))

    # A 403 streak: every window is banned after one request (hammering a block prolongs it).
    for _ in range(3):
        willhaben_server.fail_next(status=403, times=1, body=b"<html>Forbidden</html>")
        run, requests = _run_window(keyword, willhaben_server)
        assert (run.status, run.error, len(requests)) == ("banned", "http_403", 1)
        assert "Forbidden" in run.detail
    outcomes.append(("403 x3", run.status, run.error))

    for mode, status, slug in [
        ("garbage", "failed", "parse_error"),
        ("wrong_json", "failed", "parse_error"),
        ("changed_schema", "failed", "parse_error"),
        ("html_challenge", "banned", "challenge"),
    ]:
        willhaben_server.mode = mode
        run, _ = _run_window(keyword, willhaben_server)
        assert (run.status, run.error) == (status, slug), (mode, run.detail)
        outcomes.append((mode, run.status, run.error))
    assert "\x00" not in run.detail

    # Back to normal: the next good answer is processed like any other.
    willhaben_server.mode = "ok"
    run, _ = _run_window(keyword, willhaben_server)
    assert (run.status, run.error, run.ads_seen, run.ads_new) == ("done", "", 3, 3)
    assert Ad.objects.count() == 3
    assert Notification.objects.filter(chat=sub.chat).count() == 3
    keyword.refresh_from_db()
    assert keyword.cursor_published_at is not None and keyword.cursor_published_at > now.replace(
        year=now.year - 1
    )

    # The same processes served every window: no worker crashed and was replaced.
    assert set(cluster.processes()) == workers
    assert "reincarnated" not in cluster.log_tail(100_000)
    report(
        windows=ScrapeRun.objects.filter(keyword=keyword).count(),
        outcomes=outcomes,
        workers_replaced=0,
    )
