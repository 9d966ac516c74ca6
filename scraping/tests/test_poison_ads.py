"""Hostile ads on a page: the ones the columns cannot hold are skipped and counted, the rest
stored."""

from decimal import Decimal

import pytest

from scraping.models import ScrapeRun
from scraping.scrape import scrape_keyword
from scraping.sources.fit import BadAd, fit_ad, image_url
from scraping.sources.willhaben import build_page
from tests.factories import make_keyword
from tests.fakes.willhaben_factory import make_raw_ad, make_raw_ads, search_result, set_price
from tracker.models import Ad

pytestmark = pytest.mark.django_db


def _poisoned_page():
    """Thirty ads, three of them poison: a NaN price, a 15-digit price, a 70-character id."""
    ads = make_raw_ads(30)
    set_price(ads[3], "NaN")
    set_price(ads[10], "123456789012345")
    ads[20]["id"] = "9" * 70
    return ads


def _run(keyword):
    run = ScrapeRun.objects.create(keyword=keyword, source="willhaben")
    scrape_keyword(keyword, run)
    run.refresh_from_db()
    return run


def test_poison_ads_are_skipped_and_counted_on_every_run(willhaben_server):
    willhaben_server.set_ads(_poisoned_page())
    keyword = make_keyword(query="grafikkarte")
    for _ in range(2):
        run = _run(keyword)
        assert (run.status, run.error) == ("done", "")
        assert run.counters["bad_ads"] == 3
        assert run.ads_seen == 27
        assert "NaN" in run.detail
    assert Ad.objects.count() == 27


def test_nul_and_overlong_text_is_clipped_not_skipped(willhaben_server):
    raw = make_raw_ad(title="A\x00" + "b" * 700, location="W\x00" + "x" * 300)
    raw["attributes"]["attribute"].append(
        {"name": "SEO_URL", "values": ["kaufen-und-verkaufen/d/a-1/"]}
    )
    willhaben_server.set_ads([raw])
    keyword = make_keyword(query="grafikkarte")
    run = _run(keyword)
    assert run.status == "done" and "bad_ads" not in run.counters
    ad = Ad.objects.get()
    assert ad.title == ("A" + "b" * 700)[:500] and ad.location == ("W" + "x" * 300)[:200]


@pytest.mark.parametrize(
    "mutate",
    [
        lambda raw: set_price(raw, "Infinity"),
        lambda raw: set_price(raw, "1e40"),
        lambda raw: set_price(raw, "-10000000000"),
        lambda raw: raw["attributes"]["attribute"].append(
            {"name": "SEO_URL", "values": ["x" * 1000]}
        ),
        lambda raw: raw.update(id="12\x0034"),
        lambda raw: raw["attributes"]["attribute"].append(
            {"name": "PUBLISHED", "values": ["9" * 30]}
        ),
    ],
)
def test_each_kind_of_poison_is_one_bad_ad(mutate):
    raws = make_raw_ads(3)
    mutate(raws[1])
    page = build_page(
        search_result(raws, rows_found=3, rows_requested=30, page=1, path="x"),
        number=1,
        rows=30,
        cursor=None,
    )
    assert [a.external_id for a in page.ads] == [raws[0]["id"], raws[2]["id"]]
    assert len(page.extra["bad_ads"]) == 1


def test_a_price_at_the_column_limit_is_kept():
    raws = make_raw_ads(1)
    set_price(raws[0], "9999999999.99")
    page = build_page(
        search_result(raws, rows_found=1, rows_requested=30, page=1, path="x"),
        number=1,
        rows=30,
        cursor=None,
    )
    assert page.ads[0].price == Decimal("9999999999.99") and "bad_ads" not in page.extra


def test_fit_ad_rejects_an_empty_id():
    page = build_page(
        search_result(make_raw_ads(1), rows_found=1, rows_requested=30, page=1, path="x"),
        number=1,
        rows=30,
        cursor=None,
    )
    ad = page.ads[0]
    with pytest.raises(BadAd):
        fit_ad(ad.__class__(**{**ad.__dict__, "external_id": ""}))


@pytest.mark.parametrize(
    ("value", "kept"),
    [
        ("https://cache.willhaben.at/a.jpg", True),
        ("http://cache.willhaben.at/a.jpg", True),
        ("/etc/hostname", False),
        ("/proc/self/environ", False),
        ("file:///etc/passwd", False),
        ("attach://x", False),
        ("https:///nohost", False),
        ("https://x/\x00", False),
        ("https://x/" + "a" * 1000, False),
        ("http://[::1", False),
    ],
)
def test_only_absolute_http_image_urls_are_kept(value, kept):
    assert image_url(value) == (value if kept else "")
