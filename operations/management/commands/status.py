"""Is Lago working? The health verdict, each keyword's last and next run, alerts and the queue.

    manage.py status                    readable table
    manage.py status --json             the same as JSON on one line ({"health": …, "stats": …}; `|
    jq` to read)
    manage.py status --check scheduler  only the scheduler heartbeat (worker container healthcheck)
    manage.py status --check bot        only the bot heartbeat (bot container healthcheck)
    manage.py status --check web        GET /health?check=web on the local web server: gunicorn
    answers and
                                        reaches the database (web container healthcheck; sends a
                                        Host
                                        from ALLOWED_HOSTS, so it works when that holds only the
                                        public domain)

Exit code 0 when healthy, 1 when unhealthy, 2 when degraded (a marketplace fails:
each failing source/keyword is printed with its full last error). `--check` exits 0/1
and ignores scraping: a restart does not fix a ban.
"""

import json
import sys
import textwrap
import urllib.error
import urllib.request
from datetime import datetime

from django.conf import settings
from django.core.management.base import BaseCommand
from django.core.serializers.json import DjangoJSONEncoder
from django.utils import timezone
from django.utils.translation import ngettext

from operations.health import BOT, SCHEDULER, health_report, process_problem
from operations.stats import collect_stats

DEFAULT_WEB_URL = "http://127.0.0.1:8000/health?check=web"
EXIT_CODES = {"ok": 0, "unhealthy": 1, "degraded": 2}
NAME_WIDTH = 40


def _when(moment):
    """A moment (or the ISO text health_report gives) in TIME_ZONE, to the second."""
    if isinstance(moment, str):
        moment = datetime.fromisoformat(moment)
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M:%S") if moment else "-"


def _ago(moment, now):
    return f"{int((now - moment).total_seconds())} s ago" if moment else "never"


class Command(BaseCommand):
    help = __doc__.splitlines()[0]
    # A diagnosis, run by hand and by every container healthcheck: the start-up warnings
    # (lago.W001: no bot token) belong to `check` and the processes' start, not to each call.
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("--json", action="store_true", help="Print JSON instead of a table.")
        parser.add_argument(
            "--check",
            choices=[SCHEDULER, BOT, "web"],
            help="Check one process only (for container healthchecks) and exit 0/1.",
        )
        parser.add_argument(
            "--url",
            default=DEFAULT_WEB_URL,
            help=f"With --check web: the /health URL (default {DEFAULT_WEB_URL}).",
        )

    def handle(self, *args, **options):
        if options["check"]:
            healthy = self.check_one(options["check"], options["url"])
        else:
            status = self.report(options["json"], options["verbosity"])
            if status != "ok":
                sys.exit(EXIT_CODES[status])
            return
        if not healthy:
            sys.exit(1)

    def check_one(self, name, url):
        problem = web_problem(url) if name == "web" else process_problem(name)
        if problem:
            self.stderr.write(self.style.ERROR(f"{name}: unhealthy: {problem}"))
            return False
        self.stdout.write(self.style.SUCCESS(f"{name}: ok"))
        return True

    def report(self, as_json, verbosity):
        now = timezone.now()
        health = health_report(now, grace=False)
        stats = collect_stats(now, queue=health["queue"]) if health["db_connected"] else None
        if as_json:
            # One line: the json module's C encoder (indent= falls back to the Python one, 2-3x
            # slower for 300 keywords).
            self.stdout.write(json.dumps({"health": health, "stats": stats}, cls=DjangoJSONEncoder))
        else:
            self.write_health(health, now)
            if stats is not None:
                self.write_stats(stats, now, verbosity)
        return health["status"]

    def write_health(self, health, now):
        if health["status"] == "ok":
            self.stdout.write(self.style.SUCCESS("Lago: healthy"))
        elif health["status"] == "degraded":
            self.stdout.write(
                self.style.WARNING(f"Lago: DEGRADED ({', '.join(health['problems'])})")
            )
        else:
            self.stdout.write(
                self.style.ERROR(f"Lago: UNHEALTHY ({', '.join(health['problems'])})")
            )
        self.stdout.write(
            f"  database     {'connected' if health['db_connected'] else 'UNREACHABLE'}"
        )
        self.stdout.write(f"  uptime       {health['uptime_seconds']} s (this process)")
        if not health["db_connected"]:
            return
        age = health["scheduler_age_s"]
        ago = f" ({age} s ago)" if age is not None else ""
        self.stdout.write(
            f"  scheduler    last tick {_when(health['scheduler_last_run'])}{ago}"
            if health["scheduler_last_run"]
            else "  scheduler    last tick never"
        )
        polling = {None: "disabled (no TELEGRAM_BOT_TOKEN)", True: "polling", False: "NOT polling"}[
            health["telegram_polling"]
        ]
        self.stdout.write(f"  bot          {polling}")
        self.stdout.write(
            "  sending      "
            f"{'PAUSED (no TELEGRAM_BOT_TOKEN)' if health['sending_paused'] else 'active'}"
        )
        queue = health["queue"]
        oldest = (
            f", oldest {queue['oldest_pending_age_s']} s"
            if queue["oldest_pending_age_s"] is not None
            else ""
        )
        self.stdout.write(
            f"  queue        {queue['pending']} pending{oldest}, {queue['dead']} dead"
        )
        self.write_scraping(health["scraping"])

    def write_scraping(self, scraping):
        for source, minutes in scraping["stale"].items():
            self.stdout.write(
                self.style.WARNING(f"  scraping     {source}: no successful run for {minutes} min")
            )
        for k in scraping["failing"]:
            name = k["name"] or k["query"]
            failures = k["consecutive_failures"]
            self.stdout.write(
                self.style.WARNING(
                    f"  FAILING      {k['source']} keyword #{k['id']} {name}: "
                    + ngettext("%(n)d failed run in a row", "%(n)d failed runs in a row", failures)
                    % {"n": failures}
                    + ", "
                    f"last {k['last_finished_status']}: {k['last_error']}"
                )
            )
            if k["last_error_detail"]:
                self.stdout.write(f"               {k['last_error_detail']}")

    def write_stats(self, stats, now, verbosity):
        self.stdout.write("")
        self.stdout.write(f"Keywords: {stats['active_keywords']} active of {stats['keywords']}")
        shown = [k for k in stats["keyword_runs"] if k["is_active"] or verbosity >= 2]
        header = ("id", "keyword", "every", "last run", "when", "seen/new", "next run", "alerts")
        rows = [[str(cell) for cell in self.keyword_cells(k, now)] for k in shown]
        # Each column as wide as its widest cell; names wrap onto more lines past NAME_WIDTH.
        widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=True)]
        widths[1] = min(widths[1], NAME_WIDTH)
        right = {0, 2, 5}  # numbers: id, interval, seen/new

        def line(cells):
            padded = [
                cell.rjust(width) if i in right else cell.ljust(width)
                for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
            ]
            return ("  " + "  ".join(padded)).rstrip()

        self.stdout.write(line(header))
        for cells in rows:
            first, *more = textwrap.wrap(cells[1], widths[1]) or [""]
            self.stdout.write(line([cells[0], first, *cells[2:]]))
            for piece in more:
                self.stdout.write(line(["", piece] + [""] * (len(header) - 2)))
        self.stdout.write("")
        shown = {
            k: f"~{v}" if k in stats["estimated"] else v for k, v in stats.items()
        }  # ~: an estimate
        self.stdout.write(
            f"Ads: {shown['ads_indexed']} indexed, {stats['ads_new_24h']} new and "
            f"{stats['price_drops_24h']} price drops in 24 h"
        )
        runs = ", ".join(f"{s} {n}" for s, n in stats["runs_24h"].items() if n) or "none"
        skips = ", ".join(f"{r} {n}" for r, n in stats["skips_24h"].items()) or "none"
        self.stdout.write(f"Runs (24 h): {runs}; skips: {skips}")
        for figures, when in stats["read_at"].items():
            if when < now:  # a big installation's cached reading (STATS_CACHE_S)
                self.stdout.write(f"({figures} read {_ago(when, now)})")
        self.stdout.write(
            f"Notifications: {shown['notifications_sent']} sent, {stats['notifications_pending']} "
            "pending, "
            f"{stats['notifications_dead']} dead"
        )
        for source, when in stats["last_success_per_source"].items():
            self.stdout.write(f"Last successful run on {source}: {_when(when)} ({_ago(when, now)})")
        for d in stats["destinations"]:  # the URL masked (apprise_channel.mask)
            error = f", last error {_when(d['last_error_at'])}: {d['last_error']}"
            self.stdout.write(
                f"Destination {d['name']} ({d['url']}): {d['status']}, last success "
                f"{_when(d['last_success_at'])}{error if d['last_error'] else ''}"
            )

    @staticmethod
    def keyword_cells(k, now):
        run = k["last_run"] or {}
        status = run.get("status", "never")
        if run.get("error"):
            status = f"{status}:{run['error']}"
        alerts = []
        if k["overdue_s"] is not None:
            alerts.append(f"OVERDUE by {k['overdue_s']} s")
        if k["zero_result_alert_at"]:
            alerts.append(f"zero results since {_when(k['zero_result_alert_at'])}")
        if not k["is_active"]:
            alerts.append("inactive")
        seen = f"{run['ads_seen']}/{run['ads_new']}" if run else "-"
        return (
            k["id"],
            k["name"],
            f"{k['interval_minutes']}m",
            status,
            _when(run.get("started_at")),
            seen,
            _when(k["next_run_at"]),
            ", ".join(alerts),
        )


def probe_host():
    """A Host header Django accepts: the first ALLOWED_HOSTS entry that names a host (None: the
    URL's own)."""
    for host in settings.ALLOWED_HOSTS:
        host = host.lstrip(".")  # ".example.org" allows example.org and its subdomains
        if host and host != "*":
            return host
    return None


def web_problem(url):
    """GET the /health URL: None when it answers 200, else the reason it gives (or the transport
    error)."""
    host = probe_host()
    request = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return None if response.status == 200 else f"http_{response.status}"
    except urllib.error.HTTPError as exc:
        body = exc.read().decode(errors="replace")
        try:
            return json.loads(body).get("reason") or f"http_{exc.code}"
        except ValueError:
            return f"http_{exc.code}"
    except OSError as exc:
        return f"web_unreachable ({exc})"
