"""The big changelists' rows (lib.admin_rows): the same HTML as Django's own rows, without
Django's per-cell lookups."""

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib import admin
from django.contrib.admin.templatetags import admin_list
from django.contrib.admin.views.main import ChangeList
from django.urls import reverse
from django.utils import timezone

from notifications.models import Notification
from scraping.models import ScrapeRun
from tests.factories import make_ad, make_keyword, make_notification
from tracker.models import Ad, KeywordAd, PriceChange

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


def tbody(html):
    (body,) = re.findall(r"<tbody>.*?</tbody>", html, re.DOTALL)
    return body


PAGES = [
    ("admin:scraping_scraperun_changelist", ""),
    ("admin:scraping_scraperun_changelist", "?status__exact=failed"),
    ("admin:scraping_scraperun_changelist", "?o=-7"),
    ("admin:notifications_notification_changelist", ""),
    ("admin:notifications_notification_changelist", "?status__exact=dead"),
    ("admin:tracker_ad_changelist", ""),
    ("admin:tracker_ad_changelist", "?q=rennrad"),
    ("admin:tracker_pricechange_changelist", ""),
]


@pytest.mark.parametrize("url_name,query", PAGES)
def test_rows_are_the_html_django_renders(admin_client, monkeypatch, url_name, query):
    seed()
    url = reverse(url_name) + query
    ours = admin_client.get(url).content.decode()
    model_admin = admin_client.get(url).context["cl"].model_admin
    # The same admin as stock Django lists it: Django's template, rows and ChangeList.
    monkeypatch.setattr(model_admin, "change_list_template", None)
    monkeypatch.setattr(model_admin, "get_changelist", lambda request, **kwargs: ChangeList)
    django = admin_client.get(url).content.decode()
    assert tbody(ours) == tbody(django)
    assert tbody(ours).count("<tr") >= 1


def test_big_lists_skip_djangos_per_cell_lookups(admin_client, monkeypatch):
    seed()
    calls = []

    def spy(*args):
        calls.append(args)
        return original(*args)

    original = admin_list.items_for_result
    monkeypatch.setattr(admin_list, "items_for_result", spy)
    for url_name in [
        "admin:scraping_scraperun_changelist",
        "admin:tracker_pricechange_changelist",
        "admin:tracker_ad_changelist",
    ]:
        assert admin_client.get(reverse(url_name)).status_code == 200
    assert calls == []


def test_a_column_it_does_not_cover_falls_back_to_django(admin_client, monkeypatch):
    seed()
    model_admin = admin.site._registry[Ad]
    monkeypatch.setattr(model_admin, "list_display", [*model_admin.list_display, "__str__"])
    html = admin_client.get(reverse("admin:tracker_ad_changelist")).content.decode()
    assert '<td class="field-__str__">Canyon &amp; Rennrad</td>' in html


@pytest.mark.parametrize(
    "url_name",
    ["admin:scraping_scraperun_changelist", "admin:notifications_notification_changelist"],
)
def test_rows_are_the_html_django_renders_in_german(admin_client, monkeypatch, settings, url_name):
    settings.LANGUAGE_CODE = "de-at"
    test_rows_are_the_html_django_renders(admin_client, monkeypatch, url_name, "")
    assert '<html lang="de-at"' in admin_client.get(reverse(url_name)).content.decode()
