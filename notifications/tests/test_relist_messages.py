"""The relist message (issue 17): rendered at send time from the ad's relist_of."""

import datetime as dt
from decimal import Decimal

import pytest
from django.utils import timezone

from lib.money import PRICE_ON_REQUEST
from notifications.messages import render, render_digest
from tests.factories import make_ad, make_notification

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english(settings):
    """The texts below are the English originals (the lead adds German at merge)."""
    settings.LANGUAGE_CODE = "en"


def relist(earlier_price, price, **earlier):
    when = dt.datetime(2025, 6, 1, 12, tzinfo=dt.UTC)
    gone = make_ad(
        title="Cube <Aim>",
        price=earlier_price,
        published_at=when,
        gone_at=when + dt.timedelta(days=3),
        **earlier,
    )
    return make_ad(title="cube aim", price=price, relist_of=gone)


def test_a_relist_names_itself_the_earlier_price_and_dates_escaped():
    n = make_notification(ad=relist(Decimal("180"), Decimal("150")), old_price=Decimal("180"))
    r = render(n)
    assert r.plain.startswith(
        "♻️ Relisted\ncube aim\n€ 150, earlier € 180 (−17%)\nListed before on 01.06.2025, gone on "
        "04.06.2025"
    )
    assert "<b>cube aim</b>" in r.html and "New ad" not in r.html


def test_on_request_on_both_sides_has_no_percent():
    r = render(make_notification(ad=relist(None, None)))
    assert f"{PRICE_ON_REQUEST}, earlier {PRICE_ON_REQUEST}\n" in r.plain


def test_without_the_earlier_ad_it_is_a_plain_new_ad():
    ad = relist(Decimal("180"), Decimal("150"))
    n = make_notification(ad=ad, old_price=Decimal("180"))
    ad.relist_of.delete()
    n.refresh_from_db()
    assert render(n).plain.startswith("🆕 New ad")


def test_the_digest_marks_relists():
    n = make_notification(ad=relist(Decimal("180"), Decimal("150")), old_price=Decimal("180"))
    plain = render_digest([n], 1)[0].plain
    assert "♻️ cube aim — € 150 (relisted, earlier € 180)" in plain


def test_a_listing_that_came_back_has_no_gone_date():
    ad = relist(Decimal("180"), Decimal("180"))
    ad.relist_of.gone_at = None
    ad.relist_of.save()
    n = make_notification(ad=ad, created_at=timezone.now())
    assert "€ 180, earlier € 180\nListed before on 01.06.2025\n" in render(n).plain
