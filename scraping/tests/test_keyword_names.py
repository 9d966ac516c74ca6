"""A keyword without a name gets a readable one from its query or pasted URL, shown everywhere."""

from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from scraping.sources.base import Source
from scraping.sources.willhaben import WillhabenSource
from tests.factories import keyword_form
from tracker.models import Keyword

MARKET = "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz"
URL = "https://www.willhaben.at/iad/immobilien/mietwohnungen/wien?PRICE_TO=1100&areaId=900"


@pytest.mark.parametrize(
    "query,bounds,name",
    [
        ("fahrrad", {"price_max": Decimal("500")}, "fahrrad · bis € 500"),
        ("  rtx 3080 ", {}, "rtx 3080"),
        (
            "ski",
            {"price_min": Decimal("100"), "price_max": Decimal("250.50")},
            "ski · € 100 – 250,50",
        ),
        ("ski", {"price_min": Decimal("100")}, "ski · ab € 100"),
        (URL, {}, "Mietwohnungen Wien · bis € 1.100"),
        (URL, {"price_max": Decimal("900")}, "Mietwohnungen Wien · bis € 900"),
        (
            "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=fahrrad&PRICE_FROM=50",
            {},
            "fahrrad · ab € 50",
        ),
        (f"{MARKET}/pc-komponenten/grafikkarten-5882", {}, "Pc-Komponenten Grafikkarten"),
    ],
)
def test_willhaben_describes_words_and_urls(query, bounds, name):
    assert WillhabenSource().describe(query, **bounds) == name


def test_an_unreadable_url_falls_back_to_the_base_description():
    assert (
        WillhabenSource().describe("https://example.com/x")
        == Source().describe("https://example.com/x")
        == "https://example.com/x"
    )


@pytest.mark.django_db
def test_admin_fills_an_empty_name_and_keeps_a_given_one(admin_client):
    assert (
        admin_client.post(reverse("admin:tracker_keyword_add"), keyword_form(query=URL)).status_code
        == 302
    )
    assert (
        admin_client.post(
            reverse("admin:tracker_keyword_add"), keyword_form(query="fahrrad", price_max="500")
        ).status_code
        == 302
    )
    assert (
        admin_client.post(
            reverse("admin:tracker_keyword_add"),
            # Another search: the same one twice is refused as a duplicate.
            keyword_form(query=URL.replace("1100", "900"), name="Wohnung"),
        ).status_code
        == 302
    )
    assert list(Keyword.objects.values_list("name", flat=True)) == [
        "Mietwohnungen Wien · bis € 1.100",
        "fahrrad · bis € 500",
        "Wohnung",
    ]

    out = StringIO()
    try:
        call_command("status", stdout=out, stderr=StringIO())
    except SystemExit:
        pass  # unhealthy (nothing ran yet): the table is printed all the same
    assert "Mietwohnungen Wien" in out.getvalue() and "fahrrad · bis € 500" in out.getvalue()
