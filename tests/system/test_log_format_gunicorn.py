"""gunicorn's own lines (master and workers) are in UTC with a `Z`, like every other log line
(tests/deploy/test_log_format.py)."""

import subprocess
import sys
from pathlib import Path

from django.conf import settings

from tests.deploy.test_log_format import UTC_STAMP, assert_utc_now
from tests.processes import child_env, free_port, wait_for


def test_gunicorn_lines_are_in_utc_too(tmp_path):
    """gunicorn.conf.py (read from the working directory, as in the image) formats its master's
    and workers' lines."""
    env = child_env(database=tmp_path / "log.sqlite3", TIME_ZONE="Europe/Vienna")
    port = free_port()
    gunicorn = str(Path(sys.executable).parent / "gunicorn")
    command = [
        gunicorn,
        "lago.wsgi",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        "1",
        "--access-logfile",
        "-",
    ]
    proc = subprocess.Popen(
        command,
        env=env,
        cwd=settings.BASE_DIR,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines = []
    try:
        wait_for(
            lambda: _line_with(proc, lines, "Booting worker"),
            timeout=90,
            what="a gunicorn worker",
            proc=proc,
        )
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=60)
    lines += out.splitlines()
    gunicorn_lines = [line for line in lines if "gunicorn." in line]
    assert any("Starting gunicorn" in line for line in gunicorn_lines), lines
    assert any("Handling signal: term" in line for line in gunicorn_lines), lines
    for line in gunicorn_lines:
        match = UTC_STAMP.match(line)
        assert match, line
        assert_utc_now(match.group(1))


def _line_with(proc, lines, needle):
    line = proc.stdout.readline()
    lines.append(line.rstrip("\n"))
    return needle in line
