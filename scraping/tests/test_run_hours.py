"""The 24 h run figures: settled hours are summed once (RunHour), the edges and skips read live."""

from datetime import UTC, datetime, timedelta

import pytest

from scraping.models import RunHour, ScrapeRun
from scraping.run_hours import grouped, window_rows
from tests.factories import make_keyword

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 12, 3, 17, 20, 30, tzinfo=UTC)
SINCE = NOW - timedelta(hours=24)


def run(keyword, ago, status="done", kind="window", **fields):
    return ScrapeRun.objects.create(
        keyword=keyword,
        source="willhaben",
        status=status,
        kind=kind,
        started_at=NOW - ago,
        **fields,
    )


def spread(keyword):
    """Runs in every quarter hour of the window and just outside it, of every kind of outcome."""
    for quarter in range(0, 24 * 4 + 2):
        ago = timedelta(minutes=15 * quarter + 7)
        status = ("done", "done", "failed", "banned")[quarter % 4]
        run(
            keyword,
            ago,
            status,
            kind="sweep" if quarter % 5 == 0 else "window",
            counters={"http_429": quarter % 3},
        )
    run(keyword, timedelta(minutes=3), "running")
    run(
        keyword,
        timedelta(hours=5, minutes=1),
        "skipped",
        error="source_unavailable",
        counters={"skips": 4},
    )


def live(since):
    return grouped(ScrapeRun.objects.filter(started_at__gte=since))


def totals(rows):
    """Rows summed per (kind, status, error), whatever the order and split they come in."""
    sums = {}
    for kind, status, error, n, skips, hits in rows:
        key = (kind, status, error)
        sums[key] = [a + b for a, b in zip(sums.get(key, [0, 0, 0]), [n, skips, hits], strict=True)]
    return sums


def test_the_window_equals_a_live_count_and_settled_hours_are_stored():
    spread(make_keyword())
    assert totals(window_rows(SINCE, NOW)) == totals(live(SINCE))
    hours = sorted(RunHour.objects.values_list("hour", flat=True))
    # From the first whole hour of the window to the last hour that ended 15 + 5 minutes ago.
    assert hours[0] == datetime(2026, 12, 2, 18, tzinfo=UTC) and hours[-1] == datetime(
        2026, 12, 3, 16, tzinfo=UTC
    )
    assert len(hours) == 23
    assert totals(window_rows(SINCE, NOW)) == totals(live(SINCE))  # read back from the stored hours


def test_a_stored_hour_is_read_without_reading_its_runs(django_assert_max_num_queries):
    spread(make_keyword())
    window_rows(SINCE, NOW)
    # The two live edges, the live skips and the stored hours: four queries, not one per hour.
    with django_assert_max_num_queries(4):
        window_rows(SINCE, NOW)


def test_a_skip_row_that_keeps_collapsing_is_counted_live():
    keyword = make_keyword()
    spread(keyword)
    window_rows(SINCE, NOW)
    skip = ScrapeRun.objects.get(status="skipped")
    skip.counters = {"skips": 9}
    skip.save(update_fields=["counters"])
    assert totals(window_rows(SINCE, NOW)) == totals(live(SINCE))


def test_an_hour_with_a_run_still_running_is_not_stored():
    spread(make_keyword())
    stuck = run(
        make_keyword(), timedelta(hours=3, minutes=10), "running"
    )  # one running run per keyword
    assert totals(window_rows(SINCE, NOW)) == totals(live(SINCE))
    assert not RunHour.objects.filter(hour=datetime(2026, 12, 3, 14, tzinfo=UTC)).exists()
    stuck.status = "failed"
    stuck.save(update_fields=["status"])
    assert totals(window_rows(SINCE, NOW)) == totals(live(SINCE))
    assert RunHour.objects.filter(hour=datetime(2026, 12, 3, 14, tzinfo=UTC)).exists()


def test_hours_two_windows_old_are_deleted():
    RunHour.objects.create(hour=datetime(2026, 11, 20, 5, tzinfo=UTC), rows=[])
    spread(make_keyword())
    window_rows(SINCE, NOW)
    assert not RunHour.objects.filter(hour__lt=SINCE - timedelta(hours=24)).exists()
