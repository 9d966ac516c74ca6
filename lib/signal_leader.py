"""Runs one command in its own process group and passes SIGTERM/SIGINT to its leader alone.

    python -m lib.signal_leader [--grace SECONDS] command [args...]

For `make run` (Procfile): honcho stops a process by signalling its whole process group.
django-q2's qcluster does not survive that: its sentinel and workers die at once (SIGTERM's
default action there), and the main process then waits forever in `stop_event.set()` for the
dead sentinel (a multiprocessing Condition waits for each sleeper to wake up), until honcho
SIGKILLs it. Signalled alone, the main process stops its cluster in order: when idle, in about
a second.

A command still running `--grace` seconds after the first signal (a scrape that did not end
in time) is SIGKILLed with its whole group, so nothing outlives `make run`; the interrupted
scrape run stays `running` until the tick reaps it as a zombie.
"""

import argparse
import os
import signal
import subprocess
import sys
import time

DEFAULT_GRACE_S = 6.0


def group_alive(pgid):
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def run(command, grace):
    """Starts `command`, forwards stop signals to it, returns its exit status (128 + signal when
    killed)."""
    child = subprocess.Popen(command, process_group=0)
    deadline = None

    def forward(signum, frame):
        nonlocal deadline
        if deadline is None:
            deadline = time.monotonic() + grace
        if child.poll() is None:
            child.send_signal(signum)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    # Waits for the leader, then for what it left in its group; kills the group once the grace has
    # passed.
    while True:
        if child.poll() is not None:
            if not group_alive(child.pid):
                break
            deadline = deadline or time.monotonic() + grace
        if deadline is not None and time.monotonic() > deadline:
            print(
                f"signal_leader: {command[0]} did not stop within {grace:g} s: SIGKILL to its "
                "process group",
                file=sys.stderr,
                flush=True,
            )
            try:
                os.killpg(child.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            child.wait()
            break
        time.sleep(0.1)
    code = child.returncode
    return 128 - code if code < 0 else code


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m lib.signal_leader", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--grace",
        type=float,
        default=DEFAULT_GRACE_S,
        help=f"seconds before SIGKILL (default {DEFAULT_GRACE_S:g})",
    )
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    if not args.command:
        parser.error("a command to run is required")
    return run(args.command, args.grace)


if __name__ == "__main__":
    sys.exit(main())
