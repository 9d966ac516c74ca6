"""Helpers for tests that run real processes against the test database."""

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

from django.conf import settings
from django.db import connection


def database_url():
    """A DATABASE_URL that points a child process at the live test database."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        name = db["NAME"]
        if name == ":memory:" or "mode=memory" in str(name):
            raise RuntimeError(
                "child processes need a file database: mark the test postgres or use a file"
            )
        return f"sqlite:///{name}"
    user = db.get("USER") or ""
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return (
        f"postgres://{user}{password}@{db.get('HOST') or '127.0.0.1'}"
        f":{db.get('PORT') or 5432}/{db['NAME']}"
    )


def child_env(database=None, **extra):
    """The environment of a child process: the live test database, or with `database`
    (a path) its own SQLite file — for children that run without a test database."""
    env = dict(os.environ)
    env.update(
        DATABASE_URL=f"sqlite:///{database}" if database else database_url(),
        # django-q2 signs tasks with SECRET_KEY: a child with another key silently drops the tasks
        # this process enqueues.
        SECRET_KEY=settings.SECRET_KEY,
        DJANGO_SETTINGS_MODULE="lago.settings",
        PYTHONPATH=str(settings.BASE_DIR),
    )
    env.update({k: str(v) for k, v in extra.items()})
    return env


PYTHON = sys.executable


def copy_project(dest, parts):
    """Copies the named files and folders of the checkout into `dest` as a fresh clone has them:
    without tests, bytecode or compiled catalogues. Returns `dest`."""
    for part in parts:
        source = settings.BASE_DIR / part
        if source.is_dir():
            shutil.copytree(
                source, dest / part, ignore=shutil.ignore_patterns("tests", "__pycache__", "*.mo")
            )
        else:
            shutil.copy(source, dest / part)
    return dest


def run_python(code, env, check=False):
    """Runs `python -c code` in the project directory with `env`; its output is text."""
    return subprocess.run(
        [PYTHON, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        cwd=settings.BASE_DIR,
        check=check,
    )


def migrate(env):
    """Migrates the database a child environment points at."""
    subprocess.run(
        [PYTHON, "manage.py", "migrate", "-v", "0"], env=env, cwd=settings.BASE_DIR, check=True
    )


def wait_for(predicate, timeout, what, interval=0.1, proc=None):
    """Polls `predicate` until it returns something truthy (returned), failing the
    test after `timeout` seconds, or at once when `proc` (a child it waits on) exits."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if proc is not None and proc.poll() is not None:
            output = proc.stdout.read() if proc.stdout else ""
            raise AssertionError(
                f"process exited ({proc.returncode}) while waiting for {what}: {output}"
            )
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def descendants(pid):
    """Every process below `pid` (a qcluster's sentinel, pusher, monitor and workers)."""
    children = {}
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(
                line.split(":\t", 1) for line in status.read_text().splitlines() if ":\t" in line
            )
        except (FileNotFoundError, ProcessLookupError, ValueError):
            continue
        children.setdefault(int(fields.get("PPid", "0").strip()), []).append(
            int(fields["Pid"].strip())
        )
    found, stack = [], [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def sender_loop(seconds):
    """A `manage.py shell` script that sends until no row is pending (at most `seconds`), starting
    at the epoch time in $PACE_START_AT, so that several senders start together."""
    return f"""
import os, time
from notifications.models import Notification
from notifications.sender import process_queue
time.sleep(max(0.0, float(os.environ["PACE_START_AT"]) - time.time()))
deadline = time.monotonic() + {seconds}
while Notification.objects.filter(status="pending").exists() and time.monotonic() < deadline:
    if not process_queue():
        time.sleep(0.2)
"""


def run_shell_scripts(script, env, n, timeout):
    """Runs `script` in `n` `manage.py shell` processes at once and waits for all; each must exit
    0."""
    procs = [
        subprocess.Popen(
            [PYTHON, "manage.py", "shell", "-c", script],
            env=env,
            cwd=settings.BASE_DIR,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for _ in range(n)
    ]
    for proc in procs:
        out = proc.communicate(timeout=timeout)[0]
        assert proc.returncode == 0, out[-3000:]
