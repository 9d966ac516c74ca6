"""Claimed runs become django-q2 tasks, each written by django_q.tasks.async_task.

async_task builds, signs and writes the package the way every worker of every cluster
expects, whatever django-q2 version or broker is installed. The tick's tasks share one
broker (one connection) and one database transaction: on the ORM broker (the default
database) each task is an INSERT, and one commit for all of them instead of one each
keeps a tick of hundreds of due keywords short (bench/README.md).

A run without a task would sit `running` until reaped as a zombie: when any task cannot
be written, every run of the batch is closed `failed` / `enqueue_failed` at once and its
keyword made due again, so the next tick retries it. On the ORM broker the batch's rows
are rolled back with it; a task already pushed to Redis finds its run closed and does
nothing (run_scrape runs only a `running` run).
"""

import logging

from django.db import transaction
from django_q.brokers import get_broker
from django_q.tasks import async_task

from scraping.failure_alerts import check_failures
from scraping.models import ScrapeRun
from tracker.models import Keyword

logger = logging.getLogger(__name__)

TASK = "scraping.tasks.run_scrape"
GROUP = "scrape"


def enqueue_scrapes(runs, broker=None):
    """Writes one run_scrape task per run; returns how many were written (all or none).

    If any task cannot be written, every run is failed as `enqueue_failed` (see above).
    """
    if not runs:
        return 0
    try:
        broker = broker or get_broker()
        with transaction.atomic():
            for run in runs:
                async_task(
                    TASK,
                    run.pk,
                    task_name=f"scrape-kw{run.keyword_id}-run{run.pk}",
                    group=GROUP,
                    broker=broker,
                )
    except Exception as exc:
        logger.exception(
            "could not enqueue the %d scrape runs of this batch (first: run %s)",
            len(runs),
            runs[0].pk,
        )
        for run in runs:
            _fail(run, exc)
        return 0
    return len(runs)


def _fail(run, exc):
    run.close(ScrapeRun.Status.FAILED, "enqueue_failed", f"{type(exc).__name__}: {exc}")
    Keyword.objects.filter(pk=run.keyword_id).make_due()
    check_failures(run.keyword_id)
