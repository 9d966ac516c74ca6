"""Claimed runs become tasks through async_task; django-q2's own pusher, worker and monitor run
them; a broker that cannot take them fails every run of the batch, none is left running without
a task."""

from multiprocessing import Event, Queue, Value

import psycopg
import pytest
from django.db import connection
from django.utils import timezone
from django_q.brokers.orm import ORM
from django_q.brokers.redis_broker import Redis
from django_q.conf import Conf
from django_q.models import OrmQ, Task
from django_q.monitor import monitor
from django_q.pusher import pusher
from django_q.worker import worker

from scraping.claims import claim_due_keywords
from scraping.enqueue import enqueue_scrapes
from scraping.models import ScrapeRun
from scraping.tick import tick
from tests.factories import make_keyword
from tests.fakes.willhaben_factory import make_raw_ads
from tests.processes import free_port
from tests.reliability.helpers import running_redis
from tracker.models import Keyword

# transaction=True: django-q2's worker and monitor close old connections, as in a cluster.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def no_jitter(settings):
    settings.SCHEDULER_JITTER_S = 0


def claimed_runs(count):
    for _ in range(count):
        make_keyword()
    runs = claim_due_keywords()
    assert len(runs) == count
    return runs


def run_queued_tasks(broker, count):
    """django-q2's own path, in this process: the pusher takes the tasks off the broker, a
    worker runs them, the monitor saves their results and acknowledges them."""
    tasks, results, stop = Queue(), Queue(), Event()
    stop.set()  # each pusher() call dequeues once
    for _ in range(count):
        pusher(tasks, stop, broker=broker)
    tasks.put("STOP")
    worker(tasks, results, Value("f", -1))
    results.put("STOP")
    monitor(results, broker=broker)


def assert_scraped(runs):
    run_ids = [run.pk for run in runs]
    assert set(ScrapeRun.objects.filter(pk__in=run_ids).values_list("status", flat=True)) == {
        "done"
    }
    tasks = Task.objects.filter(group="scrape", success=True)
    assert sorted(tasks.values_list("name", flat=True)) == sorted(
        f"scrape-kw{run.keyword_id}-run{run.pk}" for run in runs
    )
    assert sorted(task.args[0] for task in tasks) == sorted(run_ids)


def test_orm_broker_gets_one_task_per_run_and_a_worker_runs_them(willhaben_server):
    willhaben_server.set_ads(make_raw_ads(3))
    runs = claimed_runs(5)
    broker = ORM()
    assert enqueue_scrapes(runs, broker) == 5
    assert OrmQ.objects.filter(key=broker.list_key).count() == 5
    run_queued_tasks(broker, 5)
    assert_scraped(runs)
    assert OrmQ.objects.count() == 0, "the monitor acknowledged every task"


def test_redis_broker_gets_one_task_per_run_and_a_worker_runs_them(willhaben_server, monkeypatch):
    willhaben_server.set_ads(make_raw_ads(3))
    runs = claimed_runs(5)
    with running_redis() as url:
        monkeypatch.setattr(Conf, "REDIS", url)  # what Q_BROKER=redis puts into Q_CLUSTER["redis"]
        broker = Redis()
        assert enqueue_scrapes(runs, broker) == 5
        assert broker.queue_size() == 5
        run_queued_tasks(broker, 5)
    assert_scraped(runs)


def assert_all_failed_and_due(runs):
    now = timezone.now()
    assert not ScrapeRun.objects.running().exists(), "no run left running without a task"
    closed = ScrapeRun.objects.filter(pk__in=[run.pk for run in runs])
    assert set(closed.values_list("status", "error")) == {("failed", "enqueue_failed")}
    assert Keyword.objects.filter(
        pk__in=[run.keyword_id for run in runs], next_run_at__lte=now
    ).count() == len(runs)


def test_a_tick_whose_redis_broker_is_down_fails_every_claimed_run_and_makes_them_due(
    monkeypatch, telegram
):
    keywords = [make_keyword() for _ in range(4)]
    monkeypatch.setattr(Conf, "ORM", None)  # Q_BROKER=redis, and nothing listens on its port
    monkeypatch.setattr(Conf, "REDIS", f"redis://127.0.0.1:{free_port()}/0")
    assert tick()["claimed"] == 4
    assert_all_failed_and_due(ScrapeRun.objects.filter(keyword__in=keywords))
    assert "ConnectionError" in ScrapeRun.objects.filter(keyword__in=keywords).first().detail


class BrokerFullAfterTwo(ORM):
    """An ORM broker that refuses every task after its second."""

    def enqueue(self, task):
        if OrmQ.objects.count() >= 2:
            raise ConnectionError("queue refused the task")
        return super().enqueue(task)


def test_a_broker_failing_midway_writes_no_task_and_fails_every_run():
    runs = claimed_runs(4)
    assert enqueue_scrapes(runs, BrokerFullAfterTwo()) == 0
    assert OrmQ.objects.count() == 0, "the tasks written before the failure are rolled back"
    assert_all_failed_and_due(runs)


@pytest.mark.postgres
def test_a_locked_queue_table_fails_the_whole_orm_batch(settings):
    """A task's INSERT times out on a lock (a migration, VACUUM FULL): no task is written and
    every run of the batch is failed, never some written and others running without one."""
    runs = claimed_runs(3)
    dsn = connection.get_connection_params()
    with psycopg.connect(**{k: v for k, v in dsn.items() if k != "cursor_factory"}) as other:
        other.execute("LOCK TABLE django_q_ormq IN ACCESS EXCLUSIVE MODE")
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '200ms'")
        try:
            assert enqueue_scrapes(runs, ORM()) == 0
        finally:
            with connection.cursor() as cursor:
                cursor.execute("RESET lock_timeout")
        other.rollback()
    assert OrmQ.objects.count() == 0
    assert_all_failed_and_due(runs)
    assert "lock timeout" in ScrapeRun.objects.get(pk=runs[0].pk).detail
