"""The big changelists (scrape runs, notifications, ads, price changes) are Django's own:
its ChangeList, template and rows, with the rows' edge cases (a run without keyword, an ad
without price or date) rendered in English and German."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.admin.views.main import ChangeList
from django.urls import reverse
from django.utils import timezone

from notifications.models import Notification
from scraping.models import ScrapeRun
from tests.factories import make_ad, make_keyword, make_notification
from tracker.models import KeywordAd, PriceChange

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


def seed():
    now = timezone.now()
    keyword = make_keyword(name="Rennräder <b>")
    ScrapeRun.objects.create(
        keyword=keyword,
        source="willhaben",
        status="failed",
        error="parse_error",
        started_at=now,
        finished_at=now,
    )
    ScrapeRun.objects.create(
        keyword=None,
        source="willhaben",
        status="running",
        kind="sweep",
        started_at=now - timedelta(days=2),
    )
    ScrapeRun.objects.create(
        keyword=keyword,
        source="willhaben",
        status="done",
        ads_seen=1234,
        started_at=now,
        finished_at=now,
    )
    ad = make_ad(
        title="Canyon & Rennrad", image_url="https://example.invalid/a.jpg", location="Wien"
    )
    make_ad(title="Sofa", price=None, published_at=None)
    KeywordAd.objects.create(keyword=keyword, ad=ad)
    PriceChange.objects.create(ad=ad, old_price=Decimal("100"), new_price=Decimal("80.50"))
    PriceChange.objects.create(ad=ad, old_price=None, new_price=Decimal("100"))
    make_notification(ad=ad, status=Notification.Status.DEAD, last_error="boom " * 40)
    make_notification(ad=ad, price=None, status=Notification.Status.SENT, sent_at=now)


PAGES = [
    ("admin:scraping_scraperun_changelist", "", 3),
    ("admin:scraping_scraperun_changelist", "?status__exact=failed", 1),
    ("admin:scraping_scraperun_changelist", "?o=-7", 3),
    ("admin:notifications_notification_changelist", "", 2),
    ("admin:notifications_notification_changelist", "?status__exact=dead", 1),
    ("admin:tracker_ad_changelist", "", 1),
    ("admin:tracker_ad_changelist", "?matched=all", 2),
    ("admin:tracker_ad_changelist", "?q=rennrad", 1),
    ("admin:tracker_pricechange_changelist", "", 2),
]


@pytest.mark.parametrize("url_name,query,rows", PAGES)
def test_big_lists_are_djangos_own_changelist(admin_client, url_name, query, rows):
    seed()
    response = admin_client.get(reverse(url_name) + query)
    assert response.status_code == 200
    assert type(response.context["cl"]) is ChangeList
    assert [t.name for t in response.templates][0] == "admin/change_list.html"
    assert response.content.decode().count('class="action-select"') == rows


def test_rows_show_missing_values_as_djangos_empty_value(admin_client):
    seed()
    runs = admin_client.get(reverse("admin:scraping_scraperun_changelist")).content.decode()
    assert '<td class="field-keyword nowrap">-</td>' in runs  # the sweep run without keyword
    assert '<td class="field-keyword nowrap">Rennräder &lt;b&gt;</td>' in runs
    ads = admin_client.get(reverse("admin:tracker_ad_changelist"), {"matched": "all"})
    ads = ads.content.decode()
    assert '<td class="field-published_at nowrap">-</td>' in ads
    assert '<td class="field-keyword_names">Rennräder &lt;b&gt;</td>' in ads


@pytest.mark.parametrize(
    "url_name,status",
    [
        ("admin:scraping_scraperun_changelist", "fehlgeschlagen"),
        ("admin:notifications_notification_changelist", "tot"),
    ],
)
def test_big_lists_render_in_german(admin_client, settings, url_name, status):
    settings.LANGUAGE_CODE = "de-at"
    seed()
    html = admin_client.get(reverse(url_name)).content.decode()
    assert '<html lang="de-at"' in html
    assert f">{status}</span>" in html
