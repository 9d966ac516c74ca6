"""Retention: history older than its setting is deleted, in bounded batches.

What goes (cutoffs from RETENTION_RUNS_DAYS and RETENTION_NOTIFICATIONS_DAYS):

- scrape runs started before the runs cutoff, except runs still `running` and,
  per keyword, its latest `done` run and its latest failed run (`failed` or
  `banned`): "last success" and "last error" stay answerable for every keyword;
- notifications created before the notifications cutoff that are settled:
  `sent`, `cancelled` or `dead` (pending rows are never deleted);
- django-q2 failure rows (`django_q.models.Failure`) stopped before the runs
  cutoff (django-q2 caps successes by `save_limit`, but keeps failures forever).

Each DELETE takes at most BATCH ids, so no statement holds row locks for long.
The tick calls `prune_if_due` every minute: it prunes once a day, at most
TICK_BUDGET_S seconds per tick, and marks the day done (Heartbeat "retention")
only when nothing is left, so a large backlog is worked off over several ticks.
"""

import logging
import time
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone
from django_q.models import Failure

from notifications.models import Notification
from scraping.models import ScrapeRun
from tracker.models import Heartbeat

logger = logging.getLogger(__name__)

BATCH = 1000
HEARTBEAT = "retention"
INTERVAL = timedelta(days=1)
TICK_BUDGET_S = 20

FAILED_STATUSES = [ScrapeRun.Status.FAILED, ScrapeRun.Status.BANNED]
SETTLED_NOTIFICATIONS = [
    Notification.Status.SENT,
    Notification.Status.CANCELLED,
    Notification.Status.DEAD,
]


def _newer_of_same_keyword(statuses):
    """A run of the same keyword in `statuses` that started after the outer run."""
    later = Q(started_at__gt=OuterRef("started_at")) | Q(
        started_at=OuterRef("started_at"), pk__gt=OuterRef("pk")
    )
    return Exists(ScrapeRun.objects.filter(later, keyword=OuterRef("keyword"), status__in=statuses))


def expired_runs(now):
    cutoff = now - timedelta(days=settings.RETENTION_RUNS_DAYS)
    old = ScrapeRun.objects.filter(started_at__lt=cutoff).exclude(status=ScrapeRun.Status.RUNNING)
    done, failed = [ScrapeRun.Status.DONE], FAILED_STATUSES
    return old.filter(
        Q(keyword__isnull=True)
        | ~Q(status__in=done + failed)
        | Q(status__in=done) & _newer_of_same_keyword(done)
        | Q(status__in=failed) & _newer_of_same_keyword(failed)
    )


def expired_notifications(now):
    cutoff = now - timedelta(days=settings.RETENTION_NOTIFICATIONS_DAYS)
    return Notification.objects.filter(status__in=SETTLED_NOTIFICATIONS, created_at__lt=cutoff)


def expired_failures(now):
    cutoff = now - timedelta(days=settings.RETENTION_RUNS_DAYS)
    return Failure.objects.filter(stopped__lt=cutoff)


# name -> (query, batch order). Each batch is read in the order of the cutoff's column,
# so it is a range scan of scraperun_recent_idx / notification_created_idx that stops
# at the cutoff, not a walk over the whole primary key when little has expired.
TARGETS = {
    "scrape_runs": (expired_runs, "started_at"),
    "notifications": (expired_notifications, "created_at"),
    "task_failures": (expired_failures, "stopped"),
}


@dataclass
class PruneResult:
    counts: dict = field(default_factory=lambda: dict.fromkeys(TARGETS, 0))
    complete: bool = True


def count(now=None):
    """What a prune would delete now (for --dry-run)."""
    now = now or timezone.now()
    return {name: query(now).count() for name, (query, _order) in TARGETS.items()}


def prune(now=None, budget_s=None, progress=None):
    """Deletes expired rows in batches of BATCH ids.

    Stops early (result.complete False) when `budget_s` seconds have passed;
    `progress(name, deleted_so_far)` is called after each batch.
    """
    now = now or timezone.now()
    started = time.monotonic()
    result = PruneResult()
    for name, (query, order) in TARGETS.items():
        model = query(now).model
        while True:
            if budget_s is not None and time.monotonic() - started > budget_s:
                result.complete = False
                return result
            ids = list(query(now).order_by(order).values_list("pk", flat=True)[:BATCH])
            if not ids:
                break
            # Nothing references these rows and they have no delete signals: one plain DELETE.
            deleted, _ = model.objects.filter(pk__in=ids).delete()
            result.counts[name] += deleted
            if progress:
                progress(name, result.counts[name])
            if len(ids) < BATCH:
                break
    return result


def prune_if_due(now=None):
    """Called by every tick: prunes when the last complete prune is a day old."""
    now = now or timezone.now()
    age = Heartbeat.age_seconds(HEARTBEAT, now)
    if age is not None and age < INTERVAL.total_seconds():
        return None
    result = prune(now, budget_s=TICK_BUDGET_S)
    if result.complete:
        Heartbeat.beat(HEARTBEAT, detail=", ".join(f"{k}={v}" for k, v in result.counts.items()))
    logger.info(
        "retention: deleted %s%s",
        result.counts,
        "" if result.complete else " (budget spent, continues next tick)",
    )
    return result
