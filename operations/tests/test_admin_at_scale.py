"""Changelists of the huge tables: no SELECT DISTINCT, no date drill-down, and no COUNT(*)
over a whole big table (lib.big_tables.CappedCountPaginator counts up to a cap)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from lib import big_tables
from lib.big_tables import CappedCountPaginator
from scraping.models import ScrapeRun
from tests.factories import make_keyword, make_notification
from tracker.models import PriceChange

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]

CHANGELISTS = [
    "admin:scraping_scraperun_changelist",
    "admin:notifications_notification_changelist",
    "admin:tracker_pricechange_changelist",
]


def seed():
    kw = make_keyword()
    for status in ("done", "failed", "skipped"):
        ScrapeRun.objects.create(
            keyword=kw,
            source="willhaben",
            status=status,
            error="timeout",
            started_at=timezone.now(),
        )
    note = make_notification()
    PriceChange.objects.create(ad=note.ad, old_price=100, new_price=90)


@pytest.mark.parametrize("name", CHANGELISTS)
def test_changelist_has_no_distinct_and_no_date_drilldown(admin_client, name):
    seed()
    with CaptureQueriesContext(connection) as queries:
        response = admin_client.get(reverse(name))
    assert response.status_code == 200
    assert [q["sql"] for q in queries.captured_queries if "DISTINCT" in q["sql"].upper()] == []
    assert 'class="xfull"' not in response.content.decode()  # the date_hierarchy bar


def test_failed_runs_filter_still_works(admin_client):
    seed()
    html = admin_client.get(
        reverse("admin:scraping_scraperun_changelist") + "?status__exact=failed&source=willhaben"
    ).content.decode()
    assert "1 scrape run" in html


def test_a_small_list_is_counted_exactly():
    seed()
    assert CappedCountPaginator(ScrapeRun.objects.all(), 100).count == 3
    assert CappedCountPaginator(ScrapeRun.objects.filter(status="failed"), 100).count == 1


def test_a_big_list_is_counted_only_up_to_the_cap(monkeypatch):
    monkeypatch.setattr(big_tables, "EXACT_BELOW", 8)
    kw = make_keyword()
    ScrapeRun.objects.bulk_create(
        ScrapeRun(keyword=kw, source="willhaben", status="done", started_at=timezone.now())
        for _ in range(20)
    )
    with CaptureQueriesContext(connection) as queries:
        paginator = CappedCountPaginator(ScrapeRun.objects.order_by("-started_at"), 5)
        assert (paginator.count, paginator.num_pages) == (8, 2)
    (counting,) = [q["sql"] for q in queries.captured_queries]
    assert "LIMIT 8" in counting and "ORDER BY" not in counting


def test_a_big_list_shows_the_cap_as_its_count(admin_client, monkeypatch):
    monkeypatch.setattr(big_tables, "EXACT_BELOW", 2)
    seed()
    response = admin_client.get(reverse("admin:scraping_scraperun_changelist"))
    assert response.context["cl"].result_count == 2
    assert "2 scrape runs" in response.content.decode()
