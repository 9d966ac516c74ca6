"""Claimed runs become django-q2 tasks, written to the broker in one batch.

Each task package is the one django_q.tasks.async_task builds (the same fields,
signed and pickled by django-q2's SignedPackage, pre_enqueue sent), so every
worker of every cluster takes it unchanged. Only the write differs: one INSERT
of all OrmQ rows (ORM broker) or one RPUSH of all packages (Redis broker),
where async_task writes each task on its own. Any other broker gets its
enqueue() once per task. django-q2's `sync` option is not honoured here (the
project never sets it).

A run without a task would sit `running` until reaped as a zombie: every run
whose task could not be written is closed `failed` / `enqueue_failed` at once
and its keyword made due again, so the next tick retries it. A batch write is
all or nothing (one statement in a savepoint, one Redis command), so a failing
batch fails all of its runs.
"""

import logging

from django.db import transaction
from django.utils import timezone
from django_q.brokers import get_broker
from django_q.brokers.orm import ORM
from django_q.brokers.redis_broker import Redis
from django_q.conf import Conf
from django_q.humanhash import uuid
from django_q.models import OrmQ
from django_q.signals import pre_enqueue
from django_q.signing import SignedPackage

from scraping.failure_alerts import check_failures
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
        packages = [_package(run) for run in runs]
        if isinstance(broker, ORM):
            _write_orm(broker, packages)
            written = len(packages)
        elif isinstance(broker, Redis):
            broker.connection.rpush(broker.list_key, *packages)
            written = len(packages)
        else:
            for package in packages:
                broker.enqueue(package)
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


def _package(run):
    """The signed task package async_task would build for run_scrape(run.pk)."""
    task = {
        "id": uuid()[1],
        "name": f"scrape-kw{run.keyword_id}-run{run.pk}",
        "func": TASK,
        "args": (run.pk,),
        "group": GROUP,
    }
    if Conf.CACHED:
        task["cached"] = Conf.CACHED
    if Conf.ACK_FAILURES:
        task["ack_failure"] = Conf.ACK_FAILURES
    task["kwargs"] = {}
    task["started"] = timezone.now()
    pre_enqueue.send(sender="django_q", task=task)
    return SignedPackage.dumps(task)


def _write_orm(broker, packages):
    """One INSERT for all packages, as ORM.enqueue() writes each (key, payload, lock)."""
    key, now = broker.list_key or Conf.CLUSTER_NAME, timezone.now()
    with transaction.atomic(using=Conf.ORM):
        OrmQ.objects.using(Conf.ORM).bulk_create(
            [OrmQ(key=key, payload=package, lock=now) for package in packages]
        )


def _fail(run, exc):
    run.close(ScrapeRun.Status.FAILED, "enqueue_failed", f"{type(exc).__name__}: {exc}")
    Keyword.objects.filter(pk=run.keyword_id).make_due()
    check_failures(run.keyword_id)
