"""Deep sweeps: past the cursor at the largest page size, claimed like scheduled runs (issue 17)."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from notifications.models import Notification
from scraping.claims import claim_due_keywords, claim_due_sweeps
from scraping.models import ScrapeRun
from tests.factories import make_keyword, make_subscription
from tests.fakes.willhaben_factory import BASE_TIME, make_raw_ads, set_price
from tracker.models import Ad, Keyword, KeywordAd, PriceChange

pytestmark = pytest.mark.django_db


def scrape(*args):
    out = StringIO()
    call_command("scrape", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def thirty_ads(willhaben_server, settings):
    settings.SCRAPE_ROWS = 15
    settings.SCRAPE_MAX_PAGES = 1
    ads = make_raw_ads(30, price="180")
    willhaben_server.set_ads(ads)
    return ads


def test_a_sweep_sees_a_price_cut_on_page_two_that_a_cursor_run_misses(
    willhaben_server, thirty_ads
):
    keyword = make_keyword()
    chats = [make_subscription(keyword=keyword).chat for _ in range(2)]
    make_subscription(
        keyword=keyword, drop_rule="below", drop_value=100
    )  # the target is lower: no row
    scrape(str(keyword.pk), "--pages", "2")  # the first run knows all 30 ads
    assert KeywordAd.objects.filter(keyword=keyword).count() == 30
    set_price(thirty_ads[20], "120")  # page 2 of 15

    scrape(str(keyword.pk))  # a cursor run: page 1 reaches the cursor
    assert PriceChange.objects.count() == 0 and Notification.objects.count() == 0

    willhaben_server.reset_counters()
    out = scrape(str(keyword.pk), "--sweep")
    assert "1 page(s), 30 ads, 0 new, 1 price drops" in out
    assert willhaben_server.search_requests()[0].param("rows") == "200"
    change = PriceChange.objects.get()
    assert (change.old_price, change.new_price) == (180, 120)
    drops = Notification.objects.filter(kind=Notification.Kind.PRICE_DROP)
    assert sorted(drops.values_list("chat_id", flat=True)) == sorted(c.pk for c in chats)
    assert not Notification.objects.filter(kind=Notification.Kind.NEW).exists()
    assert ScrapeRun.objects.filter(kind=ScrapeRun.Kind.SWEEP, status="done").count() == 1


def test_a_sweep_links_backlog_quietly_and_announces_ads_newer_than_the_cursor(
    willhaben_server, thirty_ads
):
    keyword = make_keyword()
    make_subscription(keyword=keyword)
    scrape(str(keyword.pk))  # knows page 1 only; the cursor is its newest ad
    newer = make_raw_ads(1, newest=BASE_TIME + timedelta(hours=1))
    willhaben_server.set_ads(newer + thirty_ads)
    scrape(str(keyword.pk), "--sweep")
    assert KeywordAd.objects.filter(keyword=keyword).count() == 31
    new = Notification.objects.filter(kind=Notification.Kind.NEW)
    assert list(new.values_list("ad__external_id", flat=True)) == [newer[0]["id"]]


def test_sweeps_are_spread_over_the_period_and_claimed_like_runs(willhaben_server, settings):
    settings.SCRAPE_SWEEP_HOURS = 6
    now = timezone.now()
    keywords = [make_keyword(next_run_at=now + timedelta(hours=1)) for _ in range(20)]
    assert claim_due_sweeps(now) == []  # the first tick spreads them
    times = {Keyword.objects.get(pk=k.pk).next_sweep_at for k in keywords}
    assert len(times) == 20 and all(now <= t < now + timedelta(hours=6) for t in times)

    later = now + timedelta(hours=6)
    runs = claim_due_sweeps(later)
    assert len(runs) == 20 and {r.kind for r in runs} == {ScrapeRun.Kind.SWEEP}
    kw = Keyword.objects.get(pk=keywords[0].pk)
    assert kw.next_sweep_at == later + timedelta(hours=6)
    assert kw.next_run_at > later  # the sweep reads page 1: no cursor run collides with it
    assert claim_due_keywords(later) == []
    # A second sweep of a keyword still sweeping is skipped like any run, window left open.
    Keyword.objects.filter(pk=kw.pk).update(next_sweep_at=later)
    assert claim_due_sweeps(later) == []
    skip = ScrapeRun.objects.get(status=ScrapeRun.Status.SKIPPED)
    assert (skip.error, skip.kind) == ("already_running", ScrapeRun.Kind.SWEEP)


def test_a_complete_sweep_marks_missing_ads_gone_and_they_come_back(willhaben_server, thirty_ads):
    keyword = make_keyword()
    scrape(str(keyword.pk), "--sweep")
    removed = thirty_ads.pop(20)
    willhaben_server.set_ads(thirty_ads)
    out = scrape(str(keyword.pk), "--sweep")
    gone = Ad.objects.gone()
    assert list(gone.values_list("external_id", flat=True)) == [removed["id"]]
    assert ScrapeRun.objects.filter(kind="sweep", status="done").first().counters["gone"] == 1
    assert "29 ads" in out
    willhaben_server.set_ads([*thirty_ads, removed])
    scrape(str(keyword.pk), "--sweep")
    assert not Ad.objects.gone().exists()


def test_a_sweep_that_hit_its_page_cap_marks_nothing_gone(willhaben_server, thirty_ads, settings):
    keyword = make_keyword()
    scrape(str(keyword.pk), "--sweep")
    thirty_ads.pop(20)
    settings.SCRAPE_SWEEP_MAX_PAGES = 1
    willhaben_server.set_ads(
        thirty_ads + make_raw_ads(200, newest=BASE_TIME - timedelta(days=30))
    )  # 2 pages of 200
    scrape(str(keyword.pk), "--sweep")
    assert not Ad.objects.gone().exists()
