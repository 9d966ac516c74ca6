"""/stats, /metrics, the dashboard and `status` at six months (issue 16): what each reading costs
does not grow with history, and the part that grows with the keywords stays lean."""

import json
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from operations.health import health_report, queue_summary
from operations.stats import collect_stats, keyword_rows, notification_counts
from operations.tests.conftest import NOW
from operations.tests.test_status_command import run_status

pytestmark = pytest.mark.django_db

OPEN_INDEX_COLUMNS = {
    "status",
    "created_at",
}  # notification_open_idx (status, created_at) WHERE status IN (pending, dead)


def notification_columns(queries):
    """The notification columns each query on pending/dead rows names (its SELECT list and WHERE
    clause)."""
    columns = []
    for sql in (q["sql"] for q in queries.captured_queries):
        if 'FROM "notifications_notification"' in sql and "'pending'" in sql and "'dead'" in sql:
            columns.append(set(re.findall(r'"notifications_notification"\."(\w+)"', sql)))
    return columns


def test_open_notification_counts_read_only_what_their_partial_index_holds(seeded):
    """Dead rows pile up for RETENTION_NOTIFICATIONS_DAYS: counted from notification_open_idx alone
    (PostgreSQL answers with an index-only scan), never by visiting each row (COUNT(id))."""
    with CaptureQueriesContext(connection) as queries:
        summary = queue_summary(NOW)
        counts, _ = notification_counts()
    columns = notification_columns(queries)
    assert len(columns) == 2
    assert all(found <= OPEN_INDEX_COLUMNS for found in columns), columns
    assert summary == {"pending": 2, "dead": 1, "oldest_pending_age_s": 600}
    assert (counts["notifications_pending"], counts["notifications_dead"]) == (2, 1)


def test_a_page_with_the_health_report_counts_the_open_notifications_once(seeded):
    report = health_report(NOW)
    with CaptureQueriesContext(connection) as queries:
        stats = collect_stats(NOW, queue=report["queue"])
    assert notification_columns(queries) == []
    assert (stats["notifications_pending"], stats["notifications_dead"]) == (2, 1)


def test_keyword_rows_read_only_the_columns_they_show(seeded):
    """300 keywords and their latest runs at six months: no model instances, no error bodies or
    counters."""
    with CaptureQueriesContext(connection) as queries:
        rows = keyword_rows(NOW)
    run_sql = [
        q["sql"]
        for q in queries.captured_queries
        if q["sql"].startswith('SELECT "scraping_scraperun"')
    ]
    keyword_sql = [
        q["sql"] for q in queries.captured_queries if 'FROM "tracker_keyword"' in q["sql"]
    ]
    assert len(queries.captured_queries) == 2
    assert run_sql and not [sql for sql in run_sql if '"detail"' in sql or '"counters"' in sql]
    assert not [
        sql for sql in keyword_sql if '"excluded_words"' in sql or '"last_error_detail"' in sql
    ]
    assert {row["name"] for row in rows} == {"fresh", "stuck", "inactive", "new"}


def latest_run_lookups(queries):
    """Queries that look up each keyword's latest run (a subquery correlated with
    tracker_keyword.id)."""
    return [q["sql"] for q in queries.captured_queries if '= ("tracker_keyword"."id")' in q["sql"]]


def test_metrics_show_no_run_and_look_up_none(client, seeded):
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/metrics")
    assert response.status_code == 200
    assert latest_run_lookups(queries) == []
    assert 'lago_keyword_consecutive_failures{keyword="fresh"' in response.content.decode()


def test_dashboard_reads_no_per_keyword_row(admin_client, seeded):
    with CaptureQueriesContext(connection) as queries:
        response = admin_client.get("/admin/")
    assert response.status_code == 200
    assert latest_run_lookups(queries) == []
    keyword_reads = [
        q["sql"]
        for q in queries.captured_queries
        if q["sql"].startswith('SELECT "tracker_keyword"."id"')
    ]
    assert keyword_reads and all(" WHERE " in sql for sql in keyword_reads), keyword_reads
    assert [a["name"] for a in response.context["dashboard"]["alerts"]] == ["stuck"]


def test_status_json_is_one_line(seeded):
    """json.dumps(indent=…) runs the Python encoder: 300 keyword rows cost 2-3x what the C
    encoder does."""
    code, out, _ = run_status("--json")
    assert code == 0
    assert len(out.strip().splitlines()) == 1
    assert json.loads(out)["stats"]["keywords"] == 4
