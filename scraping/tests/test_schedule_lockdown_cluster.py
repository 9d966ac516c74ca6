"""A real qcluster runs nothing of the schedules that carried the admin exploit, while the tick
and the scrapes it enqueues go on."""

from pathlib import Path

import pytest
from django.core.management import call_command
from django.utils import timezone
from django_q.models import Schedule, Task

from scraping.models import ScrapeRun
from scraping.task_guard import REFUSED
from tests.factories import make_keyword
from tests.fakes.willhaben_factory import make_raw_ads
from tests.processes import wait_for
from tests.reliability.helpers import Cluster

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(240),
]


def exploit_schedules(marker):
    """Rows as the admin stored them before the lock (setup_schedules would pause them)."""
    chain = (
        "{'q_options': {'cached': False, 'sync': False, "
        f"'chain': [('os.system', ('touch {marker}-chain',),)]}}}}"
    )
    past = timezone.now() - timezone.timedelta(seconds=5)
    common = {"schedule_type": Schedule.MINUTES, "minutes": 1, "repeats": -1, "next_run": past}
    Schedule.objects.create(name="evil-chain", func="scraping.tick.tick", kwargs=chain, **common)
    Schedule.objects.create(
        name="evil-func", func="os.system", args=f"'touch {marker}-func'", **common
    )
    Schedule.objects.create(name="evil-hook", func="scraping.tick.tick", hook="os.system", **common)


def test_a_cluster_runs_none_of_the_exploit_schedules(willhaben_server, tmp_path):
    willhaben_server.set_ads(make_raw_ads(3, newest=timezone.now()))
    make_keyword()
    call_command("setup_schedules", verbosity=0)
    marker = tmp_path / "pwned"
    exploit_schedules(marker)
    cluster = Cluster(
        workers=2, WILLHABEN_BASE_URL=willhaben_server.base_url, SCRAPE_MIN_REQUEST_GAP_MS=0
    ).start()
    evil = Schedule.objects.filter(name__startswith="evil-")

    def evil_tasks_done():
        ids = [task for task in evil.values_list("task", flat=True) if task]
        return len(ids) == 3 and Task.objects.filter(id__in=ids).count() == 3 and ids

    try:
        ids = wait_for(evil_tasks_done, 120, "the exploit schedules' tasks", proc=cluster.proc)
        # The real tick claimed the keyword and its run_scrape task finished it.
        wait_for(
            lambda: ScrapeRun.objects.filter(status="done").exists(),
            120,
            "the tick's scrape",
            proc=cluster.proc,
        )
        assert cluster.proc.poll() is None
    finally:
        cluster.stop()
        log = cluster.log_tail(chars=500_000)
        cluster.cleanup()
    assert not list(Path(tmp_path).glob("pwned*")), log[-3000:]
    tasks = Task.objects.filter(id__in=ids)
    assert {(t.func, t.success) for t in tasks} == {(REFUSED, False)}
    assert "refused task" in log and "KeyError" not in log
