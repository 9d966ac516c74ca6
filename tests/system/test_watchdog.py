"""manage.py watchdog ends a child whose heartbeat goes stale, so the container restarts."""

import re
import subprocess
import sys

import pytest
from django.conf import settings

from tests.processes import child_env

# Wide enough that a loaded machine's Django start-up (several seconds) is not taken for a wedge.
STALE_S = 10
INTERVAL_S = 1
# The child beats once, then wedges (sleeps), like a cluster stuck on a lock.
WEDGED = (
    "from tracker.models import Heartbeat; import time; Heartbeat.beat('scheduler'); "
    "print('beat', flush=True); time.sleep(600)"
)
# The child beats every 0.3 s for 15 s (1.5 × the stale threshold), then exits 3.
HEALTHY = (
    "from tracker.models import Heartbeat; import time, sys\n"
    "for _ in range(50): Heartbeat.beat('scheduler'); time.sleep(0.3)\nsys.exit(3)"
)


@pytest.fixture
def env(sqlite_database):
    return child_env(
        database=sqlite_database,
        HEALTHCHECK_SCHEDULER_STALE_S=STALE_S,
        WATCHDOG_INTERVAL_S=INTERVAL_S,
    )


def watchdog(env, code):
    command = [
        sys.executable,
        "manage.py",
        "watchdog",
        "scheduler",
        "--",
        sys.executable,
        "manage.py",
        "shell",
        "-v",
        "0",
        "-c",
        code,
    ]
    return subprocess.Popen(
        command,
        env=env,
        cwd=settings.BASE_DIR,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_wedged_child_is_ended_once_its_heartbeat_is_stale(env):
    proc = watchdog(env, WEDGED)
    assert proc.stdout.readline().startswith("watchdog: pid")
    assert proc.stdout.readline().strip() == "beat"
    proc.wait(timeout=120)
    assert proc.returncode == 1
    # The age the watchdog read when it acted: past the threshold, not before it. How soon after
    # depends on the machine's load; each check is every INTERVAL_S.
    message = proc.stderr.read()
    age = re.search(r"scheduler heartbeat (\d+)s old", message)
    assert age and int(age.group(1)) >= STALE_S, message


def test_a_beating_child_runs_on_and_its_exit_code_is_passed_on(env):
    proc = watchdog(env, HEALTHY)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 3, out + err
    assert "exited with 3" in out and "stopping" not in err
