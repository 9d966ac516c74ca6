"""Admin for issue 17: relist links, gone date and the carried-over chart on the ad page; per-day
figures on the keyword page."""

import datetime as dt
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format

from tests.factories import make_ad, make_keyword
from tracker.models import KeywordAd, PriceChange

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english(settings):
    """The texts below are the English originals (the lead adds German at merge)."""
    settings.LANGUAGE_CODE = "en"


def ad_page(client, ad):
    return client.get(reverse("admin:tracker_ad_change", args=[ad.pk])).content.decode()


def short(moment):
    return date_format(timezone.localtime(moment), "SHORT_DATE_FORMAT")


@pytest.fixture
def relisted():
    now = timezone.now()
    earlier = make_ad(
        title="Cube Aim",
        price=Decimal("180"),
        published_at=now - dt.timedelta(days=20),
        first_seen_at=now - dt.timedelta(days=20),
    )
    PriceChange.objects.create(
        ad=earlier,
        old_price=Decimal("200"),
        new_price=Decimal("180"),
        seen_at=now - dt.timedelta(days=10),
    )
    earlier.gone_at = now - dt.timedelta(days=5)
    earlier.save()
    later = make_ad(
        title="cube aim!",
        price=Decimal("150"),
        relist_of=earlier,
        first_seen_at=now - dt.timedelta(days=2),
    )
    PriceChange.objects.create(
        ad=later,
        old_price=Decimal("180"),
        new_price=Decimal("150"),
        seen_at=now - dt.timedelta(days=2),
    )
    return earlier, later


def test_the_relist_page_links_the_earlier_listing_with_its_dates_and_carries_its_chart(
    admin_client, relisted
):
    earlier, later = relisted
    html = ad_page(admin_client, later)
    link = reverse("admin:tracker_ad_change", args=[earlier.pk])
    assert f'<a href="{link}" class="lago-relist">Cube Aim</a>' in html
    assert f"listed {short(earlier.published_at)}, gone {short(earlier.gone_at)}" in html
    # The chart starts with the earlier listing's first price.
    assert f"{timezone.localtime(earlier.first_seen_at):%d.%m.%Y}: € 200" in html


def test_the_earlier_page_shows_its_gone_date_and_links_the_relist(admin_client, relisted):
    earlier, later = relisted
    html = ad_page(admin_client, earlier)
    assert (
        f'<a href="{reverse("admin:tracker_ad_change", args=[later.pk])}" class="lago-relist">'
        "cube aim!</a>"
    ) in html
    assert "Gone since" in html and "relisted as" in html.lower()


def test_the_keyword_page_counts_ads_found_and_drops_per_day(admin_client):
    keyword, other = make_keyword(), make_keyword()
    now = timezone.now()
    ads = [make_ad() for _ in range(5)]
    for ad, days in zip(ads, [0, 0, 3, 40], strict=False):
        KeywordAd.objects.create(keyword=keyword, ad=ad, found_at=now - dt.timedelta(days=days))
    KeywordAd.objects.create(keyword=other, ad=ads[4], found_at=now)
    PriceChange.objects.create(
        ad=ads[0], old_price=Decimal("100"), new_price=Decimal("80"), seen_at=now
    )
    PriceChange.objects.create(
        ad=ads[1],
        old_price=Decimal("100"),
        new_price=Decimal("90"),
        seen_at=now - dt.timedelta(days=1),
    )
    PriceChange.objects.create(
        ad=ads[1], old_price=Decimal("90"), new_price=Decimal("120"), seen_at=now
    )  # a rise
    PriceChange.objects.create(
        ad=ads[4], old_price=Decimal("100"), new_price=Decimal("50"), seen_at=now
    )  # another keyword's ad
    html = admin_client.get(
        reverse("admin:tracker_keyword_change", args=[keyword.pk])
    ).content.decode()

    def row(days, found, drops):
        day = date_format(timezone.localdate() - dt.timedelta(days=days), "SHORT_DATE_FORMAT")
        return (
            f'<tr><td>{day}</td><td class="lago-found">{found}</td>'
            f'<td class="lago-drops">{drops}</td></tr>'
        )

    assert row(0, 2, 1) + row(1, 0, 1) + row(3, 1, 0) in html
    assert "<tfoot><tr><th>total</th><th>3</th><th>2</th></tr></tfoot>" in html


def test_a_quiet_keyword_says_so(admin_client):
    html = admin_client.get(
        reverse("admin:tracker_keyword_change", args=[make_keyword().pk])
    ).content.decode()
    assert "No ads found and no price drops in the last 30 days." in html


def pair(gone_seller, new_seller, *, gone_days=5, new_price="150"):
    """A gone ad and a new one of the same title key and postcode, not linked (as ingest left
    them)."""
    now = timezone.now()
    gone = make_ad(
        title="Cube Aim",
        postcode="1010",
        price=Decimal("180"),
        seller_id=gone_seller,
        first_seen_at=now - dt.timedelta(days=20),
        gone_at=now - dt.timedelta(days=gone_days),
    )
    new = make_ad(
        title="cube aim!",
        postcode="1010",
        price=Decimal(new_price),
        seller_id=new_seller,
        first_seen_at=now - dt.timedelta(days=2),
    )
    return gone, new


def suggested(html, ad):
    link = reverse("admin:tracker_ad_change", args=[ad.pk])
    return f'<a href="{link}" class="lago-relist">{ad.title}</a>' in html


@pytest.mark.parametrize(
    ("gone_seller", "new_seller"), [("", ""), ("", "20198250"), ("20198250", "")]
)
def test_a_match_with_an_unknown_seller_is_suggested_on_the_ad_page(
    admin_client, gone_seller, new_seller
):
    gone, new = pair(gone_seller, new_seller)
    html = ad_page(admin_client, new)
    assert "Possible relist of" in html and suggested(html, gone)
    assert new.relist_of is None


@pytest.mark.parametrize(
    ("gone_seller", "new_seller", "kw"),
    [
        pytest.param("111", "222", {}, id="different-sellers"),
        pytest.param("", "", {"new_price": "100"}, id="price-44%-lower"),
        pytest.param("", "", {"gone_days": 1}, id="gone-after-the-new-ad-appeared"),
        pytest.param("", "", {"gone_days": 40}, id="gone-before-the-window"),
    ],
)
def test_no_suggestion_without_a_match(admin_client, gone_seller, new_seller, kw):
    gone, new = pair(gone_seller, new_seller, **kw)
    assert not suggested(ad_page(admin_client, new), gone)


def test_a_linked_relist_suggests_nothing_more(admin_client, relisted):
    earlier, later = relisted
    other = make_ad(
        title="CUBE AIM",
        price=Decimal("160"),
        first_seen_at=timezone.now() - dt.timedelta(days=30),
        gone_at=timezone.now() - dt.timedelta(days=3),
    )
    assert not suggested(ad_page(admin_client, later), other)
    later.relist_of = None
    later.save()
    assert suggested(ad_page(admin_client, later), other)
