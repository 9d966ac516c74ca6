"""The tick: heartbeat, then sending, then housekeeping, then claims that become tasks."""

import logging
from datetime import timedelta

import pytest
from django.utils import timezone
from django_q.models import OrmQ

from notifications.models import Notification
from scraping.models import ScrapeRun
from scraping.tick import tick
from tests.factories import make_keyword, make_notification
from tracker.models import Heartbeat

pytestmark = pytest.mark.django_db


def queued_task_names():
    return sorted(task.name() for task in OrmQ.objects.all())


def test_tick_beats_sends_and_enqueues_one_task_per_due_keyword(telegram):
    a, b = make_keyword(), make_keyword()
    make_keyword(is_active=False)
    note = make_notification()
    result = tick()
    assert Heartbeat.age_seconds("scheduler") < 5
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
    assert any("tick step 'send notifications' failed" in r.getMessage() and r.exc_info for r in caplog.records)


def test_tick_reaps_zombies_before_claiming(settings, telegram):
    settings.SCRAPE_ZOMBIE_MINUTES = 15
    kw = make_keyword(next_run_at=timezone.now() + timedelta(hours=1))
    ScrapeRun.objects.create(keyword=kw, source=kw.source, started_at=timezone.now() - timedelta(minutes=20))
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
    assert any("TELEGRAM_BOT_TOKEN" in r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)
