"""lib.signal_leader: stop signals reach the command's leader alone; a command that does not stop
is killed with its group."""

import signal
import subprocess
import sys
from pathlib import Path

from tests.processes import wait_for

LEADER = (
    """
import signal, subprocess, sys, time
grandchild = subprocess.Popen([sys.executable, "-c", sys.argv[1], sys.argv[2]], """
    """stdin=subprocess.PIPE)
def stop(signum, frame):
    grandchild.stdin.close()  # the leader ends its own children, as qcluster's main process does
    grandchild.wait()
    sys.exit(0)
signal.signal(signal.SIGTERM, stop)
print("ready", flush=True)
time.sleep(60)
"""
)
# Ends when its stdin closes, not by a signal: a SIGTERM that reaches it always runs the handler
# (and leaves the marker) before it exits.
GRANDCHILD = (
    """
import pathlib, signal, sys
signal.signal(signal.SIGTERM, lambda *a: open(sys.argv[1], "w")"""
    """.write("SIGTERM reached the grandchild"))
pathlib.Path(sys.argv[1] + ".ready").touch()
sys.stdin.readline()
"""
)
STUBBORN = """
import signal, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGINT, signal.SIG_IGN)
print("ready", flush=True)
time.sleep(30)
"""


def start(*command, grace=5):
    proc = subprocess.Popen(
        [sys.executable, "-m", "lib.signal_leader", "--grace", str(grace), *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    assert proc.stdout.readline().strip() == "ready"
    return proc


def test_sigterm_reaches_only_the_leader_which_stops_in_order(tmp_path):
    marker = tmp_path / "grandchild"
    proc = start(sys.executable, "-c", LEADER, GRANDCHILD, str(marker))
    # The grandchild's handler is in place: a SIGTERM reaching it would leave the marker.
    wait_for(lambda: Path(f"{marker}.ready").exists(), 60, "the grandchild to start")
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 0
    assert not marker.exists()


def test_a_command_that_does_not_stop_is_killed_with_its_group_after_the_grace():
    proc = start(sys.executable, "-c", STUBBORN, grace=1)
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=60) == 128 + signal.SIGKILL
    assert "did not stop within 1 s: SIGKILL to its process group" in proc.stdout.read()
