"""Hostile marketplace input through the fake willhaben server: an unreadable field skips its ad
(counted as bad_ads), absurd counts end the run as parse_error, prices are amounts or nothing."""

from decimal import Decimal

import pytest

from scraping.errors import ParseError
from scraping.models import ScrapeRun
from scraping.scrape import scrape_keyword
from scraping.sources.base import ParsedAd
from scraping.sources.fit import BadAd, fit_ad
from scraping.sources.willhaben import MAX_PAGE_ADS, build_page, parse_body
from tests.factories import make_keyword
from tests.fakes.willhaben_factory import make_raw_ad, make_raw_ads, set_price
from tracker.models import Ad

pytestmark = pytest.mark.django_db


def _run(keyword):
    run = ScrapeRun.objects.create(keyword=keyword, source="willhaben")
    scrape_keyword(keyword, run)
    run.refresh_from_db()
    return run


def _set(raw, name, value):
    attrs = [a for a in raw["attributes"]["attribute"] if a["name"] != name]
    raw["attributes"]["attribute"] = [*attrs, {"name": name, "values": [value]}]


@pytest.mark.parametrize(
    ("mutate", "reason"),
    [
        pytest.param(lambda raw: set_price(raw, "abc"), "is not a number", id="price-abc"),
        pytest.param(lambda raw: set_price(raw, "-50"), "is negative", id="price-negative"),
        pytest.param(lambda raw: set_price(raw, "1e-30"), "rounds to 0 cents", id="price-1e-30"),
        pytest.param(lambda raw: set_price(raw, "0.004"), "rounds to 0 cents", id="price-0.004"),
        pytest.param(lambda raw: set_price(raw, "9" * 40), "is not a number", id="price-40-digits"),
        pytest.param(lambda raw: _set(raw, "PUBLISHED", "abc"), "unreadable", id="published-abc"),
        pytest.param(
            lambda raw: (_set(raw, "PUBLISHED", ""), _set(raw, "PUBLISHED_String", "yesterday")),
            "unreadable",
            id="published-string-garbage",
        ),
    ],
)
def test_one_unreadable_field_skips_only_its_ad_on_every_run(willhaben_server, mutate, reason):
    ads = make_raw_ads(3)
    mutate(ads[1])
    willhaben_server.ads = ads  # newest first already; set_ads cannot sort an unreadable time
    keyword = make_keyword(query="grafikkarte")
    for _ in range(2):
        run = _run(keyword)
        assert (run.status, run.error) == ("done", "")
        assert run.counters["bad_ads"] == 1 and run.ads_seen == 2
        assert reason in run.detail and ads[1]["id"] in run.detail
    assert sorted(Ad.objects.values_list("external_id", flat=True)) == sorted(
        [ads[0]["id"], ads[2]["id"]]
    )


@pytest.mark.parametrize("price", ["0", "0.00", "-0", "0e5"])
def test_only_a_literal_zero_is_free(willhaben_server, price):
    willhaben_server.set_ads([make_raw_ad(price=price)])
    run = _run(make_keyword())
    assert run.status == "done" and "bad_ads" not in run.counters
    assert Ad.objects.get().price == Decimal("0.00") and not Ad.objects.get().price.is_signed()


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("rowsFound", float("inf")),
        ("rowsFound", float("nan")),
        ("rowsFound", 10**12),
        ("rowsFound", -1),
        ("rowsFound", 2.5),
        ("rowsFound", "abc"),
        ("rowsFound", True),
        ("rowsFound", [3]),
        ("rowsReturned", float("-inf")),
        ("rowsReturned", "1" * 200),
    ],
)
def test_an_absurd_count_ends_the_run_as_a_parse_error(willhaben_server, field, value):
    willhaben_server.set_ads(make_raw_ads(3))
    willhaben_server.result_fields[field] = value
    keyword = make_keyword()
    run = _run(keyword)
    assert (run.status, run.error) == ("failed", "parse_error")
    assert run.detail.startswith(f"{field} ") and "is not a count" in run.detail
    assert Ad.objects.count() == 0


def test_more_ads_than_any_page_holds_is_a_parse_error(willhaben_server):
    willhaben_server.set_ads(make_raw_ads(30))
    willhaben_server.top_ads = make_raw_ads(MAX_PAGE_ADS, top=True)
    run = _run(make_keyword())
    assert (run.status, run.error) == ("failed", "parse_error")
    assert f"{MAX_PAGE_ADS + 30} ads on one page" in run.detail


def test_a_count_of_1e999_in_the_body_is_a_parse_error_not_an_overflow():
    body = b'{"rowsFound": 1e999, "advertSummaryList": {"advertSummary": []}}'
    with pytest.raises(ParseError, match="rowsFound inf is not a count"):
        build_page(parse_body(body), number=1, rows=30, cursor=None, body=body)


def test_a_negative_price_from_any_source_does_not_fit():
    ad = ParsedAd(external_id="1", title="x", price=Decimal("-50.00"), url="https://x")
    with pytest.raises(BadAd, match="negative"):
        fit_ad(ad)
