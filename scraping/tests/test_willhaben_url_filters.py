"""A pasted willhaben URL's filters beyond words and prices: sent to willhaben, named on the keyword
page, and refused when willhaben offers no such value."""

import pytest
from django.urls import reverse
from django.utils import translation

from scraping.scrape import scrape_keyword
from scraping.sources.willhaben import WillhabenSource
from tests.factories import keyword_form, make_keyword
from tests.fakes.willhaben_factory import make_raw_ads
from tracker.models import Keyword

pytestmark = pytest.mark.django_db

MARKET = "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz/grafikkarten-5882"
FILTERED = (
    f"{MARKET}?sfId=9ac621c3&isNavigation=true&keyword=rtx&areaId=900&areaId=117223"
    "&treeAttributes=23&treeAttributes=2537&ISPRIVATE=1&paylivery=true&PRICE_TO=500"
    "&NO_OF_ROOMS_BUCKET=2X2&page=3&rows=90"
)
FLAT = (
    "https://www.willhaben.at/iad/immobilien/mietwohnungen/mietwohnung-angebote"
    "?areaId=117224&ESTATE_SIZE/LIVING_AREA_FROM=40&PRICE_TO=1100"
)


def test_filters_are_named_in_words():
    source = WillhabenSource()
    with translation.override("en"):
        english = source.url_filters(FILTERED)
    assert english == [
        "region: Wien, Vienna, district 1",
        "condition: used",
        "handover: shipping",
        "seller: private",
        "PayLivery: buyer protection and shipping",
        "NO_OF_ROOMS_BUCKET: 2X2",  # unknown to Lago: sent as it is, so shown as it is
    ]
    with translation.override("de"):
        assert source.url_filters(FLAT) == [
            "Region: Wien, 2. Bezirk",
            "Wohnfläche: ab 40 m²",
        ]
    assert source.url_filters("rtx 3080") == []
    assert source.url_filters(f"{MARKET}?keyword=rtx&PRICE_FROM=50") == []


def test_the_filters_reach_willhaben(willhaben_server):
    willhaben_server.set_ads(make_raw_ads(3))
    keyword = make_keyword(query=FILTERED)
    scrape_keyword(keyword)
    request = willhaben_server.search_requests()[0]
    assert request.params["areaId"] == ["900", "117223"]
    assert request.params["treeAttributes"] == ["23", "2537"]
    assert request.param("ISPRIVATE") == "1" and request.param("paylivery") == "true"
    assert request.param("NO_OF_ROOMS_BUCKET") == "2X2"
    assert request.param("page") == "1" and request.param("sort") == "1"  # paging stays ours


@pytest.mark.parametrize(
    "bad,named",
    [
        ("ISPRIVATE=7", "ISPRIVATE='7'"),
        ("areaId=wien", "areaId='wien'"),
        ("treeAttributes=neu", "treeAttributes='neu'"),
        ("paylivery=yes", "paylivery='yes'"),
    ],
)
def test_a_filter_value_willhaben_does_not_offer_is_refused_by_name(admin_client, bad, named):
    response = admin_client.post(
        reverse("admin:tracker_keyword_add"), keyword_form(query=f"{MARKET}?keyword=rtx&{bad}")
    )
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors["query"]
    assert named in errors[0] and "kann danach nicht suchen" in errors[0]
    assert not Keyword.objects.exists()


def test_keyword_page_shows_the_filters_from_the_url(admin_client, settings):
    settings.LANGUAGE_CODE = "de"
    keyword = make_keyword(query=FILTERED)
    html = admin_client.get(reverse("admin:tracker_keyword_change", args=[keyword.pk])).content
    html = html.decode()
    assert "Filter aus der URL" in html
    assert "Region: Wien, Wien, 1. Bezirk" in html and "Verkäufer: privat" in html
    plain = make_keyword(query="rtx 3080")
    html = admin_client.get(reverse("admin:tracker_keyword_change", args=[plain.pk])).content
    assert "Filter aus der URL" not in html.decode()
