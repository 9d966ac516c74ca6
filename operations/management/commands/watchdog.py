"""Run a long-lived process and end it when its heartbeat goes stale (no Docker socket needed).

    manage.py watchdog scheduler -- python manage.py qcluster
    manage.py watchdog bot -- python manage.py runbot

Every WATCHDOG_INTERVAL_S the watchdog reads the heartbeat (tracker.models.Heartbeat). When it is
older than HEALTHCHECK_SCHEDULER_STALE_S / HEALTHCHECK_BOT_STALE_S (a heartbeat older than the
watchdog's own start counts from the start: the child gets that long for its first beat), the
child gets SIGTERM, then SIGKILL after WATCHDOG_KILL_AFTER_S, and the watchdog exits 1: as the
container's main process, `restart: unless-stopped` then starts a fresh one. SIGTERM/SIGINT sent
to the watchdog are passed to the child (compose stop: qcluster finishes its task); the watchdog
exits with the child's code when the child exits by itself.
"""

import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError, close_old_connections

from operations.health import STALE_SETTINGS
from tracker.models import Heartbeat


class Command(BaseCommand):
    help = __doc__.splitlines()[0]

    def add_arguments(self, parser):
        parser.add_argument(
            "heartbeat", choices=sorted(STALE_SETTINGS), help="The heartbeat the child writes."
        )
        parser.add_argument("child", nargs="+", help="The command to run (after --).")

    def handle(self, *args, heartbeat, child, **options):
        stale_s = getattr(settings, STALE_SETTINGS[heartbeat])
        interval = settings.WATCHDOG_INTERVAL_S
        started = time.monotonic()
        try:
            proc = subprocess.Popen(child)
        except OSError as exc:
            raise CommandError(f"watchdog: cannot start {child!r}: {exc}") from exc
        self.stdout.write(
            f"watchdog: pid {proc.pid} {' '.join(child)}; {heartbeat} stale after {stale_s}s, "
            f"checked every {interval}s"
        )
        self.stdout.flush()

        def forward(signum, frame):
            proc.send_signal(signum)

        signal.signal(signal.SIGTERM, forward)
        signal.signal(signal.SIGINT, forward)
        while True:
            try:
                return_code = proc.wait(timeout=interval)
            except subprocess.TimeoutExpired:
                age = self.age(heartbeat, time.monotonic() - started)
                if age is not None and age > stale_s:
                    self.stderr.write(
                        f"watchdog: {heartbeat} heartbeat {int(age)}s old (> {stale_s}s): stopping "
                        f"pid {proc.pid}"
                    )
                    self.stop(proc)
                    sys.exit(1)
                continue
            self.stdout.write(f"watchdog: pid {proc.pid} exited with {return_code}")
            sys.exit(return_code if return_code >= 0 else 128 - return_code)

    def age(self, heartbeat, running_s):
        """Seconds since the last beat, counted from the watchdog's start at most; None if
        unreadable."""
        close_old_connections()
        try:
            age = Heartbeat.age_seconds(heartbeat)
        except DatabaseError as exc:
            # A database outage is not the child's fault: the web healthcheck reports it.
            self.stderr.write(f"watchdog: cannot read the {heartbeat} heartbeat: {exc}")
            return None
        return running_s if age is None else min(age, running_s)

    def stop(self, proc):
        proc.terminate()
        try:
            proc.wait(timeout=settings.WATCHDOG_KILL_AFTER_S)
        except subprocess.TimeoutExpired:
            self.stderr.write(
                f"watchdog: pid {proc.pid} ignored SIGTERM for {settings.WATCHDOG_KILL_AFTER_S}s: "
                "SIGKILL"
            )
            proc.kill()
            proc.wait()
