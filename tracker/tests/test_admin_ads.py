"""Ad admin: price change column, filters, search, and the price history chart."""

import datetime as dt
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.factories import make_ad, make_keyword
from tracker.models import KeywordAd, PriceChange

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:tracker_ad_changelist")
# Ads no keyword matched are shown only on request (MatchedFilter).
ALL = {"matched": "all"}


def titles(response):
    return {ad.title for ad in response.context["cl"].result_list}


@pytest.fixture
def ads():
    old = timezone.now() - dt.timedelta(days=3)
    dropped = make_ad(title="dropped", price=Decimal("80"), first_seen_at=old)
    PriceChange.objects.create(ad=dropped, old_price=Decimal("100"), new_price=Decimal("80"))
    rose = make_ad(title="rose", price=Decimal("1200"), first_seen_at=old)
    PriceChange.objects.create(ad=rose, old_price=Decimal("1000"), new_price=Decimal("1200"))
    on_request = make_ad(title="on request", price=None)
    fresh = make_ad(title="fresh <b>bold</b>", price=Decimal("300"), external_id="987654")
    KeywordAd.objects.create(keyword=make_keyword(name="gpu", query="rtx"), ad=fresh)
    other = make_keyword(name="other", query="other")
    for ad in (dropped, rose, on_request):
        KeywordAd.objects.create(keyword=other, ad=ad)
    return {"dropped": dropped, "fresh": fresh}


def test_list_shows_price_change_since_first_seen_and_links_out(admin_client, ads):
    html = admin_client.get(CHANGELIST).content.decode()
    assert '€ 80 <span class="lago-down">−€ 20</span>' in html
    assert '€ 1.200 <span class="lago-up">+€ 200</span>' in html
    assert 'href="https://www.willhaben.at/iad/object?adId=987654"' in html
    assert "fresh &lt;b&gt;bold&lt;/b&gt;" in html
    assert "gpu" in html


def test_list_shows_free_and_on_request_in_the_one_format(admin_client, ads):
    make_ad(title="free", price=Decimal("0"))
    html = admin_client.get(CHANGELIST, ALL).content.decode()
    assert "zu verschenken" in html and "Preis auf Anfrage" in html
    assert 'lago-muted">on request' not in html


@pytest.mark.parametrize(
    "params,expected",
    [
        ({"dropped": "yes"}, {"dropped"}),
        ({"new": "today"}, {"on request", "fresh <b>bold</b>"}),
        ({"price": "gte1000"}, {"rose"}),
        ({"price": "100-500"}, {"fresh <b>bold</b>"}),
        ({"price": "none"}, {"on request"}),
        ({"q": "987654"}, {"fresh <b>bold</b>"}),
        ({"q": "rose"}, {"rose"}),
    ],
)
def test_filters_and_search(admin_client, ads, params, expected):
    assert titles(admin_client.get(CHANGELIST, params)) == expected


def test_keyword_filter(admin_client, ads):
    kw = ads["fresh"].keywords.get()
    assert titles(admin_client.get(CHANGELIST, {"keywords__id__exact": kw.pk})) == {
        "fresh <b>bold</b>"
    }


def test_search_by_our_id(admin_client, ads):
    assert titles(admin_client.get(CHANGELIST, {"q": str(ads["dropped"].pk)})) == {"dropped"}


def test_change_page_shows_the_chart_and_the_changes(admin_client, ads):
    html = admin_client.get(
        reverse("admin:tracker_ad_change", args=[ads["dropped"].pk])
    ).content.decode()
    assert '<svg xmlns="http://www.w3.org/2000/svg" class="price-chart"' in html
    assert "€ 100" in html
    assert "preisänderungen" in html.lower()


def test_gone_filter(admin_client, ads):
    make_ad(title="sold", gone_at=timezone.now())
    assert titles(admin_client.get(CHANGELIST, {"gone": "yes", **ALL})) == {"sold"}
    assert "sold" not in titles(admin_client.get(CHANGELIST, {"gone": "no", **ALL}))


def test_price_change_list_uses_the_one_price_format(admin_client):
    ad = make_ad(price=Decimal("0"))
    PriceChange.objects.create(ad=ad, old_price=Decimal("290.00"), new_price=Decimal("0"))
    PriceChange.objects.create(ad=ad, old_price=None, new_price=Decimal("673.59"))
    html = admin_client.get(reverse("admin:tracker_pricechange_changelist")).content.decode()
    assert (
        "€ 290" in html
        and "zu verschenken" in html
        and "Preis auf Anfrage" in html
        and "€ 673,59" in html
    )
    assert "290.00" not in html
    assert str(PriceChange.objects.order_by("pk").first()).endswith("€ 290 → zu verschenken")


def test_admin_is_german_with_austrian_dates(admin_client):
    make_ad(title="dated", published_at=dt.datetime(2026, 12, 3, 8, 24, tzinfo=dt.UTC))
    html = admin_client.get(CHANGELIST, ALL).content.decode()
    assert 'lang="de-at"' in html
    assert "03.12.2026 09:24" in html
    assert "Dec. 3, 2026" not in html


def test_ad_page_shows_the_price_in_the_one_format(admin_client):
    ad = make_ad(price=Decimal("1236.50"))
    html = admin_client.get(reverse("admin:tracker_ad_change", args=[ad.pk])).content.decode()
    assert "€ 1.236,50" in html and "1236,50" not in html


def test_the_list_shows_matched_ads_unless_asked_for_the_rest(admin_client, ads):
    """Ads a keyword's own filters left out are stored, but the list shows them only on
    request."""
    make_ad(title="excluded")
    matched = {"dropped", "rose", "on request", "fresh <b>bold</b>"}
    response = admin_client.get(CHANGELIST)
    assert titles(response) == matched
    assert 'href="?matched=no"' in response.content.decode()
    assert titles(admin_client.get(CHANGELIST, {"matched": "no"})) == {"excluded"}
    assert titles(admin_client.get(CHANGELIST, ALL)) == matched | {"excluded"}


def test_the_ad_page_links_to_its_keywords(admin_client, ads):
    html = admin_client.get(
        reverse("admin:tracker_ad_change", args=[ads["fresh"].pk])
    ).content.decode()
    kw = ads["fresh"].keywords.get()
    change = reverse("admin:tracker_keyword_change", args=[kw.pk])
    assert f'<a href="{change}">#{kw.pk} gpu</a>' in html
    alone = make_ad(title="alone")
    page = admin_client.get(reverse("admin:tracker_ad_change", args=[alone.pk])).content.decode()
    assert "/admin/tracker/keyword/" not in page.split('id="content"')[1]


def test_thumbnails_in_the_list_and_on_the_page_are_lazy_http_only_without_referrer(
    admin_client, ads
):
    kw = ads["fresh"].keywords.get()
    shown = make_ad(title="shown", image_url="https://cache.willhaben.at/a.jpg")
    hostile = make_ad(title="hostile", image_url="javascript:alert(1)")
    for ad in (shown, hostile):
        KeywordAd.objects.create(keyword=kw, ad=ad)
    img = (
        '<img src="https://cache.willhaben.at/a.jpg" class="{}" alt="" loading="lazy" '
        'referrerpolicy="no-referrer">'
    )
    listed = admin_client.get(CHANGELIST).content.decode()
    assert img.format("lago-thumb") in listed and "javascript:" not in listed
    page = admin_client.get(reverse("admin:tracker_ad_change", args=[shown.pk])).content.decode()
    assert img.format("lago-image") in page
    page = admin_client.get(reverse("admin:tracker_ad_change", args=[hostile.pk])).content.decode()
    assert "<img src=" not in page
