"""Message rendering: HTML escaping, price-drop line, limits, digest."""

from decimal import Decimal

import pytest

from lib.money import format_price
from notifications.messages import CAPTION_LIMIT, TEXT_LIMIT, render, render_digest
from notifications.models import Notification
from tests.factories import make_ad, make_keyword, make_notification
from tracker.models import PriceChange

pytestmark = pytest.mark.django_db


def test_new_ad_message_has_title_price_location_time_keyword_link_escaped():
    ad = make_ad(
        title="Röhre <EL34> & Co",
        price=Decimal("1250.50"),
        location="Wien",
        postcode="1010",
        url="https://www.willhaben.at/iad/x?a=1&b=2",
    )
    n = make_notification(ad=ad, keyword=make_keyword(name="Röhren"))
    r = render(n)
    assert "<b>Röhre &lt;EL34&gt; &amp; Co</b>" in r.html
    assert "€ 1.250,50" in r.html
    assert "1010 Wien" in r.html
    assert "🔎 Röhren" in r.html
    assert 'href="https://www.willhaben.at/iad/x?a=1&amp;b=2"' in r.html
    assert "Röhre <EL34> & Co" in r.plain
    assert r.photo_url is None


def test_price_drop_shows_was_now_percent_and_lowest_seen():
    ad = make_ad(price=Decimal("95"))
    PriceChange.objects.create(ad=ad, old_price=Decimal("120"), new_price=Decimal("90"))
    PriceChange.objects.create(ad=ad, old_price=Decimal("90"), new_price=Decimal("120"))
    n = make_notification(
        ad=ad, kind=Notification.Kind.PRICE_DROP, price=Decimal("95"), old_price=Decimal("120")
    )
    r = render(n)
    assert "vorher € 120 → jetzt € 95 (−21 %)" in r.html
    assert "Tiefster Preis bisher: € 90" in r.html


def test_long_title_is_shortened_to_fit_a_caption():
    ad = make_ad(
        title="x" * 500,
        url="https://example.invalid/" + "p" * 700,
        image_url="https://img.example/a.jpg",
    )
    r = render(make_notification(ad=ad))
    assert len(r.html) <= CAPTION_LIMIT and len(r.plain) <= CAPTION_LIMIT
    assert "…" in r.html and r.html.count("<b>") == r.html.count("</b>")


def test_long_alert_fits_a_text_message():
    r = render(
        make_notification(ad=None, kind=Notification.Kind.ALERT, alert_key="k", text="<" * 5000)
    )
    assert len(r.html) <= TEXT_LIMIT


def test_price_on_request():
    assert format_price(None) == "Preis auf Anfrage"


@pytest.mark.parametrize(
    "price,shown",
    [
        (Decimal("673.59"), "€ 673,59"),
        (Decimal("0"), "zu verschenken"),
        (None, "Preis auf Anfrage"),
    ],
)
def test_new_ad_message_uses_the_one_price_format(price, shown):
    r = render(make_notification(ad=make_ad(price=price), price=price))
    assert shown in r.html and shown in r.plain


def test_digest_lists_rows_within_the_limit():
    rows = [
        make_notification(ad=make_ad(url="https://example.invalid/" + "p" * 900)) for _ in range(10)
    ]
    digest, listed = render_digest(rows, backlog=30)
    assert len(digest.html) <= TEXT_LIMIT
    assert 0 < listed < 10
    assert "30 neue Benachrichtigungen" in digest.html
    assert f"und {30 - listed} weitere folgen" in digest.html
