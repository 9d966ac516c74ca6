"""Retention: old history goes in batches; what status pages and the sender need stays."""

import uuid
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone
from django_q.models import Failure, Success, Task

from notifications.models import Notification
from scraping import retention
from scraping.models import ScrapeRun
from scraping.tick import tick
from tests.factories import make_keyword, make_notification
from tracker.models import Heartbeat

pytestmark = pytest.mark.django_db

S = ScrapeRun.Status


def run(keyword, status, days_ago, **kw):
    started = timezone.now() - timedelta(days=days_ago)
    return ScrapeRun.objects.create(
        keyword=keyword, source="willhaben", status=status, started_at=started, **kw
    )


def note(status, days_ago):
    return make_notification(status=status, created_at=timezone.now() - timedelta(days=days_ago))


def task(success, days_ago):
    at = timezone.now() - timedelta(days=days_ago)
    return Task.objects.create(
        id=uuid.uuid4().hex,
        name=uuid.uuid4().hex,
        func="x.y",
        started=at,
        stopped=at,
        success=success,
    )


def test_old_runs_go_but_each_keyword_keeps_its_last_done_and_last_failed_run():
    kw, other = make_keyword(), make_keyword()
    keep = {
        run(kw, S.DONE, 40).pk,  # kw's last success, however old
        run(kw, S.BANNED, 35).pk,  # kw's last failure
        run(kw, S.SKIPPED, 5).pk,  # recent
        run(other, S.FAILED, 1).pk,
        run(other, S.DONE, 10).pk,
        run(kw, S.RUNNING, 31).pk,  # never pruned (the reaper owns it)
    }
    gone = {
        run(kw, S.DONE, 50).pk,
        run(kw, S.FAILED, 45).pk,
        run(kw, S.SKIPPED, 60).pk,
        run(kw, S.CANCELLED, 60).pk,
        run(other, S.DONE, 31).pk,
        run(other, S.FAILED, 31).pk,
        run(None, S.DONE, 31).pk,  # its keyword was deleted
    }
    assert retention.count()["scrape_runs"] == len(gone)
    result = retention.prune()
    assert result.complete and result.counts["scrape_runs"] == len(gone)
    assert set(ScrapeRun.objects.values_list("pk", flat=True)) == keep


def test_settled_notifications_go_after_their_period_pending_never(settings):
    settings.RETENTION_NOTIFICATIONS_DAYS = 90
    gone = {note(status, 91).pk for status in ("sent", "cancelled", "dead")}
    keep = {note("pending", 400).pk, note("sent", 89).pk, note("dead", 10).pk}
    assert retention.prune().counts["notifications"] == len(gone)
    assert set(Notification.objects.values_list("pk", flat=True)) == keep


def test_old_task_failures_go_successes_are_left_to_django_q():
    old_failure, recent_failure, old_success = task(False, 31), task(False, 1), task(True, 31)
    assert retention.prune().counts["task_failures"] == 1
    assert set(Failure.objects.values_list("pk", flat=True)) == {recent_failure.pk}
    assert Success.objects.filter(pk=old_success.pk).exists()
    assert not Task.objects.filter(pk=old_failure.pk).exists()


def test_deletes_in_batches_and_stops_at_its_budget(monkeypatch):
    monkeypatch.setattr(retention, "BATCH", 2)
    kw = make_keyword()
    for _ in range(5):
        run(kw, S.SKIPPED, 40)
    seen = []
    result = retention.prune(progress=lambda name, n: seen.append((name, n)))
    assert seen == [("scrape_runs", 2), ("scrape_runs", 4), ("scrape_runs", 5)]
    run(kw, S.SKIPPED, 40)
    assert result.complete
    partial = retention.prune(budget_s=-1)
    assert not partial.complete and ScrapeRun.objects.count() == 1


def test_the_tick_prunes_once_a_day(telegram):
    kw = make_keyword()
    run(kw, S.SKIPPED, 40)
    started = timezone.now()
    tick()
    assert not ScrapeRun.objects.filter(status=S.SKIPPED).exists()
    assert Heartbeat.objects.get(name=retention.HEARTBEAT).last_seen_at >= started
    run(kw, S.SKIPPED, 40)
    tick()  # pruned less than a day ago: left for tomorrow
    assert ScrapeRun.objects.filter(status=S.SKIPPED).count() == 1
    Heartbeat.objects.filter(name=retention.HEARTBEAT).update(
        last_seen_at=timezone.now() - timedelta(days=1, seconds=1)
    )
    tick()
    assert not ScrapeRun.objects.filter(status=S.SKIPPED).exists()


def test_an_unfinished_prune_is_not_marked_done(monkeypatch):
    monkeypatch.setattr(retention, "TICK_BUDGET_S", -1)
    run(make_keyword(), S.SKIPPED, 40)
    assert not retention.prune_if_due().complete
    assert Heartbeat.age_seconds(retention.HEARTBEAT) is None
    assert ScrapeRun.objects.count() == 1


def test_prune_command_dry_run_counts_and_deletes_nothing(capsys):
    run(make_keyword(), S.SKIPPED, 40)
    note("sent", 100)
    call_command("prune", "--dry-run")
    out = capsys.readouterr().out
    assert "scrape_runs: 1 would be deleted" in out and "notifications: 1 would be deleted" in out
    assert ScrapeRun.objects.count() == 1 and Notification.objects.count() == 1
    call_command("prune")
    out = capsys.readouterr().out
    assert (
        "scrape_runs: 1 deleted so far" in out
        and "scrape_runs: 1 deleted" in out
        and "task_failures: 0 deleted" in out
    )
    assert ScrapeRun.objects.count() == 0 and Notification.objects.count() == 0
