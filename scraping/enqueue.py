"""Claimed runs become django-q2 tasks, each written by django_q.tasks.async_task.

async_task builds, signs and writes the package the way every worker of every cluster
expects, whatever django-q2 version or broker is installed; the tick reuses one broker
(one connection) for all of its runs.

A run without a task would sit `running` until reaped as a zombie: when a task cannot be
written, its run and every run after it are closed `failed` / `enqueue_failed` at once
and their keywords made due again, so the next tick retries them. The rest are not tried:
a broker that refused one task (down, a locked queue table) would most likely refuse
them all, each after its own timeout.
"""

import logging

from django_q.brokers import get_broker
from django_q.tasks import async_task

from scraping.failure_monitor import check_failures
from scraping.models import ScrapeRun
from tracker.models import Keyword

logger = logging.getLogger(__name__)

TASK = "scraping.tasks.run_scrape"
GROUP = "scrape"


def enqueue_scrapes(runs, broker=None):
    """Writes one run_scrape task per run; returns how many were written.

    Runs whose task could not be written are failed as `enqueue_failed` (see above).
    """
    if not runs:
        return 0
    written = 0
    try:
        broker = broker or get_broker()
        for run in runs:
            async_task(
                TASK,
                run.pk,
                task_name=f"scrape-kw{run.keyword_id}-run{run.pk}",
                group=GROUP,
                broker=broker,
            )
            written += 1
    except Exception as exc:
        unqueued = runs[written:]
        logger.exception(
            "could not enqueue %d of %d scrape runs (first: run %s)",
            len(unqueued),
            len(runs),
            unqueued[0].pk,
        )
        for run in unqueued:
            _fail(run, exc)
    return written


def _fail(run, exc):
    run.close(ScrapeRun.Status.FAILED, "enqueue_failed", f"{type(exc).__name__}: {exc}")
    Keyword.objects.filter(pk=run.keyword_id).make_due()
    check_failures(run.keyword_id)
