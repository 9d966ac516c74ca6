"""An ad is judged against what its keyword found lately: similar titles, no relists, per m²."""

from datetime import timedelta
from decimal import Decimal as D

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests.factories import make_ad, make_keyword
from tracker.comparables import Comparables
from tracker.models import KeywordAd
from tracker.price_judgement import PriceLabel, judge_price

pytestmark = pytest.mark.django_db

BIKE = "Specialized Rennrad Carbon 56 cm"
OTHER_TITLES = ["Fahrradschloss Abus", "Fahrradhelm Uvex Gr. M", "Luftpumpe", "Kettenöl"]


def link(keyword, price, title, *, found_at=None, **ad_fields):
    ad = make_ad(title=title, price=price, **ad_fields)
    KeywordAd.objects.create(
        keyword=keyword, ad=ad, price=price, found_at=found_at or timezone.now()
    )
    return ad


def bikes(keyword, count=20):
    """`count` bikes at € 1.000, 1.010, … (20: median € 1.095)."""
    return [link(keyword, D(1000 + 10 * i), f"{BIKE} Nr. {i}") for i in range(count)]


def cheap_other_things(keyword, count=20):
    return [link(keyword, D(20 + i), OTHER_TITLES[i % 4]) for i in range(count)]


def test_similar_titles_are_the_comparables_when_enough_remain():
    kw = make_keyword()
    bikes(kw)
    cheap_other_things(kw)
    judgement = judge_price(kw, D("673.59"), BIKE)
    assert judgement.n == 20 and judgement.narrowed
    assert judgement.median == D("1095.00")
    assert judgement.percent == D("-38.5")
    assert judgement.label == PriceLabel.DEAL
    assert judgement.lowest and judgement.percentile == 0.0


def test_all_ads_count_when_too_few_have_a_similar_title():
    kw = make_keyword()
    bikes(kw, count=7)
    cheap_other_things(kw, count=13)
    judgement = judge_price(kw, D(500), BIKE)
    assert judgement.n == 20 and not judgement.narrowed


def test_too_few_comparables_give_no_judgement():
    kw = make_keyword()
    bikes(kw, count=7)
    judgement = judge_price(kw, D(500), BIKE)
    assert judgement.label == PriceLabel.TOO_FEW and judgement.n == 7
    assert judgement.median is None


def test_old_free_and_priceless_ads_are_left_out_but_gone_ones_count_with_their_last_price():
    kw = make_keyword()
    bikes(kw, count=8)
    now = timezone.now()
    link(kw, D(5), BIKE, found_at=now - timedelta(days=91))
    link(kw, D(0), BIKE)
    link(kw, None, BIKE)
    gone = link(kw, D(1500), BIKE, gone_at=now - timedelta(days=3))
    comparables = Comparables.load(kw, now=now)
    assert len(comparables.rows) == 9
    assert gone.pk in {r.ad_id for r in comparables.rows}


def test_the_ad_and_its_relist_chain_are_left_out():
    kw = make_keyword()
    bikes(kw, count=8)
    first = link(kw, D(1), BIKE, gone_at=timezone.now())
    second = link(kw, D(2), BIKE, relist_of=first, gone_at=timezone.now())
    ad = link(kw, D(3), BIKE, relist_of=second)
    later = link(kw, D(4), BIKE, relist_of=ad)
    judgement = judge_price(kw, D(500), BIKE, exclude_ad=ad)
    assert judgement.n == 8
    assert Comparables.load(kw).chain(ad.pk, ad.relist_of_id) == {
        first.pk,
        second.pk,
        ad.pk,
        later.pk,
    }


def test_flats_with_a_living_area_are_compared_per_square_metre():
    kw = make_keyword()
    # € 1.000 … € 1.700 for 50 m²: € 20 … € 34 per m², median € 27
    for i in range(8):
        link(kw, D(1000 + 100 * i), f"Wohnung {i}", living_area=D(50))
    link(kw, D(900), "Wohnung 8")  # no area
    judgement = judge_price(kw, D(1400), "Wohnung", area=D(100))
    assert judgement.per_m2 and judgement.n == 8
    assert judgement.median == D("27.00")
    assert judgement.label == PriceLabel.DEAL  # € 14/m²: 48 % under
    by_price = judge_price(kw, D(1400), "Wohnung")
    assert not by_price.per_m2 and by_price.n == 9


def test_a_bait_word_far_under_the_market_is_suspicious():
    kw = make_keyword()
    bikes(kw)
    cheap_other_things(kw)
    judgement = judge_price(kw, D("673.59"), f"{BIKE} defekt")
    assert judgement.label == PriceLabel.SUSPICIOUS


def test_comparables_are_one_query_however_many_prices_are_judged():
    kw = make_keyword()
    bikes(kw)
    with CaptureQueriesContext(connection) as queries:
        comparables = Comparables.load(kw)
        for price in range(500, 1500, 50):
            comparables.judge(D(price), BIKE)
    assert len(queries) == 1


def test_a_page_judged_at_once_is_judged_as_one_by_one():
    kw = make_keyword()
    bikes(kw)
    cheap_other_things(kw)
    items = [(D(700), BIKE, None, None, None), (D(25), OTHER_TITLES[0], None, None, None)]
    comparables = Comparables.load(kw)
    assert comparables.judge_all(items) == [
        Comparables.load(kw).judge(price, title) for price, title, *_ in items
    ]


def test_a_flat_among_too_few_with_an_area_is_compared_by_price():
    kw = make_keyword()
    for i in range(8):
        link(kw, D(1000 + 100 * i), f"Wohnung {i}")
    link(kw, D(1000), "Wohnung 9", living_area=D(50))
    judgement = judge_price(kw, D(1400), "Wohnung", area=D(100))
    assert not judgement.per_m2 and judgement.n == 9
