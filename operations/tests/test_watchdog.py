"""manage.py watchdog ends a child whose heartbeat goes stale, so the container restarts."""

import subprocess
import sys
import time

import pytest
from django.conf import settings

from tests.processes import child_env, migrate

# Wide enough that a loaded machine's Django start-up (several seconds) is not taken for a wedge.
STALE_S = 8
INTERVAL_S = 1
# The child beats once, then wedges (sleeps), like a cluster stuck on a lock.
WEDGED = (
    "from tracker.models import Heartbeat; import time; Heartbeat.beat('scheduler'); "
    "print('beat', flush=True); time.sleep(600)"
)
# The child beats every 0.3 s for 12 s (1.5 × the stale threshold), then exits 3.
HEALTHY = (
    "from tracker.models import Heartbeat; import time, sys\n"
    "for _ in range(40): Heartbeat.beat('scheduler'); time.sleep(0.3)\nsys.exit(3)"
)


@pytest.fixture
def env(tmp_path):
    env = child_env(
        database=tmp_path / "watchdog.sqlite3",
        HEALTHCHECK_SCHEDULER_STALE_S=STALE_S,
        WATCHDOG_INTERVAL_S=INTERVAL_S,
    )
    migrate(env)
    return env


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


def test_a_wedged_child_is_ended_within_stale_plus_one_check(env):
    proc = watchdog(env, WEDGED)
    # Timed from the child's only beat: the watchdog must act within STALE_S + INTERVAL_S of it.
    assert proc.stdout.readline().startswith("watchdog: pid")
    assert proc.stdout.readline().strip() == "beat"
    beat_at = time.monotonic()
    proc.wait(timeout=30)
    elapsed = time.monotonic() - beat_at
    assert proc.returncode == 1
    assert "scheduler heartbeat" in proc.stderr.read()
    # 1 s slack for reading the heartbeat and the child's SIGTERM exit on a loaded machine.
    assert STALE_S < elapsed < STALE_S + INTERVAL_S + 1, elapsed


def test_a_beating_child_runs_on_and_its_exit_code_is_passed_on(env):
    proc = watchdog(env, HEALTHY)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 3, out + err
    assert "exited with 3" in out and "stopping" not in err
