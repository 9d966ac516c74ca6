"""The health verdict: is Lago working, and if not, why (one reason slug).

Used by /health, `manage.py status`, and later the admin dashboard and the
bot's /health. Checks, in order (the first failing one names the reason):

1. the database answers `SELECT 1` within HEALTHCHECK_DB_TIMEOUT_S
   -> `database_unreachable` (nothing else is queried then: every further
   query would wait for its own connect timeout, or for ever on a server
   that hangs);
2. the scheduler heartbeat is younger than HEALTHCHECK_SCHEDULER_STALE_S
   -> `scheduler_stale_last_run_<N>s`, or `scheduler_never_ran` once this
   process has been up longer than the threshold (a fresh install gets that
   long for the first tick; `manage.py status` and `--check` give no grace);
3. with a bot token: the bot heartbeat is younger than HEALTHCHECK_BOT_STALE_S
   -> `bot_stale_last_run_<N>s` / `bot_never_ran` (same grace rule).

Sending paused for lack of a token and dead notifications are reported,
not unhealthy: restarting a container would not fix them. A failing
marketplace makes the verdict `degraded` (HTTP 200), with
`scraping_failing:<source>:<error>` / `scraping_stale:<source>:…` problems.
"""

import logging
import queue
import threading
from contextlib import contextmanager

from django.conf import settings
from django.db import DatabaseError, connection
from django.db.models import Count, Min, Q
from django.utils import timezone

from notifications.models import Notification
from notifications.telegram import sending_paused
from operations.scraping_health import scraping_report
from tracker.models import Heartbeat

logger = logging.getLogger(__name__)

# Recorded when the app registry loads this module (TrackerConfig.ready), i.e. at process start.
STARTED_AT = timezone.now()

SCHEDULER = "scheduler"
BOT = "bot"
WEB = "web"
STALE_SETTINGS = {SCHEDULER: "HEALTHCHECK_SCHEDULER_STALE_S", BOT: "HEALTHCHECK_BOT_STALE_S"}


def uptime_seconds(now=None):
    return max(0, int(((now or timezone.now()) - STARTED_AT).total_seconds()))


@contextmanager
def _short_connect_timeout():
    """Let this thread's connection (re)connect with the health check's own timeout.

    The wrapper's settings_dict is swapped for a copy, never mutated: the
    original dict is shared by every thread's connection.
    """
    if connection.vendor != "postgresql":
        yield
        return
    original = connection.settings_dict
    options = {**original.get("OPTIONS", {}), "connect_timeout": settings.HEALTHCHECK_DB_TIMEOUT_S}
    connection.settings_dict = {**original, "OPTIONS": options}
    try:
        yield
    finally:
        connection.settings_dict = original


def database_answers():
    """Does the database answer `SELECT 1` within HEALTHCHECK_DB_TIMEOUT_S?

    On PostgreSQL a thread of its own asks, on its own kept connection: a query on a
    server that stopped answering blocks with no time limit and cannot be cut short,
    but the caller can stop waiting for it.
    """
    if connection.vendor != "postgresql":
        return _select_one()
    global _probe
    with _probe_lock:
        if _probe is None:
            _probe = _Probe()
        probe = _probe
    answer = probe.ask(settings.HEALTHCHECK_DB_TIMEOUT_S)
    if answer is None:
        with _probe_lock:
            if _probe is probe:
                _probe = None  # stuck: the next check starts a new probe
        probe.retire()
        logger.warning(
            "health: database did not answer within %s s", settings.HEALTHCHECK_DB_TIMEOUT_S
        )
        return False
    return answer


class _Probe:
    """A daemon thread that runs `SELECT 1` on request, on a connection it keeps (one per
    process)."""

    def __init__(self):
        self.jobs = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._serve, name="health-db-probe", daemon=True)
        self.thread.start()

    def ask(self, timeout):
        """True/False, or None when no answer came within `timeout` seconds."""
        answer = queue.SimpleQueue()
        self.jobs.put(answer)
        try:
            return answer.get(timeout=timeout)
        except queue.Empty:
            return None

    def retire(self):
        """The thread closes its connection and ends once it is free (now, or when its query
        returns)."""
        self.jobs.put(None)

    def _serve(self):
        with _short_connect_timeout():
            while (answer := self.jobs.get()) is not None:
                answers = _select_one()
                # The kept connection may have died with a server restart: retry on a fresh one.
                if not answers:
                    connection.close()
                    answers = _select_one()
                answer.put(answers)
        connection.close()


_probe = None
_probe_lock = threading.Lock()


def stop_probe(timeout=5):
    """Ends the probe thread and its connection (tests: before the test database is dropped)."""
    global _probe
    with _probe_lock:
        probe, _probe = _probe, None
    if probe is not None:
        probe.retire()
        probe.thread.join(timeout)


def _select_one():
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)
    except DatabaseError as exc:
        logger.warning("health: database check failed: %s", exc)
        return False


def last_beats():
    """{name: last_seen_at or None} for the scheduler and the bot, in one query."""
    seen = dict(
        Heartbeat.objects.filter(name__in=[SCHEDULER, BOT]).values_list("name", "last_seen_at")
    )
    return {name: seen.get(name) for name in (SCHEDULER, BOT)}


def age_s(moment, now):
    return None if moment is None else (now - moment).total_seconds()


def heartbeat_problem(name, age, stale_s, in_grace):
    """The reason slug for one heartbeat, or None when it is fresh.

    `in_grace`: the process asking has not been up long enough to expect a beat yet.
    """
    if age is None:
        return None if in_grace else f"{name}_never_ran"
    if age > stale_s:
        return f"{name}_stale_last_run_{int(age)}s"
    return None


def queue_summary(now=None):
    """Outbox counts for /health, read from notification_open_idx (status, created_at) alone:
    counting `status` (never NULL), not `id`, lets PostgreSQL answer with an index-only scan,
    without visiting every dead row kept for RETENTION_NOTIFICATIONS_DAYS."""
    now = now or timezone.now()
    pending, dead = Notification.Status.PENDING, Notification.Status.DEAD
    row = Notification.objects.filter(status__in=[pending, dead]).aggregate(
        pending=Count("status", filter=Q(status=pending)),
        dead=Count("status", filter=Q(status=dead)),
        oldest=Min("created_at", filter=Q(status=pending)),
    )
    oldest = row["oldest"]
    return {
        "pending": row["pending"],
        "dead": row["dead"],
        "oldest_pending_age_s": max(0, int((now - oldest).total_seconds())) if oldest else None,
    }


def _iso(moment):
    return moment.isoformat() if moment else None


def _problem(name, age, uptime):
    """Grace only while this long-running process is younger than the threshold (uptime None:
    none)."""
    stale_s = getattr(settings, STALE_SETTINGS[name])
    return heartbeat_problem(name, age, stale_s, in_grace=uptime is not None and uptime < stale_s)


def _unreachable_report(base):
    return {
        **base,
        "status": "unhealthy",
        "reason": "database_unreachable",
        "problems": ["database_unreachable"],
        "db_connected": False,
    }


def health_report(now=None, grace=True):
    """The verdict as a JSON-ready dict: "status" is "ok", "degraded" (scraping fails; see
    operations.scraping_health) or "unhealthy" (then "reason" is the first problem slug).

    `grace=False` for one-shot processes (`manage.py status`), whose own uptime says nothing
    about how long the scheduler and bot have had to beat.
    """
    now = now or timezone.now()
    uptime = uptime_seconds(now) if grace else None
    paused = sending_paused()
    base = {
        "uptime_seconds": uptime_seconds(now),
        "sending_paused": paused,
        "scheduler_last_run": None,
        "scheduler_age_s": None,
        "telegram_polling": None,
        "queue": None,
    }
    if not database_answers():
        return _unreachable_report(base)
    beats = last_beats()
    scheduler_age, bot_age = age_s(beats[SCHEDULER], now), age_s(beats[BOT], now)
    problems = [_problem(SCHEDULER, scheduler_age, uptime)]
    if not paused:
        problems.append(_problem(BOT, bot_age, uptime))
        base["telegram_polling"] = (
            bot_age is not None and bot_age <= settings.HEALTHCHECK_BOT_STALE_S
        )
    problems = [p for p in problems if p]
    scraping = scraping_report(now)
    status = "unhealthy" if problems else "degraded" if scraping["problems"] else "ok"
    problems += scraping["problems"]
    report = {
        **base,
        "status": status,
        "db_connected": True,
        "scheduler_last_run": _iso(beats[SCHEDULER]),
        "scheduler_age_s": None if scheduler_age is None else int(scheduler_age),
        "queue": queue_summary(now),
        "problems": problems,
        "scraping": scraping,
    }
    if problems:
        report["reason"] = problems[0]
    return report


def process_problem(name, now=None):
    """The problem slug for one long-running process's own heartbeat, or None when fine.

    For container healthchecks (`status --check scheduler|bot`, `/health?check=web`): no
    grace period here, because each check is a new process; Docker's
    `start_period` is the grace. A bot without a token has nothing to poll. The web
    process needs only the database: another process's heartbeat never fails it.
    """
    if not database_answers():
        return "database_unreachable"
    if name == WEB:
        return None
    if name == BOT and sending_paused():
        return None
    now = now or timezone.now()
    stale_s = getattr(settings, STALE_SETTINGS[name])
    return heartbeat_problem(name, age_s(last_beats()[name], now), stale_s, in_grace=False)
