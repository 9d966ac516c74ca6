"""Ingest judges every new ad and moved price against the keyword's comparables, once per page."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from scraping.ingest import ingest_page
from scraping.sources.base import ParsedAd
from tests.factories import make_keyword, make_subscription
from tracker.models import KeywordAd

pytestmark = pytest.mark.django_db
T0 = datetime(2025, 6, 1, 12, tzinfo=UTC)


def bike(i, price, *, title="Specialized Rennrad Carbon 56", minutes=0):
    return ParsedAd(
        external_id=str(7000 + i),
        title=f"{title} Nr. {i}",
        price=Decimal(price),
        url=f"https://www.willhaben.at/iad/x-{7000 + i}/",
        published_at=T0 + timedelta(minutes=minutes or i),
    )


def market(keyword):
    """20 bikes at € 1.000 … € 1.190 (median € 1.095), linked quietly a day before."""
    ingest_page(
        keyword,
        [bike(i, 1000 + 10 * i) for i in range(20)],
        source="willhaben",
        notify=False,
        now=T0 - timedelta(days=1),
    )


def link(keyword, i):
    return KeywordAd.objects.get(keyword=keyword, ad__external_id=str(7000 + i))


def test_a_new_ad_is_judged_against_the_keywords_earlier_ads_and_the_link_keeps_it():
    keyword = make_keyword()
    market(keyword)
    ingest_page(keyword, [bike(100, "673.59", minutes=300)], source="willhaben", now=T0)
    row = link(keyword, 100)
    assert row.price_label == "deal" and row.price_n == 20
    assert row.price_median == Decimal("1095.00") and row.price_percent == Decimal("-38.5")
    assert row.price_lowest and not row.price_per_m2


def test_a_price_drop_is_judged_again():
    keyword = make_keyword()
    market(keyword)
    assert link(keyword, 5).price_label == "too_few"  # the first page had nothing to compare
    ingest_page(keyword, [bike(5, 800)], source="willhaben", now=T0)
    row = link(keyword, 5)
    # Against the 19 others: median € 1.100, 800 is 27.3 % under it.
    assert row.price_label == "deal" and row.price_n == 19
    assert row.price_median == Decimal("1100.00") and row.price_percent == Decimal("-27.3")


def test_the_ads_of_one_page_do_not_judge_each_other():
    keyword = make_keyword()
    ingest_page(keyword, [bike(i, 1000) for i in range(30)], source="willhaben", now=T0)
    assert {row.price_label for row in KeywordAd.objects.all()} == {"too_few"}


def test_judging_costs_one_query_per_page_however_long_the_page():
    keyword = make_keyword()
    make_subscription(keyword=keyword)
    market(keyword)
    with CaptureQueriesContext(connection) as small:
        ingest_page(
            keyword,
            [bike(100 + i, 900, minutes=300 + i) for i in range(5)],
            source="willhaben",
            now=T0,
        )
    with CaptureQueriesContext(connection) as large:
        ingest_page(
            keyword,
            [bike(200 + i, 900, minutes=400 + i) for i in range(30)],
            source="willhaben",
            now=T0,
        )
    # The comparables' query: the keyword's links joined with their ads' titles and areas.
    comparables = [
        q["sql"]
        for q in large.captured_queries
        if '"tracker_keywordad"' in q["sql"] and '"living_area"' in q["sql"]
    ]
    assert len(comparables) == 1
    assert len(large) == len(small)
    assert {
        row.price_label for row in KeywordAd.objects.filter(ad__external_id__startswith="72")
    } == {"deal"}
