"""The weekly market report's figures, checked against numbers worked out by hand."""

import datetime as dt
from decimal import Decimal

import pytest

from tests.factories import make_ad, make_keyword
from tracker.market_report import WEEKS, market_report, quartiles
from tracker.models import KeywordAd, PriceChange

NOW = dt.datetime(2026, 6, 1, 12, 0, tzinfo=dt.UTC)

pytestmark = pytest.mark.django_db


def ago(days):
    return NOW - dt.timedelta(days=days)


def matched(keyword, price, seen_days_ago, gone_days_ago=None, label="", percent=None):
    """An ad `keyword` found when it was first seen, `seen_days_ago`."""
    ad = make_ad(
        price=price,
        first_seen_at=ago(seen_days_ago),
        gone_at=None if gone_days_ago is None else ago(gone_days_ago),
    )
    KeywordAd.objects.create(
        keyword=keyword,
        ad=ad,
        found_at=ago(seen_days_ago),
        price=price,
        price_label=label,
        price_percent=percent,
    )
    return ad


@pytest.fixture
def market():
    """Live: 100, 200, 300 (500 until 10 days ago), 500 (since day 20), 600 (new, day 3);
    on request and free; gone: 1000 (live days 40-2), 50 (days 50-30), 70 (long gone)."""
    kw = make_keyword(name="Rennrad")
    ads = {
        "a100": matched(kw, Decimal("100"), 100, label="deal", percent=Decimal("-30.0")),
        "a200": matched(kw, Decimal("200"), 100, label="deal", percent=Decimal("-10.0")),
        "a300": matched(kw, Decimal("300"), 100, label="fair", percent=Decimal("0.0")),
        "a500": matched(kw, Decimal("500"), 20, label="deal", percent=Decimal("-50.0")),
        "a600": matched(kw, Decimal("600"), 3, label="deal", percent=Decimal("-20.0")),
        "ask": matched(kw, None, 100),
        "free": matched(kw, Decimal("0"), 100),
        "gone1000": matched(kw, Decimal("1000"), 40, 2, label="deal", percent=Decimal("-60.0")),
        "gone50": matched(kw, Decimal("50"), 50, 30),
        "long_gone": matched(kw, Decimal("70"), 200, 100),
    }
    PriceChange.objects.create(
        ad=ads["a300"], old_price=Decimal("500"), new_price=Decimal("300"), seen_at=ago(10)
    )
    other = make_keyword(name="Helm")
    matched(other, Decimal("1"), 1)
    return kw, ads


def test_median_and_band_now_are_the_live_priced_ads(market):
    kw, _ads = market
    report = market_report(kw, NOW)
    now = report.weeks[-1]
    # 100, 200, 300, 500, 600: the middle one, and the values a quarter and three quarters along.
    assert (now.end, now.n) == (NOW, 5)
    assert (now.p25, now.median, now.p75) == (Decimal("200"), Decimal("300"), Decimal("500"))
    assert report.median_now == Decimal("300")


def test_median_four_weeks_ago_uses_the_ads_and_prices_of_then(market):
    kw, _ads = market
    report = market_report(kw, NOW)
    then = report.weeks[-5]
    # Day 28: 100, 200, 500 (the 300 ad before its drop), 1000 (not gone yet); 50 went on day 30.
    assert (then.end, then.n) == (ago(28), 4)
    assert then.median == Decimal("350")
    # A quarter along: 100 + 0.75 * 100; three quarters: 500 + 0.25 * 500.
    assert (then.p25, then.p75) == (Decimal("175"), Decimal("625"))
    assert report.median_before == Decimal("350")


def test_twelve_weekly_points_oldest_first(market):
    kw, _ads = market
    weeks = market_report(kw, NOW).weeks
    assert len(weeks) == WEEKS
    assert [w.end for w in weeks] == [ago(7 * i) for i in reversed(range(WEEKS))]
    # Day 77: only the three oldest ads (the 300 one still at 500).
    assert (weeks[0].n, weeks[0].median) == (3, Decimal("200"))


def test_new_and_gone_this_week(market):
    kw, _ads = market
    report = market_report(kw, NOW)
    assert report.new_this_week == 1  # the 600 one, found 3 days ago
    assert report.gone_this_week == 1  # the 1000 one, gone 2 days ago


def test_median_days_to_go_over_the_last_twelve_weeks(market):
    kw, _ads = market
    # 38 days (seen day 40, gone day 2) and 20 days (50 → 30); the ad gone 100 days ago is older.
    assert market_report(kw, NOW).median_days_to_go == 29


def test_best_three_live_deals_furthest_under_the_median_first(market):
    kw, ads = market
    deals = market_report(kw, NOW).deals
    assert [d.url for d in deals] == [ads[k].url for k in ("a500", "a100", "a600")]
    assert [d.percent for d in deals] == [Decimal("-50.0"), Decimal("-30.0"), Decimal("-20.0")]
    assert deals[0].title == ads["a500"].title and deals[0].price == Decimal("500")


def test_a_keyword_without_ads_has_empty_figures():
    kw = make_keyword()
    report = market_report(kw, NOW)
    assert report.median_now is None and report.median_before is None
    assert (report.new_this_week, report.gone_this_week) == (0, 0)
    assert report.median_days_to_go is None and report.deals == []


def test_query_count_does_not_grow_with_the_ads(market, django_assert_num_queries):
    kw, _ads = market
    # The window's ads, their price changes, the new matches, the deals.
    with django_assert_num_queries(4):
        market_report(kw, NOW)
    for _ in range(10):
        matched(kw, Decimal("123"), 5)
    with django_assert_num_queries(4):
        market_report(kw, NOW)


def test_quartiles_interpolate_ties_and_single_values():
    assert quartiles([]) == (None, None, None)
    assert quartiles([Decimal("7")]) == (Decimal("7"), Decimal("7"), Decimal("7"))
    # Ties: a quarter along is 10; three quarters along is 10 + 0.25 * 30.
    assert quartiles([Decimal(v) for v in (40, 10, 10, 10)]) == (
        Decimal("10"),
        Decimal("10"),
        Decimal("17.5"),
    )
