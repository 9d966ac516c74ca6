"""Parsing real recorded willhaben responses and turning queries into API requests."""

import json
from datetime import timedelta
from decimal import Decimal

import httpx
import pytest

from scraping.errors import BadQuery, FetchError, ParseError
from scraping.sources import UnknownSource, get_handler
from scraping.sources.willhaben import (
    WillhabenSource,
    build_page,
    build_request,
    next_link_pin,
    parse_body,
    reaches_cursor,
)
from tests.fakes.willhaben_factory import make_raw_ad, make_raw_ads, search_result
from tests.paths import willhaben_fixture

FIXTURES = {
    # file: (rows found, ads on the page, ads with a decimal price, nextLink pin)
    "ramyodev__WillhabenApiReader__examples__example_response.json": (3546, 25, 1, "1645231020000"),
    "orangecoding__fredy__test__testFixtures__willhaben.html": (4864, 30, 6, "1787408160000"),
    "FridljDa__willhaben__tests__test_data__response_content.html": (74, 74, 11, None),
}


def _raw_prices(path):
    """Every PRICE value in the file, read independently of the parser under test."""
    text = path.read_text()
    if path.suffix == ".html":
        start = text.index('type="application/json">') + len('type="application/json">')
        text = text[start : text.index("</script>", start)]
    result = json.loads(text)["props"]["pageProps"]["searchResult"]
    return [
        next((a["values"][0] for a in ad["attributes"]["attribute"] if a["name"] == "PRICE"), None)
        for ad in result["advertSummaryList"]["advertSummary"]
    ]


@pytest.mark.parametrize("name", FIXTURES)
def test_recorded_fixture_parses_every_ad_and_price(name):
    path = willhaben_fixture(name)
    rows_found, count, decimals, pin = FIXTURES[name]
    result = parse_body(path.read_bytes())
    page = WillhabenSource().parse(path.read_bytes(), number=1, rows=200)
    assert page.rows_found == rows_found
    assert len(page.ads) == count
    raw_prices = _raw_prices(path)
    assert [ad.price for ad in page.ads] == [
        Decimal(p).quantize(Decimal("0.01")) for p in raw_prices
    ]
    assert sum(1 for ad in page.ads if ad.price != ad.price.to_integral_value()) == decimals
    for ad in page.ads:
        assert ad.external_id.isdigit() and ad.title and ad.published_at is not None
        assert ad.url.startswith("https://www.willhaben.at/iad/") and ad.url.endswith(
            f"-{ad.external_id}/"
        )
        assert ad.image_url.startswith("https://cache.willhaben.at/")
        assert ad.postcode and ad.location
        assert ad.seller_id.isdigit()  # ORGID: in every recorded format
    assert "bad_ads" not in page.extra
    assert next_link_pin(result) == pin


def test_decimal_and_missing_prices():
    result = search_result(
        [make_raw_ad(price="1038.82"), make_raw_ad(price=None), make_raw_ad(price="139")],
        rows_found=3,
        rows_requested=30,
        page=1,
        path="x",
    )
    ads = build_page(result, number=1, rows=30, cursor=None).ads
    assert [ad.price for ad in ads] == [Decimal("1038.82"), None, Decimal("139.00")]


def test_an_unreadable_price_skips_only_its_ad():
    good = make_raw_ad(price="100")
    result = search_result(
        [make_raw_ad(price="ab 100"), good], rows_found=2, rows_requested=30, page=1, path="x"
    )
    page = build_page(result, number=1, rows=30, cursor=None, body=b"{...}")
    assert [ad.external_id for ad in page.ads] == [good["id"]]
    assert page.extra["bad_ads"] == [
        f"ad {result['advertSummaryList']['advertSummary'][0]['id']!r}: price 'ab 100' is not a "
        "number"
    ]


def test_a_page_of_ads_in_an_unknown_shape_is_a_parse_error():
    result = search_result(
        [{"id": "1", "attrs": []}] * 2, rows_found=2, rows_requested=30, page=1, path="x"
    )
    with pytest.raises(ParseError, match="unexpected ad format"):
        build_page(result, number=1, rows=30, cursor=None, body=b"{...}")


def test_garbage_is_a_parse_error_keeping_the_first_500_bytes():
    body = b"x" * 2000
    with pytest.raises(ParseError) as info:
        parse_body(body)
    assert info.value.detail.endswith("the response began: " + "x" * 500)
    assert "x" * 501 not in info.value.detail


def test_json_of_another_shape_is_a_parse_error():
    with pytest.raises(ParseError):
        parse_body(b'{"error": "nope"}')


def test_html_without_next_data_is_a_ban():
    with pytest.raises(FetchError) as info:
        parse_body(b"<html><body>Checking your browser</body></html>")
    assert info.value.banned and info.value.slug == "challenge"


def test_plain_words_search_the_marketplace_newest_first():
    path, params = build_request("rtx 3080")
    assert path == "kaufen-und-verkaufen/marktplatz"
    assert params == [("keyword", "rtx 3080"), ("sort", "1")]


def test_pasted_url_becomes_api_path_and_params_with_keyword_prices_on_top():
    url = (
        "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz/pc-komponenten/grafikkarten-5882"
        "?keyword=rtx&PRICE_TO=500&PRICE_FROM=5&areaId=1&areaId=2&page=3&sort=3&rows=90"
    )
    path, params = build_request(url, price_min=Decimal("10.50"), price_max=Decimal("400.20"))
    assert path == "kaufen-und-verkaufen/marktplatz/pc-komponenten/grafikkarten-5882"
    assert ("areaId", "1") in params and ("areaId", "2") in params and ("keyword", "rtx") in params
    assert ("PRICE_FROM", "10") in params and ("PRICE_TO", "401") in params
    assert ("sort", "1") in params
    assert not {k for k, _ in params} & {"page", "rows"}


def test_url_prices_win_when_narrower():
    _path, params = build_request(
        "https://www.willhaben.at/iad/immobilien/mietwohnungen/wien?PRICE_TO=900",
        price_max=Decimal("1000"),
    )
    assert ("PRICE_TO", "900") in params


def test_foreign_url_is_a_bad_query():
    with pytest.raises(BadQuery):
        build_request("https://www.example.com/iad/kaufen-und-verkaufen/marktplatz?keyword=x")


def _ads(raws):
    result = search_result(raws, rows_found=len(raws), rows_requested=30, page=1, path="x")
    return build_page(result, number=1, rows=30, cursor=None).ads


def test_old_top_ads_do_not_reach_the_cursor():
    raws = make_raw_ads(30)
    cursor_at = _ads(raws)[-1].published_at - timedelta(minutes=5)
    old_pinned = make_raw_ad(published=cursor_at - timedelta(days=30), bumped=True)
    old_topad = make_raw_ad(published=cursor_at - timedelta(days=60), top=True)
    assert not reaches_cursor(_ads([old_pinned, *raws]), (cursor_at, ""))
    assert not reaches_cursor(_ads([*raws, old_topad]), (cursor_at, ""))
    assert reaches_cursor(_ads([old_pinned, *raws]), (_ads(raws)[-1].published_at, ""))


def test_registry_knows_willhaben_and_rejects_unknown():
    assert get_handler("willhaben") is WillhabenSource
    with pytest.raises(UnknownSource):
        get_handler("ebay")


def test_next_data_page_through_mock_transport():
    # A pure parsing check of the HTML form, as a search page (not the API) serves it.
    inner = search_result(make_raw_ads(2), rows_found=2, rows_requested=30, page=1, path="x")
    payload = json.dumps({"props": {"pageProps": {"searchResult": inner}}})
    html = f'<html><script id="__NEXT_DATA__" type="application/json">{payload}</script>'
    transport = httpx.MockTransport(lambda request: httpx.Response(200, text=html))
    with httpx.Client(transport=transport) as client:
        body = client.get("https://www.willhaben.at/iad/x").content
    assert len(build_page(parse_body(body), number=1, rows=30, cursor=None).ads) == 2
