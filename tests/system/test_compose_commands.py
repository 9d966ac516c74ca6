"""Each compose service's command, as written in docker-compose.yml, run here against a local
SQLite database (no Docker engine runs in CI). The database is a copy of the session's migrated
one and the static files are the session's collected folder, as the image's build collects them."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from django.conf import settings

from operations.management.commands.status import DEFAULT_WEB_URL
from tests.deploy.test_compose import SERVICES
from tests.processes import child_env, free_port


@pytest.fixture
def service_env(sqlite_database, static_root):
    """The environment a container gets, on a migrated SQLite database of this test's own."""
    return child_env(
        database=sqlite_database,
        DEBUG="false",
        STATIC_ROOT=str(static_root),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    )


def test_migrate_command_creates_the_admin_user_with_the_password_from_its_secret_file(
    service_env, tmp_path
):
    secret = tmp_path / "superuser_password"
    secret.write_text("s3cret-pass\n")
    env = {
        **service_env,
        # Its compose environment without the secret files it reads from /run/secrets/.
        **{k: v for k, v in SERVICES["migrate"]["environment"].items() if not k.endswith("_FILE")},
        "DJANGO_SUPERUSER_USERNAME": "ops",
        "DJANGO_SUPERUSER_PASSWORD_FILE": str(secret),
        # Mounted into web, worker and bot only.
        "TELEGRAM_BOT_TOKEN": "",
        "STATS_TOKEN": "",
    }
    result = subprocess.run(
        SERVICES["migrate"]["command"],
        env=env,
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert "Created admin user 'ops'" in result.stdout
    # The secrets it is not given are no start-up warning of its own.
    assert "lago.W001" not in result.stderr and "lago.W010" not in result.stderr
    login = (
        "from django.contrib.auth import authenticate;"
        " print(authenticate(username='ops', password='s3cret-pass') is not None)"
    )
    check = subprocess.run(
        [sys.executable, "manage.py", "shell", "-v", "0", "-c", login],
        env=env,
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
    )
    assert check.stdout.strip() == "True", check.stderr


def test_web_command_serves_health(service_env):
    port = free_port()
    command = [
        arg.replace("0.0.0.0:8000", f"127.0.0.1:{port}") for arg in SERVICES["web"]["command"]
    ]
    command[command.index("3")] = "1"  # one gunicorn worker is enough here
    proc = subprocess.Popen(
        command,
        env=service_env,
        cwd=settings.BASE_DIR,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        response = wait_for_http(f"http://127.0.0.1:{port}/health", proc)
        assert response.status_code == 200
        assert response.json()["status"] == "ok"
        # DEBUG off: the admin's CSS comes from the collected files (the image's collectstatic), via
        # WhiteNoise.
        login = httpx.get(f"http://127.0.0.1:{port}/admin/login/")
        assert login.status_code == 200 and "/static/admin/css/base.css" in login.text
        css = httpx.get(f"http://127.0.0.1:{port}/static/admin/css/base.css")
        assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)


def start_web(env):
    """The web service's command on a free port (one gunicorn worker); returns the process and the
    healthcheck command pointed at that port (the compose command plus --url)."""
    port = free_port()
    command = [
        arg.replace("0.0.0.0:8000", f"127.0.0.1:{port}") for arg in SERVICES["web"]["command"]
    ]
    command[command.index("3")] = "1"
    check = SERVICES["web"]["healthcheck"]["test"][1:] + [
        "--url",
        DEFAULT_WEB_URL.replace("127.0.0.1:8000", f"127.0.0.1:{port}"),
    ]
    proc = subprocess.Popen(
        command, env=env, cwd=settings.BASE_DIR, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    return proc, port, check


def test_web_healthcheck_passes_with_a_stale_scheduler_and_only_the_public_domain_allowed(
    service_env,
):
    """/health is 503 once the scheduler is stale; the web container stays healthy, with
    ALLOWED_HOSTS holding only the public domain (the probe sends it as Host). Without web it fails.
    """
    env = {**service_env, "HEALTHCHECK_SCHEDULER_STALE_S": "1", "ALLOWED_HOSTS": "lago.example.org"}
    proc, port, check = start_web(env)
    public = {"Host": "lago.example.org"}
    try:
        wait_for_http(f"http://127.0.0.1:{port}/health", proc)
        assert (
            httpx.get(f"http://127.0.0.1:{port}/health").status_code == 400
        )  # Host 127.0.0.1 is not allowed
        deadline = time.monotonic() + 60
        while (
            response := httpx.get(f"http://127.0.0.1:{port}/health", headers=public)
        ).status_code == 200:
            assert time.monotonic() < deadline, response.text
            time.sleep(0.2)
        assert response.status_code == 503 and response.json()["reason"].startswith("scheduler_"), (
            response.text
        )
        healthy = subprocess.run(
            check, env=env, cwd=settings.BASE_DIR, capture_output=True, text=True
        )
        assert healthy.returncode == 0, healthy.stdout + healthy.stderr
        assert "web: ok" in healthy.stdout
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    down = subprocess.run(check, env=env, cwd=settings.BASE_DIR, capture_output=True, text=True)
    assert down.returncode == 1
    assert "web_unreachable" in down.stderr


def test_web_healthcheck_fails_when_the_database_is_unreachable(service_env):
    env = {
        **service_env,
        "ALLOWED_HOSTS": "lago.example.org",
        "DATABASE_URL": f"postgres://lago@127.0.0.1:{free_port()}/lago",
    }
    proc, port, check = start_web(env)
    try:
        wait_for_http(f"http://127.0.0.1:{port}/health", proc)
        unhealthy = subprocess.run(
            check, env=env, cwd=settings.BASE_DIR, capture_output=True, text=True
        )
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    assert unhealthy.returncode == 1, unhealthy.stdout
    assert "web: unhealthy: database_unreachable" in unhealthy.stderr


def test_worker_command_starts_a_cluster(service_env):
    # django-q2 logs in LANGUAGE_CODE (German by default); the needles below are its English words.
    env = {**service_env, "Q_WORKERS": "1", "LANGUAGE_CODE": "en-us"}
    proc = subprocess.Popen(
        SERVICES["worker"]["command"],
        env=env,
        cwd=settings.BASE_DIR,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        seen = read_until(proc, "running", timeout=90)
        assert "schedule 'lago-tick'" in seen and "Q Cluster" in seen
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)


def test_bot_command_polls_and_its_healthcheck_passes(service_env, telegram_server):
    env = {
        **service_env,
        "TELEGRAM_BOT_TOKEN": telegram_server.token,
        "TELEGRAM_API_BASE_URL": telegram_server.base_url,
        "TELEGRAM_POLL_TIMEOUT_S": "1",
    }
    check = SERVICES["bot"]["healthcheck"]["test"][1:]
    before = subprocess.run(check, env=env, cwd=settings.BASE_DIR, capture_output=True, text=True)
    assert before.returncode == 1, before.stdout  # no heartbeat yet
    proc = subprocess.Popen(
        SERVICES["bot"]["command"],
        env=env,
        cwd=settings.BASE_DIR,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        read_until(proc, "Application started", timeout=90)
        deadline = time.monotonic() + 60
        while telegram_server.polls < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert telegram_server.polls >= 2
        healthy = subprocess.run(
            check, env=env, cwd=settings.BASE_DIR, capture_output=True, text=True
        )
        assert healthy.returncode == 0, healthy.stdout + healthy.stderr
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    assert proc.returncode == 0


def wait_for_http(url, proc, timeout=90):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited: {proc.stdout.read()}")
        try:
            return httpx.get(url, timeout=10)
        except httpx.TransportError:
            time.sleep(0.2)
    raise AssertionError(f"{url} did not answer within {timeout}s")


def read_until(proc, needle, timeout):
    """Collects output lines until one contains `needle`; fails on exit or timeout."""
    seen = []
    deadline = time.monotonic() + timeout
    os.set_blocking(proc.stdout.fileno(), False)
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if line:
            seen.append(line)
            if needle in line:
                return "".join(seen)
        elif proc.poll() is not None:
            break
        else:
            time.sleep(0.1)
    raise AssertionError(f"{needle!r} not seen in output:\n{''.join(seen)}")
