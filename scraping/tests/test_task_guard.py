"""Only plain calls of Lago's task functions are enqueued; anything else becomes a refused task."""

import pytest
from django.core.management import call_command
from django.utils import timezone
from django_q.brokers import get_broker
from django_q.models import OrmQ, Schedule
from django_q.scheduler import scheduler
from django_q.signing import SignedPackage
from django_q.tasks import async_task

from scraping.task_guard import REFUSED, TaskRefused, refused
from scraping.tests.test_schedule_admin import EXPLOIT_KWARGS

pytestmark = pytest.mark.django_db


def queued():
    """The task packages in the ORM broker's queue, by group."""
    tasks = [SignedPackage.loads(row.payload) for row in OrmQ.objects.all()]
    return {task.get("group"): task for task in tasks}


# django-q2's scheduler closes the connection when it is inside a transaction (the test's).
@pytest.mark.django_db(transaction=True)
def test_the_exploit_schedule_enqueues_a_refused_task_beside_the_real_tick(caplog):
    call_command("setup_schedules", verbosity=0)
    past = timezone.now() - timezone.timedelta(minutes=1)
    Schedule.objects.create(name="evil", func="scraping.tick.tick", kwargs=EXPLOIT_KWARGS)
    Schedule.objects.update(next_run=past)
    scheduler(broker=get_broker())
    tasks = queued()
    assert tasks["lago-tick"]["func"] == "scraping.tick.tick"
    evil = tasks["evil"]
    assert evil["func"] == REFUSED and "chain" not in evil and evil["kwargs"] == {}
    assert evil["args"] == ("scraping.tick.tick with the option(s) chain",)
    assert "refused task" in caplog.text and "os.system" in caplog.text


@pytest.mark.parametrize(
    "func, options",
    [
        ("os.system", {}),
        ("scraping.tick.tick", {"hook": "os.system"}),
        ("scraping.tick.tick", {"chain": [("os.system", ("id",))], "cached": False}),
        ("scraping.tick.tick", {"sync": True}),
    ],
)
def test_a_foreign_call_is_refused(func, options):
    async_task(func, "id > /tmp/x", q_options={**options, "group": "g"})
    task = queued()["g"]
    assert task["func"] == REFUSED
    assert not {"hook", "chain", "sync"} & task.keys()


def test_lagos_own_tasks_pass_unchanged():
    async_task("scraping.tasks.run_scrape", 7, group="scrape")
    task = queued()["scrape"]
    assert (task["func"], task["args"]) == ("scraping.tasks.run_scrape", (7,))


def test_a_refused_task_fails_in_the_worker():
    with pytest.raises(TaskRefused, match="not one of"):
        refused("'os.system' is not one of Lago's task functions")
