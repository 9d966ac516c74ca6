"""`manage.py status`: the table, --json, --check, and exit codes usable as container
healthchecks."""

import json
import textwrap

import pytest
from django.core.management import call_command, get_commands, load_command_class
from django.core.management.base import OutputWrapper
from django.test import override_settings

from operations import health
from operations.tests.conftest import ago
from scraping.models import ScrapeRun
from tracker.models import Heartbeat

pytestmark = pytest.mark.django_db


def run_status(*args):
    """(exit code, stdout, stderr) of `manage.py status *args`."""
    from io import StringIO

    out, err = StringIO(), StringIO()
    try:
        call_command("status", *args, stdout=out, stderr=err)
        code = 0
    except SystemExit as exc:
        code = exc.code
    return code, out.getvalue(), err.getvalue()


def test_healthy_table_exits_0(seeded):
    code, out, _ = run_status()
    assert code == 0
    assert "Lago: healthy" in out
    assert "queue        2 pending, oldest 600 s, 1 dead" in out
    assert "OVERDUE by 540 s" in out
    assert "zero results since" in out
    assert (
        "Runs (24 h): running 1, done 3, failed 1, banned 1, skipped 2; skips: already_running 3, "
        "concurrent_claim 1" in out
    )
    assert "Notifications: 4 sent, 2 pending, 1 dead" in out
    assert "30/2" in out  # "fresh": ads seen/new of its last run


def test_inactive_keywords_only_with_verbosity_2(seeded):
    assert "inactive" not in run_status()[1]
    assert "inactive" in run_status("-v", "2")[1]


def test_unhealthy_exits_1_with_the_reason(seeded, clock):
    clock.shift(200)
    code, out, _ = run_status()
    assert code == 1
    assert "UNHEALTHY (scheduler_stale_last_run_230s)" in out


def test_json_has_health_and_stats(seeded):
    code, out, _ = run_status("--json")
    assert code == 0
    body = json.loads(out)
    assert body["health"]["status"] == "ok"
    assert body["stats"]["ads_indexed"] == 5
    assert body["stats"]["overdue_keywords"][0]["name"] == "stuck"


def test_unreachable_database_exits_1_without_stats(db, monkeypatch):
    monkeypatch.setattr(health, "database_answers", lambda: False)
    code, out, _ = run_status("--json")
    assert code == 1
    body = json.loads(out)
    assert set(body) == {"health", "stats"} and body["stats"] is None
    assert body["health"]["reason"] == "database_unreachable"
    assert "database     UNREACHABLE" in run_status()[1]


def test_check_scheduler(clock):
    assert (
        run_status("--check", "scheduler")[0] == 1
    )  # never beat: no grace, Docker's start_period is the grace
    Heartbeat.beat("scheduler")
    assert run_status("--check", "scheduler")[0] == 0
    clock.shift(181)
    code, _, err = run_status("--check", "scheduler")
    assert code == 1
    assert "scheduler_stale_last_run_181s" in err


def test_check_scheduler_ignores_the_bot(clock, settings):
    settings.TELEGRAM_BOT_TOKEN = "1:x"
    Heartbeat.beat("scheduler")
    assert run_status("--check", "scheduler")[0] == 0


@override_settings(TELEGRAM_BOT_TOKEN="1:x")
def test_check_bot_with_a_token(clock):
    Heartbeat.beat("scheduler")
    assert run_status("--check", "bot")[0] == 1
    Heartbeat.objects.create(name="bot", last_seen_at=ago(seconds=10))
    assert run_status("--check", "bot")[0] == 0


@override_settings(TELEGRAM_BOT_TOKEN="")
def test_check_bot_without_a_token_is_fine(clock):
    assert run_status("--check", "bot")[0] == 0


def test_check_web(fake_web):
    reply, url = fake_web
    assert run_status("--check", "web", "--url", url)[0] == 0
    reply.update(status=503, body={"status": "unhealthy", "reason": "scheduler_never_ran"})
    code, _, err = run_status("--check", "web", "--url", url)
    assert code == 1
    assert "scheduler_never_ran" in err


def test_check_web_when_nothing_listens():
    code, _, err = run_status("--check", "web", "--url", "http://127.0.0.1:9/health")
    assert code == 1
    assert "web_unreachable" in err


def test_table_gives_no_grace_to_a_scheduler_that_never_ran(db, clock):
    # This process just started, but that says nothing about the scheduler: no beat at all is
    # unhealthy.
    code, out, _ = run_status()
    assert code == 1
    assert "UNHEALTHY (scheduler_never_ran)" in out


def test_table_shows_long_keyword_names_in_full(db, clock):
    """Names were cut at 28 characters: every pasted-URL keyword read
    "https://www.willhaben.at/iad" (issue 18)."""
    from tests.factories import make_keyword

    short = make_keyword(name="Lego Technic · bis € 450")
    long = make_keyword(
        name="Mietwohnungen Wien 1., 2., 3., 7., 8. und 9. Bezirk · 2–3 Zimmer · bis € 1.100"
    )
    out = run_status()[1]
    table = out[out.index("Keywords:") : out.index("Ads:")]
    assert short.name in table
    lines = table.splitlines()
    first = next(i for i, line in enumerate(lines) if line.lstrip().startswith(f"{long.pk} "))
    pieces = textwrap.wrap(long.name, 40)
    assert len(pieces) == 2
    for offset, piece in enumerate(pieces):
        assert piece in lines[first + offset]
    assert all(len(line) < 160 for line in lines)


def test_keyword_columns_line_up(seeded):
    """Fixed widths let a long status ("banned:http_429") push its row's later cells right."""
    ScrapeRun.objects.create(
        keyword=seeded.fresh,
        source="willhaben",
        status=ScrapeRun.Status.BANNED,
        started_at=ago(minutes=1),
        finished_at=ago(minutes=1),
        error="http_429",
    )
    out = run_status()[1]
    lines = out[out.index("Keywords:") : out.index("Ads:")].splitlines()[1:]
    header, rows = lines[0], [line for line in lines[1:] if line.strip()]
    assert len(rows) == 3
    for title in ("last run", "when", "next run", "alerts"):
        start = header.index(title)
        for row in rows:
            if len(row) > start:
                assert row[start - 2 : start] == "  " and row[start] != " ", (title, row)
    for title in ("every", "seen/new"):  # numbers end under their title
        end = header.index(title) + len(title)
        assert all(row[end - 1] != " " and row[end] == " " for row in rows), title


def test_times_are_local_to_the_second(seeded, settings):
    settings.TIME_ZONE = "Europe/Vienna"
    Heartbeat.objects.filter(name="scheduler").update(
        last_seen_at=ago(seconds=30, microseconds=250)
    )
    out = run_status()[1]
    # 11:59:29.99975 UTC is 13:59:29 in Vienna (summer time).
    assert "scheduler    last tick 2025-06-01 13:59:29 (30 s ago)" in out
    assert "+00:00" not in out and "T11:59" not in out


@override_settings(TELEGRAM_BOT_TOKEN="")
def test_status_does_not_repeat_the_start_up_warnings(seeded):
    """As `manage.py status` runs it (call_command skips the checks); `make run` prints lago.W001
    once through `check`, and healthchecks call status every 30 s."""
    from io import StringIO

    out, err = StringIO(), StringIO()
    command = load_command_class(get_commands()["status"], "status")
    command.stdout, command.stderr = OutputWrapper(out), OutputWrapper(err)
    options = vars(command.create_parser("manage.py", "status").parse_args([]))
    command.execute(**options)
    assert "Lago: healthy" in out.getvalue()
    assert "W001" not in out.getvalue() + err.getvalue()
