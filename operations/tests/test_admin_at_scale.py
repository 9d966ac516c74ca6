"""Changelists of the huge tables: no SELECT DISTINCT, no date drill-down, and on
PostgreSQL no COUNT(*) over a big table (lib.paginator.EstimatedCountPaginator)."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from lib import paginator as paginator_module
from lib.paginator import EstimatedCountPaginator
from notifications.models import Notification
from scraping.models import ScrapeRun
from tests.factories import make_ad, make_keyword, make_notification
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


def test_counts_exactly_off_postgresql_or_when_small():
    seed()
    assert EstimatedCountPaginator(ScrapeRun.objects.all(), 100).count == 3


@pytest.mark.postgres
def test_big_lists_get_the_planners_estimate_without_count(monkeypatch):
    monkeypatch.setattr(paginator_module, "EXACT_BELOW", 0)
    kw = make_keyword()
    ScrapeRun.objects.bulk_create(
        ScrapeRun(
            keyword=kw,
            source="willhaben",
            status="done",
            started_at=timezone.now() - timedelta(minutes=i),
        )
        for i in range(500)
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE scraping_scraperun")
    with CaptureQueriesContext(connection) as queries:
        whole = EstimatedCountPaginator(ScrapeRun.objects.all(), 100).count
        filtered = EstimatedCountPaginator(ScrapeRun.objects.filter(status="done"), 100).count
    assert whole == 500 and 400 <= filtered <= 600
    assert [q["sql"] for q in queries.captured_queries if "COUNT(" in q["sql"].upper()] == []


@pytest.mark.postgres
def test_small_lists_are_counted_exactly_on_postgresql():
    make_notification(ad=make_ad())
    assert EstimatedCountPaginator(Notification.objects.all(), 100).count == 1


@pytest.mark.postgres
def test_a_filter_the_planner_underestimates_is_counted_only_up_to_the_cap(monkeypatch):
    """Two conditions that always hold together: the planner multiplies their selectivities
    (a quarter of the rows) where half match. Counting stops at EXACT_BELOW rows."""
    monkeypatch.setattr(paginator_module, "EXACT_BELOW", 8)
    kw = make_keyword()
    ScrapeRun.objects.bulk_create(
        ScrapeRun(
            keyword=kw,
            source="willhaben",
            status="failed",
            error=error,
            detail=detail,
            started_at=timezone.now(),
        )
        for error, detail in [("timeout", "slow"), ("http_5xx", "down")] * 10
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE scraping_scraperun")
    matching = ScrapeRun.objects.filter(error="timeout", detail="slow")
    assert paginator_module.estimated_count(matching, connection) < 8, (
        "the planner no longer underestimates: pick other rows"
    )
    with CaptureQueriesContext(connection) as queries:
        count = EstimatedCountPaginator(matching, 100).count
    assert count == 8
    (counting,) = [q["sql"] for q in queries.captured_queries if "COUNT(" in q["sql"].upper()]
    assert "LIMIT 8" in counting


def test_a_small_filtered_list_is_counted_exactly():
    seed()
    assert EstimatedCountPaginator(ScrapeRun.objects.filter(error="timeout"), 100).count == 3
