"""The history pages' queries have an index to read (PostgreSQL plans, seq scans discouraged),
and no foreign key keeps a single-column index a composite one already covers."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from notifications.models import Notification, Subscription
from operations.health import queue_summary
from scraping.models import ScrapeRun
from tracker.models import KeywordAd, PriceChange

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def plan(sql, params=()):
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("EXPLAIN " + sql, params)
        return "\n".join(row[0] for row in cursor.fetchall())


def queryset_plan(qs):
    sql, params = qs.query.sql_with_params()
    return plan(sql, params)


def test_health_outbox_figures_read_the_partial_index():
    with CaptureQueriesContext(connection) as queries:
        queue_summary()
    (query,) = [
        q["sql"] for q in queries.captured_queries if "notifications_notification" in q["sql"]
    ]
    assert "notification_open_idx" in plan(query)


def test_notification_changelist_order_reads_created_index():
    assert "notification_created_idx" in queryset_plan(
        Notification.objects.order_by("-created_at", "-id")[:100]
    )


def test_failed_runs_newest_first_read_the_status_index():
    # A history of mostly finished runs, analysed: on an empty table both indexes cost the same
    # and the planner's pick is a coin toss.
    start = timezone.now() - timedelta(days=30)
    ScrapeRun.objects.bulk_create(
        ScrapeRun(
            source="willhaben",
            status=ScrapeRun.Status.FAILED if i % 100 == 0 else ScrapeRun.Status.DONE,
            started_at=start + timedelta(minutes=i),
        )
        for i in range(5000)
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE scraping_scraperun")
    qs = ScrapeRun.objects.filter(status=ScrapeRun.Status.FAILED).order_by("-started_at")[:100]
    assert "scraperun_status_idx" in queryset_plan(qs)


@pytest.mark.parametrize(
    "model, column",
    [
        (Notification, "chat_id"),
        (Subscription, "chat_id"),
        (KeywordAd, "keyword_id"),
        (PriceChange, "ad_id"),
    ],
)
def test_no_single_column_index_a_composite_covers(model, column):
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, model._meta.db_table)
    single = [name for name, c in constraints.items() if c["index"] and c["columns"] == [column]]
    leading = [
        name
        for name, c in constraints.items()
        if (c["index"] or c["unique"]) and len(c["columns"]) > 1 and c["columns"][0] == column
    ]
    assert single == [] and leading
