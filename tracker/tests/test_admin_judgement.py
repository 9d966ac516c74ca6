"""The ad admin shows each keyword's price judgement: list column, "deals" filter, ad page."""

from decimal import Decimal as D

import pytest
from django.urls import reverse

from tests.factories import make_ad, make_keyword
from tracker.models import KeywordAd
from tracker.price_judgement import Judgement

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:tracker_ad_changelist")


@pytest.fixture(autouse=True)
def english(settings):
    settings.LANGUAGE_CODE = "en"


def judged(title, judgement, keyword):
    ad = make_ad(title=title, price=D(500))
    link = KeywordAd(keyword=keyword, ad=ad, price=ad.price)
    if judgement is not None:
        link.store_judgement(judgement)
    link.save()
    return ad


@pytest.fixture
def ads():
    keyword = make_keyword(name="rad")
    return {
        "deal": judged(
            "cheap bike",
            Judgement(label="deal", n=20, median=D(1095), percent=D("-38.5"), lowest=True),
            keyword,
        ),
        "fair": judged(
            "usual bike", Judgement(label="fair", n=20, median=D(500), percent=D(0)), keyword
        ),
        "few": judged("rare bike", Judgement(label="too_few", n=3), keyword),
        "unjudged": judged("old bike", None, keyword),
    }


def titles(response):
    return {ad.title for ad in response.context["cl"].result_list}


def test_the_list_shows_each_judgement(admin_client, ads):
    html = admin_client.get(CHANGELIST).content.decode()
    assert "deal −38.5\u00a0% (median €\u00a01.095, 20 comparables)" in html
    assert "fair +0.0\u00a0% (median €\u00a0500, 20 comparables)" in html
    assert "too few to compare" in html


def test_the_deals_filter_keeps_only_deals(admin_client, ads):
    response = admin_client.get(CHANGELIST, {"judgement": "deal"})
    assert titles(response) == {"cheap bike"}
    assert "deals" in response.content.decode()


def test_an_unknown_judgement_value_filters_nothing(admin_client, ads):
    assert len(titles(admin_client.get(CHANGELIST, {"judgement": "bogus"}))) == 4


def test_the_ad_page_shows_the_judgement_per_keyword(admin_client, ads):
    other = make_keyword(name="fahrrad")
    KeywordAd.objects.create(
        keyword=other,
        ad=ads["deal"],
        price=D(500),
        price_label="high",
        price_n=9,
        price_median=D(400),
        price_percent=D("25.0"),
    )
    html = admin_client.get(
        reverse("admin:tracker_ad_change", args=[ads["deal"].pk])
    ).content.decode()
    assert "deal −38.5\u00a0% (median €\u00a01.095, 20 comparables)" in html
    assert "high +25.0\u00a0% (median €\u00a0400, 9 comparables)" in html


def test_the_list_in_german(admin_client, ads, settings):
    settings.LANGUAGE_CODE = "de"
    html = admin_client.get(CHANGELIST, HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Schnäppchen −38,5\u00a0% (Median €\u00a01.095, 20 Vergleichsanzeigen)" in html
