"""Changelists cost a fixed number of queries whatever the number of rows (no N+1)."""

import datetime as dt
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from notifications.models import Notification
from scraping.models import ScrapeRun
from tests.factories import make_ad, make_chat, make_keyword, make_notification, make_subscription
from tracker.models import KeywordAd, PriceChange

pytestmark = pytest.mark.django_db


def _keywords(n):
    for _ in range(n):
        kw = make_keyword()
        ScrapeRun.objects.create(
            keyword=kw,
            source="willhaben",
            status="done",
            finished_at=timezone.now(),
            ads_seen=3,
            ads_new=1,
        )
        KeywordAd.objects.create(keyword=kw, ad=make_ad())
        make_subscription(keyword=kw)


def _ads(n):
    kw = make_keyword()
    for _ in range(n):
        ad = make_ad(price=Decimal("80"), image_url="https://example.invalid/a.jpg")
        KeywordAd.objects.create(keyword=kw, ad=ad)
        PriceChange.objects.create(ad=ad, old_price=Decimal("100"), new_price=Decimal("80"))


def _runs(n):
    kw = make_keyword()
    for i in range(n):
        ScrapeRun.objects.create(
            keyword=kw,
            source="willhaben",
            status="failed",
            started_at=timezone.now() - dt.timedelta(minutes=i),
        )


def _notifications(n):
    for _ in range(n):
        make_notification(status=Notification.Status.DEAD, last_error="boom")


def _chats(n):
    for _ in range(n):
        make_subscription(chat=make_chat())


def _count_queries(client, url):
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200
    return len(ctx)


@pytest.mark.parametrize(
    "url_name,seed",
    [
        ("admin:tracker_keyword_changelist", _keywords),
        ("admin:tracker_ad_changelist", _ads),
        ("admin:scraping_scraperun_changelist", _runs),
        ("admin:notifications_notification_changelist", _notifications),
        ("admin:notifications_telegramchat_changelist", _chats),
    ],
)
def test_changelist_queries_do_not_grow_with_rows(
    admin_client, django_assert_max_num_queries, url_name, seed
):
    url = reverse(url_name)
    seed(5)
    with_5 = _count_queries(admin_client, url)
    seed(45)
    with django_assert_max_num_queries(with_5):
        response = admin_client.get(url)
    assert response.status_code == 200
    cl = response.context["cl"]
    assert len(cl.result_list) == min(50, cl.list_per_page)
