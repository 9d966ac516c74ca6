"""scrape_keyword end to end against the fake willhaben server."""

from datetime import timedelta
from decimal import Decimal

import pytest

from notifications.models import Notification
from scraping.models import ScrapeRun
from scraping.scrape import scrape_keyword
from tests.factories import make_keyword, make_subscription
from tests.fakes.willhaben_factory import make_raw_ad, make_raw_ads, published_ms, set_price
from tracker.models import Ad, KeywordAd, PriceChange

pytestmark = pytest.mark.django_db


@pytest.fixture
def server(willhaben_server):
    willhaben_server.set_ads(make_raw_ads(200))
    return willhaben_server


@pytest.fixture
def keyword():
    return make_keyword(query="grafikkarte")


def _seen_keyword(keyword, server):
    """A keyword whose first run has happened (cursor set), with no requests counted yet."""
    scrape_keyword(keyword)
    keyword.refresh_from_db()
    server.reset_counters()
    return keyword


def test_two_pages_of_thirty_by_default(server, keyword):
    outcome = scrape_keyword(keyword)
    assert outcome.status == "done" and outcome.counts.pages == 2 and outcome.counts.ads_seen == 60
    assert Ad.objects.count() == 60 and KeywordAd.objects.filter(keyword=keyword).count() == 60
    assert [r.param("page") for r in server.search_requests()] == ["1", "2"]
    assert {r.param("rows") for r in server.search_requests()} == {"30"}


def test_max_pages_three_gives_ninety(server, keyword, settings):
    settings.SCRAPE_MAX_PAGES = 3
    assert scrape_keyword(keyword).counts.ads_seen == 90
    assert Ad.objects.count() == 90


def test_page_two_is_pinned_with_published_date_to(server, keyword):
    scrape_keyword(keyword)
    first, second = server.search_requests()
    assert first.param("publishedDateTo") is None
    assert second.param("publishedDateTo") == str(published_ms(server.ads[0]))
    assert first.param("keyword") == "grafikkarte" and first.param("sort") == "1"
    assert first.headers["x-wh-client"].startswith("api@willhaben.at")


def test_cursor_is_the_newest_ad_seen(server, keyword):
    scrape_keyword(keyword)
    keyword.refresh_from_db()
    newest = Ad.objects.order_by("-published_at").first()
    assert (keyword.cursor_published_at, keyword.cursor_ad_id) == (
        newest.published_at,
        newest.external_id,
    )


def test_no_page_two_when_page_one_reaches_the_cursor(server, keyword):
    keyword = _seen_keyword(keyword, server)
    server.set_ads(
        make_raw_ads(5, newest=keyword.cursor_published_at + timedelta(minutes=10)) + server.ads
    )
    outcome = scrape_keyword(keyword)
    assert [r.param("page") for r in server.search_requests()] == ["1"]
    assert outcome.counts.ads_new == 5 and "coverage_gap" not in outcome.counts.extra


def test_old_pinned_ads_do_not_stop_paging(server, keyword):
    keyword = _seen_keyword(keyword, server)
    fresh = make_raw_ads(45, newest=keyword.cursor_published_at + timedelta(hours=2))
    server.set_ads(fresh + server.ads)
    server.top_ads = [
        make_raw_ad(published=keyword.cursor_published_at - timedelta(days=3), bumped=True)
    ]
    outcome = scrape_keyword(keyword)
    assert outcome.counts.pages == 2 and outcome.counts.ads_new == 46


def test_first_run_records_backlog_without_notifying(server, keyword):
    make_subscription(keyword=keyword)
    outcome = scrape_keyword(keyword)
    assert outcome.counts.ads_new == 60 and Notification.objects.count() == 0


def test_first_run_notifies_when_configured(server, keyword, settings):
    settings.NOTIFY_ON_FIRST_RUN = True
    make_subscription(keyword=keyword)
    scrape_keyword(keyword)
    assert Notification.objects.filter(kind="new").count() == 60


def test_after_an_empty_first_run_the_first_ads_are_news(willhaben_server, keyword):
    """A rare search finds nothing at first: its first ad is what the subscriber waits for."""
    sub = make_subscription(keyword=keyword)
    willhaben_server.set_ads([])
    empty = ScrapeRun.objects.create(keyword=keyword, source="willhaben")
    assert scrape_keyword(keyword, empty).counts.ads_seen == 0
    keyword.refresh_from_db()
    assert keyword.cursor_published_at is None

    willhaben_server.set_ads(make_raw_ads(1))
    assert scrape_keyword(keyword).counts.ads_new == 1
    assert Notification.objects.filter(chat=sub.chat, kind="new").count() == 1


def test_new_ads_notify_once_and_a_second_cycle_renotifies_nothing(server, keyword):
    sub = make_subscription(keyword=keyword)
    keyword = _seen_keyword(keyword, server)
    server.set_ads(
        make_raw_ads(3, newest=keyword.cursor_published_at + timedelta(minutes=10)) + server.ads
    )
    scrape_keyword(keyword)
    assert Notification.objects.filter(chat=sub.chat, kind="new").count() == 3
    keyword.refresh_from_db()
    again = scrape_keyword(keyword)
    assert again.status == "done" and again.counts.ads_new == 0
    assert Notification.objects.count() == 3


def test_price_drop_writes_price_change_and_one_notification(server, keyword):
    sub = make_subscription(keyword=keyword)
    keyword = _seen_keyword(keyword, server)
    ad = server.ads[4]
    set_price(ad, "80")
    outcome = scrape_keyword(keyword)
    assert outcome.counts.price_drops == 1
    change = PriceChange.objects.get()
    assert (change.old_price, change.new_price) == (Decimal("100.00"), Decimal("80.00"))
    note = Notification.objects.get()
    assert (note.chat, note.kind, note.price, note.old_price) == (
        sub.chat,
        "price_drop",
        Decimal("80.00"),
        Decimal("100.00"),
    )
    keyword.refresh_from_db()
    scrape_keyword(keyword)
    assert Notification.objects.count() == 1 and PriceChange.objects.count() == 1


def test_coverage_gap_when_cap_is_hit_before_the_cursor(server, keyword):
    keyword = _seen_keyword(keyword, server)
    server.set_ads(
        make_raw_ads(70, newest=keyword.cursor_published_at + timedelta(hours=3)) + server.ads
    )
    outcome = scrape_keyword(keyword)
    assert outcome.counts.pages == 2 and outcome.counts.extra["coverage_gap"] == 1


def test_last_short_page_stops_paging(willhaben_server, keyword):
    willhaben_server.set_ads(make_raw_ads(20))
    outcome = scrape_keyword(keyword)
    assert (
        outcome.counts.pages == 1
        and outcome.counts.ads_seen == 20
        and "coverage_gap" not in outcome.counts.extra
    )


def test_exact_multiple_of_rows_stops_at_rows_found(willhaben_server, keyword, settings):
    settings.SCRAPE_MAX_PAGES = 5
    willhaben_server.set_ads(make_raw_ads(60))
    assert scrape_keyword(keyword).counts.pages == 2
    assert len(willhaben_server.search_requests()) == 2


@pytest.mark.parametrize(
    ("knob", "status", "error"),
    [
        ({"fail": {"status": 503, "times": 99}}, "failed", "http_5xx"),
        ({"fail": {"status": 403, "times": 99}}, "banned", "http_403"),
        ({"fail": {"status": 429, "times": 99, "retry_after": 0}}, "banned", "http_429"),
        ({"mode": "html_challenge"}, "banned", "challenge"),
        ({"mode": "garbage"}, "failed", "parse_error"),
        ({"mode": "wrong_json"}, "failed", "parse_error"),
        ({"latency_s": 0.5}, "failed", "timeout"),
    ],
)
def test_failures_map_to_status_and_slug_and_keep_the_cursor(
    server, keyword, settings, knob, status, error
):
    settings.HTTP_RETRIES = 1
    settings.HTTP_TIMEOUT = 0.2
    keyword = _seen_keyword(keyword, server)
    cursor = (keyword.cursor_published_at, keyword.cursor_ad_id)
    server.set_ads(
        make_raw_ads(3, newest=keyword.cursor_published_at + timedelta(minutes=10)) + server.ads
    )
    if "fail" in knob:
        server.fail_next(**knob["fail"])
    server.mode = knob.get("mode", "ok")
    server.latency_s = knob.get("latency_s", 0)
    run = ScrapeRun.objects.create(keyword=keyword, source="willhaben")
    outcome = scrape_keyword(keyword, run)
    run.refresh_from_db()
    assert (outcome.status, outcome.error) == (status, error)
    assert (run.status, run.error, run.finished_at is not None) == (status, error, True)
    keyword.refresh_from_db()
    assert (keyword.cursor_published_at, keyword.cursor_ad_id) == cursor


def test_parse_error_says_why_and_keeps_the_first_500_bytes(server, keyword):
    server.mode = "garbage"
    outcome = scrape_keyword(keyword)
    assert outcome.error == "parse_error" and outcome.detail.startswith("response is not JSON")
    assert outcome.detail.endswith("the response began: \\x00\x01 not json at all {{{")


def test_failure_on_page_two_keeps_page_one_but_not_the_cursor(server, keyword, settings):
    settings.HTTP_RETRIES = 0
    make_subscription(keyword=keyword)
    keyword = _seen_keyword(keyword, server)
    cursor = (keyword.cursor_published_at, keyword.cursor_ad_id)
    server.set_ads(make_raw_ads(40, newest=cursor[0] + timedelta(hours=1)) + server.ads)
    server.fail_page(2, status=503)
    outcome = scrape_keyword(keyword)
    assert (outcome.status, outcome.error, outcome.counts.pages) == ("failed", "http_5xx", 1)
    assert Notification.objects.count() == 30
    keyword.refresh_from_db()
    assert (keyword.cursor_published_at, keyword.cursor_ad_id) == cursor
    server.clear_page_failures()
    assert scrape_keyword(keyword).status == "done"
    assert Notification.objects.count() == 40


def test_unknown_source_fails_cleanly(keyword):
    keyword.source = "nope"
    outcome = scrape_keyword(keyword)
    assert (outcome.status, outcome.error) == ("failed", "unknown_source")


def test_dry_run_writes_nothing(server, keyword):
    outcome = scrape_keyword(keyword, dry_run=True)
    assert outcome.counts.ads_seen == 60 and Ad.objects.count() == 0
    keyword.refresh_from_db()
    assert keyword.cursor_published_at is None


def test_scrape_run_finish_records_the_outcome(server, keyword):
    run = ScrapeRun.objects.create(keyword=keyword, source="willhaben")
    scrape_keyword(keyword, run)
    run.refresh_from_db()
    assert (run.status, run.pages_fetched, run.ads_seen, run.ads_new) == ("done", 2, 60, 60)
    assert run.counters["notifications"] == 0
