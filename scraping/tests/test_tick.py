"""The tick: heartbeat, then sending, then housekeeping, then claims that become tasks."""

import logging
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django_q.models import OrmQ

from notifications.models import Notification
from scraping.models import ScrapeRun
from scraping.tick import tick
from tests.factories import make_keyword, make_notification
from tracker.models import Heartbeat, Keyword

pytestmark = pytest.mark.django_db


def queued_task_names():
    return sorted(task.name() for task in OrmQ.objects.all())


def test_tick_beats_sends_and_enqueues_one_task_per_due_keyword(telegram):
    a, b = make_keyword(), make_keyword()
    make_keyword(is_active=False)
    note = make_notification()
    started = timezone.now()
    result = tick()
    assert Heartbeat.objects.get(name="scheduler").last_seen_at >= started
    note.refresh_from_db()
    assert note.status == Notification.Status.SENT
    assert len(telegram.messages) == 1
    runs = {run.keyword_id: run.pk for run in ScrapeRun.objects.running()}
    assert set(runs) == {a.pk, b.pk}
    assert queued_task_names() == sorted(f"scrape-kw{kw}-run{run}" for kw, run in runs.items())
    assert result == {"sent": 1, "reaped": 0, "claimed": 2}


def test_tick_never_scrapes_inline(willhaben_server, telegram):
    make_keyword()
    tick()
    assert willhaben_server.search_requests() == []


def test_a_telegram_outage_does_not_stop_scraping(telegram, caplog):
    telegram.down = True
    make_notification()
    make_keyword()
    with caplog.at_level(logging.WARNING):
        result = tick()
    assert result["claimed"] == 1
    assert Notification.objects.get().status == Notification.Status.PENDING


def test_a_failing_step_is_logged_and_the_rest_runs(settings, caplog, telegram):
    del settings.NOTIFY_BATCH  # the send step now raises inside the tick
    make_keyword()
    with caplog.at_level(logging.ERROR, logger="scraping.tick"):
        result = tick()
    assert result["sent"] is None and result["claimed"] == 1
    assert any(
        "tick step 'send notifications' failed" in r.getMessage() and r.exc_info
        for r in caplog.records
    )


def test_tick_reaps_zombies_before_claiming(settings, telegram):
    settings.SCRAPE_ZOMBIE_MINUTES = 15
    kw = make_keyword(next_run_at=timezone.now() + timedelta(hours=1))
    ScrapeRun.objects.create(
        keyword=kw, source=kw.source, started_at=timezone.now() - timedelta(minutes=20)
    )
    result = tick()
    assert result["reaped"] == 1 and result["claimed"] == 1
    assert ScrapeRun.objects.get(error="zombie").status == "failed"
    assert ScrapeRun.objects.running().count() == 1


def test_without_a_token_rows_stay_pending_and_scraping_goes_on(settings, caplog):
    settings.TELEGRAM_BOT_TOKEN = ""
    make_notification()
    make_keyword()
    with caplog.at_level(logging.WARNING):
        result = tick()
    assert result["claimed"] == 1
    assert Notification.objects.get().status == Notification.Status.PENDING
    assert any(
        "TELEGRAM_BOT_TOKEN" in r.getMessage()
        for r in caplog.records
        if r.levelno == logging.WARNING
    )


def tick_queries(keywords, due):
    """The queries of one tick in which the first `due` of `keywords` are due (none running)."""
    now = timezone.now()
    ScrapeRun.objects.running().update(status="done", finished_at=now)
    Keyword.objects.filter(pk__in=[k.pk for k in keywords]).update(
        next_run_at=now + timedelta(hours=1)
    )
    Keyword.objects.filter(pk__in=[k.pk for k in keywords[:due]]).update(
        next_run_at=now - timedelta(minutes=1)
    )
    with CaptureQueriesContext(connection) as queries:
        assert tick()["claimed"] == due
    return [q["sql"] for q in queries.captured_queries]


def task_writes(sql):
    return [q for q in sql if q.startswith(f'INSERT INTO "{OrmQ._meta.db_table}"')]


def claim_queries(sql):
    """The tick's own queries: all but the task writes, which are async_task's (one per task)."""
    return len(sql) - len(task_writes(sql))


@pytest.fixture
def fifty_keywords(telegram):
    keywords = [make_keyword(next_sweep_at=timezone.now() + timedelta(days=1)) for _ in range(50)]
    tick_queries(keywords, 0)  # the first tick of the day also prunes and creates the heartbeat
    return keywords


def test_a_tick_writes_one_task_per_due_keyword(fifty_keywords):
    assert len(task_writes(tick_queries(fifty_keywords, 50))) == 50
    assert len(task_writes(tick_queries(fifty_keywords, 5))) == 5


@pytest.mark.postgres
def test_a_tick_claims_50_due_keywords_in_as_many_queries_as_5(fifty_keywords):
    """Claims and runs are written in batches (issue 16: 8 queries per due keyword before)."""
    assert claim_queries(tick_queries(fifty_keywords, 50)) == claim_queries(
        tick_queries(fifty_keywords, 5)
    )


def test_a_tick_claims_with_at_most_one_query_per_due_keyword(fifty_keywords):
    """Without SKIP LOCKED (SQLite) each claim's conditional UPDATE is the only per-keyword
    query."""
    many = claim_queries(tick_queries(fifty_keywords, 50))
    assert many - claim_queries(tick_queries(fifty_keywords, 5)) <= 45
