"""A real estate ad's living area is read from willhaben's attributes for the per-m² judgement."""

from decimal import Decimal

import pytest

from scraping.sources.willhaben import WillhabenSource
from scraping.sources.willhaben_values import living_area
from tests.paths import willhaben_fixture


def test_the_recorded_flat_page_gives_each_ad_its_living_area():
    body = willhaben_fixture("FridljDa__willhaben__tests__test_data__response_content.html")
    page = WillhabenSource().parse(body.read_bytes(), number=1, rows=200)
    areas = [ad.living_area for ad in page.ads]
    assert all(area is not None and area > 0 for area in areas)
    # The first flat of the recorded page (ESTATE_SIZE/LIVING_AREA "52" in the file).
    assert Decimal("52") in areas


def test_the_marketplace_page_has_no_area():
    body = willhaben_fixture("ramyodev__WillhabenApiReader__examples__example_response.json")
    page = WillhabenSource().parse(body.read_bytes(), number=1, rows=200)
    assert {ad.living_area for ad in page.ads} == {None}


@pytest.mark.parametrize(
    ("text", "area"),
    [("52", Decimal("52.00")), ("52,5", Decimal("52.50")), (" 48.25 ", Decimal("48.25"))],
)
def test_area_values(text, area):
    assert living_area(text) == area


@pytest.mark.parametrize("text", ["", "abc", "0", "-20", "NaN", "Infinity", "100000", "9" * 40])
def test_an_area_we_cannot_trust_is_dropped(text):
    assert living_area(text) is None
