"""The admin at 1366×768 in German: the keyword list fits the screen, four pages are screenshotted.

Realistic data: ten keywords with long names, runs in every state, ads and subscribers.
"""

import datetime as dt
import re
from decimal import Decimal

import pytest
from django.utils import timezone

from scraping.models import ScrapeRun
from tests.browser.conftest import log_in
from tests.factories import make_ad, make_chat, make_keyword, make_subscription
from tracker.models import KeywordAd, PriceChange

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1366, "height": 768}
NAMES = [
    "Mietwohnungen Wien 1., 2., 3., 7., 8. und 9. Bezirk · 2–3 Zimmer · bis € 1.100",
    "Lego Technic Liebherr R 9800 42100 originalverpackt · bis € 450",
    "Rennrad Carbon Shimano Ultegra Di2 Rahmenhöhe 56 · bis € 1.800",
    "Geschirrspüler vollintegriert 60 cm Bosch Siemens · bis € 300",
    "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz/fahrraeder-radsport-4552",
    "Gaming PC RTX 4070 Ryzen 7 7800X3D 32 GB · bis € 1.500",
    "Kinderwagen Kombikinderwagen Joolz Bugaboo Cybex · bis € 400",
    "Eigentumswohnung Graz Umgebung Balkon Garage · bis € 250.000",
    "Sofa Ecksofa Schlaffunktion Stauraum grau · zu verschenken",
    "Apple MacBook Pro 14 M3 Pro 18 GB 512 GB · bis € 1.900",
]
GERMAN_DATE = re.compile(r"\b\d{2}\.\d{2}\.\d{4}\b")


@pytest.fixture
def installation(django_user_model):
    django_user_model.objects.create_superuser("operator", "op@example.invalid", "s3cret-pass")
    now = timezone.now()
    chats = [make_chat() for _ in range(3)]
    keywords = []
    for i, name in enumerate(NAMES):
        kw = make_keyword(
            name=name[:100],
            query=name,
            is_active=i != 3,
            zero_result_alert_at=now - dt.timedelta(hours=5) if i == 2 else None,
            next_run_at=now + dt.timedelta(minutes=i),
        )
        status, error = [
            ("done", ""),
            ("failed", "bad_response"),
            ("banned", "rate_limited"),
            ("running", ""),
        ][i % 4]
        ScrapeRun.objects.create(
            keyword=kw,
            source="willhaben",
            status=status,
            error=error,
            ads_seen=60,
            ads_new=i,
            started_at=now - dt.timedelta(days=i % 3),
        )
        for j in range(3):
            ad = make_ad(
                title=f"{name} — Angebot {j}",
                price=Decimal("1234.50") + j,
                first_seen_at=now - dt.timedelta(days=j),
            )
            KeywordAd.objects.create(keyword=kw, ad=ad)
        for chat in chats[: i % 4]:
            make_subscription(chat=chat, keyword=kw)
        keywords.append(kw)
    PriceChange.objects.create(
        ad=ad,
        old_price=Decimal("1300"),
        new_price=Decimal("1236.50"),
        seen_at=now - dt.timedelta(days=1),
    )
    return keywords, ad


def overflow(page):
    """Pixels the page or the changelist table stick out to the right (0 when everything fits)."""
    return page.evaluate(
        """() => {
            const doc = document.documentElement;
            const results = document.querySelector('#changelist .results');
            const table = document.querySelector('#result_list');
            return {
                page: doc.scrollWidth - doc.clientWidth,
                results: results.scrollWidth - results.clientWidth,
                table: Math.ceil(table.getBoundingClientRect().right) - doc.clientWidth,
            };
        }"""
    )


def shoot(page, folder, name):
    text = page.inner_text("body")
    assert "abmelden" in text.lower(), f"{name}: no German admin text"
    page.screenshot(path=folder / f"{name}.png", full_page=True)
    return text


def test_keyword_list_fits_1366_and_pages_are_german(installation, live_server, chromium, shots):
    keywords, ad = installation
    page = chromium.new_page(viewport=LAPTOP, locale="de-AT")
    log_in(page, live_server.url)
    shoot(page, shots, "1-dashboard")

    page.goto(f"{live_server.url}/admin/tracker/keyword/")
    listing = shoot(page, shots, "2-keyword-list")
    assert GERMAN_DATE.search(listing), "the keyword list shows no dd.mm.yyyy date"
    assert len(page.query_selector_all("#result_list tbody tr")) == len(NAMES)
    sticking_out = overflow(page)
    assert all(pixels <= 0 for pixels in sticking_out.values()), (
        f"the keyword list needs a horizontal scroll: {sticking_out}"
    )

    page.goto(f"{live_server.url}/admin/tracker/keyword/{keywords[1].pk}/change/")
    assert page.get_attribute("input[name=_save]", "value") == "Sichern"
    assert page.locator("table.lago-runs tr").count() == 2  # the header and its one run
    page.click("form.lago-run-now button")
    page.wait_for_selector(".messagelist")
    assert ScrapeRun.objects.filter(keyword=keywords[1]).count() == 2
    shoot(page, shots, "3-keyword-page")
    page.goto(f"{live_server.url}/admin/tracker/ad/{ad.pk}/change/")
    shoot(page, shots, "4-ad-page")
    assert GERMAN_DATE.search(page.inner_text("body"))
    assert len(list(shots.glob("*.png"))) == 4
