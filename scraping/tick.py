"""The scheduler's tick, run by django-q2 every minute (see setup_schedules).

Order matters: the heartbeat first (so /health sees a live scheduler even if
a later step fails), notifications before scraping (sending is never starved
by a long claim), then housekeeping, then new work. The tick never scrapes
inline: each claimed keyword becomes a task any worker of any cluster can take.

django-q2 passes the moment the tick was scheduled for (`scheduled_at`, see setup_schedules):
the claims measure the next windows from it, so a tick that waited in the queue does not
push its keywords past the next tick (scraping/claims.py).
"""

import logging
from datetime import datetime

from django.conf import settings
from django.utils import timezone

from notifications.reports import queue_due_reports
from notifications.tasks import send_due
from scraping.claims import claim_due_keywords, claim_due_sweeps, window_base
from scraping.credentials import check_credentials
from scraping.enqueue import enqueue_scrapes
from scraping.failure_alerts import check_failures, send_failure_alerts
from scraping.models import ScrapeRun
from scraping.retention import prune_if_due
from tracker.models import Heartbeat, Keyword

logger = logging.getLogger(__name__)


def tick(scheduled_at=None):
    now = timezone.now()
    base = window_base(now, _parse(scheduled_at))
    Heartbeat.beat("scheduler")
    # Before sending, so a source's failing alert leaves with this tick's batch.
    _step("failure alerts", lambda: send_failure_alerts(now))
    # Also before sending: a weekly report whose hour has come leaves with this batch.
    _step("weekly reports", lambda: queue_due_reports(now))
    # One batch (NOTIFY_BATCH) here; a longer outbox goes on draining in send tasks.
    sent = _step("send notifications", send_due)
    reaped = _step("reap zombies", lambda: reap_zombies(now))
    _step("check credentials", lambda: check_credentials(now))
    _step("retention", lambda: prune_if_due(now))
    # Sweeps first: a claimed sweep moves its keyword's next_run_at too (it reads page 1).
    runs = claim_due_sweeps(now, base=base) + claim_due_keywords(now, base=base)
    enqueue_scrapes(runs)  # a run whose task could not be written is failed and due again
    logger.info("tick: sent=%s reaped=%s claimed=%d", sent, reaped, len(runs))
    return {"sent": sent, "reaped": reaped, "claimed": len(runs)}


def _parse(scheduled_at):
    """django-q2 hands the scheduled moment as an ISO string; a bad one falls back to now."""
    if scheduled_at is None or isinstance(scheduled_at, datetime):
        return scheduled_at
    try:
        moment = datetime.fromisoformat(scheduled_at)
    except (TypeError, ValueError):
        moment = None
    if moment is None or timezone.is_naive(moment):
        logger.warning(
            "tick: ignoring a scheduled moment that is not a dated time: %r", scheduled_at
        )
        return None
    return moment


def _step(name, fn):
    """One failing step must not stop the others; it is logged with its traceback."""
    try:
        return fn()
    except Exception:
        logger.exception("tick step %r failed", name)
        return None


def enqueue_scrape(run):
    """One run's task (the operator's Run now); see scraping.enqueue."""
    return enqueue_scrapes([run])


def reap_zombies(now=None):
    """Fails runs whose worker died (killed, OOM, redeploy) and makes their keywords due again."""
    now = now or timezone.now()
    minutes = settings.SCRAPE_ZOMBIE_MINUTES
    reaped = 0
    for run in ScrapeRun.objects.zombies(now, minutes).only(
        "pk", "keyword_id", "started_at", "status"
    ):
        detail = (
            f"still running after {minutes} minutes (started {run.started_at.isoformat()}): "
            "the worker died or hung"
        )
        if run.close(ScrapeRun.Status.FAILED, "zombie", detail, now=now):
            Keyword.objects.filter(pk=run.keyword_id).make_due(now)
            logger.warning("reaped zombie run %s of keyword %s", run.pk, run.keyword_id)
            check_failures(run.keyword_id, now)
            reaped += 1
    return reaped
