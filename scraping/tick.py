"""The scheduler's tick, run by django-q2 every minute (see setup_schedules).

Order matters: the heartbeat first (so /health sees a live scheduler even if
a later step fails), notifications before scraping (sending is never starved
by a long claim), then housekeeping, then new work. The tick never scrapes
inline: each claimed keyword becomes a task any worker of any cluster can take.
"""

import logging

from django.conf import settings
from django.utils import timezone

from notifications.sender import process_queue
from scraping.claims import claim_due_keywords, claim_due_sweeps
from scraping.credentials import check_credentials
from scraping.enqueue import enqueue_scrapes
from scraping.failure_alerts import check_failures
from scraping.models import ScrapeRun
from scraping.retention import prune_if_due
from tracker.models import Heartbeat, Keyword

logger = logging.getLogger(__name__)


def tick():
    now = timezone.now()
    Heartbeat.beat("scheduler")
    sent = _step("send notifications", lambda: process_queue(limit=settings.NOTIFY_BATCH))
    reaped = _step("reap zombies", lambda: reap_zombies(now))
    _step("check credentials", lambda: check_credentials(now))
    _step("retention", lambda: prune_if_due(now))
    # Sweeps first: a claimed sweep moves its keyword's next_run_at too (it reads page 1).
    runs = claim_due_sweeps(now) + claim_due_keywords(now)
    enqueue_scrapes(runs)  # a run whose task could not be written is failed and due again
    logger.info("tick: sent=%s reaped=%s claimed=%d", sent, reaped, len(runs))
    return {"sent": sent, "reaped": reaped, "claimed": len(runs)}


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
        detail = f"still running after {minutes} minutes (started {run.started_at.isoformat()}): the worker died or hung"
        if run.close(ScrapeRun.Status.FAILED, "zombie", detail, now=now):
            Keyword.objects.filter(pk=run.keyword_id).make_due(now)
            logger.warning("reaped zombie run %s of keyword %s", run.pk, run.keyword_id)
            check_failures(run.keyword_id, now)
            reaped += 1
    return reaped
