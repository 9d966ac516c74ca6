"""Log lines: one time zone (UTC, `Z`) for ours, django-q2's, the bot library's, runserver's and
gunicorn's lines; LOG_FORMAT=json writes one redacted JSON object per line."""

import json
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta

from django.conf import settings

from tests.processes import child_env

TOKEN = "123456789:AAFakeTokenForTests_abcdefghijklmnop"
PROXY_PASSWORD = "pr0xy-s3cret"
UTC_STAMP = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})Z ")

# Logs through each library's own logger, as the processes do.
LOGGING_SCRIPT = (
    f"""
import logging
from django_q.conf import logger as django_q_logger
logging.getLogger("lago.test").info("ours, token %s", "{TOKEN}")
django_q_logger.info("django-q2's")
logging.getLogger("telegram.ext.Application").info("python-telegram-bot's")
logging.getLogger("django.server").info('"GET /health HTTP/1.1" 200 2', """
    """extra={"request": None, "server_time": "x", "status_code": 200})
logging.getLogger("lago.test").warning("fetch via proxy", extra={"keyword_id": 7,"""
    f""" "proxy": "http://user:{PROXY_PASSWORD}@proxy.example:3128"}})
try:
    raise ConnectionError("https://api.telegram.org/bot{TOKEN}/getMe")
except ConnectionError:
    logging.getLogger("lago.test").exception("send failed")
"""
)


# A seller's ad id and title carrying a forged line, a carriage return and terminal escapes.
HOSTILE_SCRIPT = (
    r"""
import logging
title = "Rennrad\n2026-12-04T10:00:00.000Z ERROR scraping.tick: database wiped\r\x1b[31mred\x9b2J"
logging.getLogger("scraping.ingest").warning("ad %s: %s", "77\nERROR", title, """
    r"""extra={"title": title})
"""
)


def run_logging(tmp_path, script=LOGGING_SCRIPT, **env):
    environment = child_env(
        database=tmp_path / "log.sqlite3",
        TELEGRAM_BOT_TOKEN=TOKEN,
        SCRAPE_PROXY_URL=f"http://user:{PROXY_PASSWORD}@proxy.example:3128",
        TIME_ZONE="Europe/Vienna",
        **env,
    )
    command = [sys.executable, "manage.py", "shell", "-v", "0", "-c", script]
    return subprocess.run(
        command, env=environment, cwd=settings.BASE_DIR, capture_output=True, text=True, timeout=60
    )


def assert_utc_now(stamp):
    moment = datetime.fromisoformat(stamp).replace(tzinfo=UTC)
    assert abs(datetime.now(UTC) - moment) < timedelta(minutes=2), stamp


def test_every_library_logs_in_utc_with_a_z_whatever_time_zone(tmp_path):
    result = run_logging(tmp_path)
    lines = [line for line in result.stderr.splitlines() if line[:1].isdigit()]
    by_logger = {line.split()[2].rstrip(":"): line for line in lines}
    for name in ["lago.test", "django-q", "telegram.ext.Application", "django.server"]:
        match = UTC_STAMP.match(by_logger[name])
        assert match, (name, result.stderr)
        assert_utc_now(match.group(1))
    assert TOKEN not in result.stderr and PROXY_PASSWORD not in result.stderr


def test_json_lines_parse_carry_context_and_are_redacted(tmp_path):
    result = run_logging(tmp_path, LOG_FORMAT="json")
    assert result.returncode == 0, result.stderr
    entries = [json.loads(line) for line in result.stderr.splitlines() if line.strip()]
    assert {e["logger"] for e in entries} >= {
        "lago.test",
        "django-q",
        "telegram.ext.Application",
        "django.server",
    }
    for entry in entries:
        assert entry["time"].endswith("Z")
        assert_utc_now(entry["time"][:-1])
    ours = next(e for e in entries if e["message"].startswith("ours"))
    assert ours["level"] == "INFO" and ours["message"] == "ours, token [redacted]"
    context = next(e for e in entries if e["message"] == "fetch via proxy")
    assert context["keyword_id"] == 7 and context["proxy"] == "http://[redacted]@proxy.example:3128"
    failed = next(e for e in entries if e["message"] == "send failed")
    assert failed["level"] == "ERROR"
    assert "ConnectionError: https://api.telegram.org/bot[redacted]/getMe" in failed["exception"]
    assert TOKEN not in result.stderr and PROXY_PASSWORD not in result.stderr


def test_a_hostile_title_cannot_forge_a_line_in_either_format(tmp_path):
    text = run_logging(tmp_path, script=HOSTILE_SCRIPT)
    assert text.returncode == 0, text.stderr
    lines = [line for line in text.stderr.splitlines() if "scraping" in line]
    assert len(lines) == 1 and UTC_STAMP.match(lines[0]), text.stderr
    assert (
        " WARNING scraping.ingest: ad 77\\nERROR: Rennrad\\n2026-12-04T10:00:00.000Z " in lines[0]
    )
    assert "\\r\\x1b[31mred\\x9b2J" in lines[0]
    assert not any(c in text.stderr for c in "\r\x1b\x9b")
    json_run = run_logging(tmp_path, script=HOSTILE_SCRIPT, LOG_FORMAT="json")
    assert json_run.returncode == 0, json_run.stderr
    assert not any(c in json_run.stderr for c in "\r\x1b\x9b")
    (entry,) = [json.loads(line) for line in json_run.stderr.splitlines() if "scraping" in line]
    assert entry["logger"] == "scraping.ingest" and entry["title"].endswith("\x1b[31mred\x9b2J")


def test_an_unknown_log_format_stops_the_start_naming_the_choices(tmp_path):
    env = child_env(database=tmp_path / "log.sqlite3", LOG_FORMAT="xml")
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        env=env,
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0
    assert "LOG_FORMAT='xml' is not valid: use one of text, json" in result.stderr
