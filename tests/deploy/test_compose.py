"""No Docker engine runs in CI, so the compose file is checked by reading it,
and each service's command is run here, as written, against a local database."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import yaml
from django.conf import settings

from operations.management.commands.status import DEFAULT_WEB_URL
from tests.processes import child_env, free_port

COMPOSE_TEXT = (Path(settings.BASE_DIR) / "docker-compose.yml").read_text()
COMPOSE = yaml.safe_load(COMPOSE_TEXT)
SERVICES = COMPOSE["services"]
APP_SERVICES = ["migrate", "web", "worker", "bot"]
# Setting -> compose secret; lago/settings.py reads SETTING_FILE first.
SECRET_SETTINGS = {
    "SECRET_KEY": "secret_key",
    "DATABASE_URL": "database_url",
    "TELEGRAM_BOT_TOKEN": "telegram_bot_token",
    "STATS_TOKEN": "stats_token",
    "DJANGO_SUPERUSER_PASSWORD": "superuser_password",
}
# The Dockerfile collects static files at build time; the web test does the same.
COLLECTSTATIC = [sys.executable, "manage.py", "collectstatic", "--no-input", "--verbosity", "0"]


def test_services_exist_and_restart_unless_stopped():
    assert {"db", "migrate", "web", "worker", "bot"} == set(SERVICES)
    for name in ["db", "web", "worker", "bot"]:
        assert SERVICES[name]["restart"] == "unless-stopped", name


def test_no_container_gets_the_docker_socket():
    """autoheal needed /var/run/docker.sock (root on the host); the watchdog restarts from inside."""
    assert "docker.sock" not in COMPOSE_TEXT
    for name, service in SERVICES.items():
        assert "labels" not in service, name
        assert not any("docker.sock" in str(v) for v in service.get("volumes", [])), name


def test_app_services_read_env_and_secrets_and_wait_for_the_database():
    for name in APP_SERVICES:
        service = SERVICES[name]
        assert service["env_file"] == ".env"
        assert service["depends_on"]["db"] == {"condition": "service_healthy"}
        assert "DATABASE_URL" not in service["environment"]
        for secret in SECRET_SETTINGS.values():
            assert secret in service["secrets"], (name, secret)
        for setting, secret in SECRET_SETTINGS.items():
            assert service["environment"][f"{setting}_FILE"] == f"/run/secrets/{secret}", (
                name,
                setting,
            )
    for name in ["web", "worker", "bot"]:
        assert SERVICES[name]["depends_on"]["migrate"] == {
            "condition": "service_completed_successfully"
        }


def test_every_secret_comes_from_a_file_under_secrets():
    used = {s for service in SERVICES.values() for s in service.get("secrets", [])}
    assert used == set(COMPOSE["secrets"])
    for name, secret in COMPOSE["secrets"].items():
        assert secret == {"file": f"./secrets/{name}"}, name
    ignored = (Path(settings.BASE_DIR) / ".gitignore").read_text().split()
    assert "secrets/" in ignored


def test_db_is_postgres_15_with_a_volume_only_its_own_variables_and_a_tcp_readiness_probe():
    db = SERVICES["db"]
    assert db["image"].startswith("postgres:15.")  # an exact minor version, not the floating major
    assert any(v.startswith("pgdata:") for v in db["volumes"])
    assert "env_file" not in db
    assert db["environment"] == {
        "POSTGRES_DB": "lago",
        "POSTGRES_USER": "lago",
        "POSTGRES_PASSWORD_FILE": "/run/secrets/postgres_password",
    }
    assert db["secrets"] == ["postgres_password"]
    # Over TCP: on first boot the Unix socket answers before the server accepts on the network.
    assert "pg_isready -h 127.0.0.1" in " ".join(db["healthcheck"]["test"])


def test_web_is_published_on_localhost_only():
    assert SERVICES["web"]["ports"] == ["127.0.0.1:8000:8000"]


def test_web_healthcheck_probes_only_the_web_process():
    check = SERVICES["web"]["healthcheck"]
    assert check["test"] == ["CMD", "python", "manage.py", "status", "--check", "web"]
    # Its default URL is the port the web command binds.
    assert DEFAULT_WEB_URL == "http://127.0.0.1:8000/health?check=web"
    assert "0.0.0.0:8000" in SERVICES["web"]["command"]
    assert (check["interval"], check["timeout"], check["retries"], check["start_period"]) == (
        "30s",
        "10s",
        3,
        "20s",
    )


def test_worker_sets_up_the_schedule_and_runs_the_cluster_under_the_watchdog():
    worker = SERVICES["worker"]
    assert "setup_schedules" in " ".join(worker["command"])
    assert (
        "exec python manage.py watchdog scheduler -- python manage.py qcluster"
        in worker["command"][-1]
    )
    assert worker["healthcheck"]["test"] == [
        "CMD",
        "python",
        "manage.py",
        "status",
        "--check",
        "scheduler",
    ]


def test_worker_stop_grace_period_covers_the_scrape_time_budget():
    """qcluster finishes a running task on SIGTERM; Docker's default 10 s would kill it mid-scrape."""
    grace = SERVICES["worker"]["stop_grace_period"]
    assert grace.endswith("s")
    assert int(grace[:-1]) >= settings.SCRAPE_TIME_BUDGET_S + 10


def test_bot_runs_runbot_under_the_watchdog_in_its_own_profile():
    bot = SERVICES["bot"]
    # Not started by a plain `docker compose up`: without a token runbot exits and would restart for
    # ever.
    assert bot["profiles"] == ["bot"]
    assert bot["command"] == [
        "python",
        "manage.py",
        "watchdog",
        "bot",
        "--",
        "python",
        "manage.py",
        "runbot",
    ]
    check = bot["healthcheck"]
    assert check["test"] == ["CMD", "python", "manage.py", "status", "--check", "bot"]
    assert (check["interval"], check["timeout"], check["retries"], check["start_period"]) == (
        "60s",
        "10s",
        3,
        "180s",
    )


@pytest.fixture
def service_env(tmp_path):
    """The environment a container gets, pointed at a throwaway SQLite database."""
    env = child_env(
        database=tmp_path / "compose.sqlite3",
        DEBUG="false",
        STATIC_ROOT=str(tmp_path / "static"),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    subprocess.run(
        SERVICES["migrate"]["command"],
        env=env,
        cwd=settings.BASE_DIR,
        check=True,
        capture_output=True,
    )
    subprocess.run(COLLECTSTATIC, env=env, cwd=settings.BASE_DIR, check=True, capture_output=True)
    return env


def test_migrate_command_creates_the_admin_user_with_the_password_from_its_secret_file(
    service_env, tmp_path
):
    secret = tmp_path / "superuser_password"
    secret.write_text("s3cret-pass\n")
    env = {
        **service_env,
        "DJANGO_SUPERUSER_USERNAME": "ops",
        "DJANGO_SUPERUSER_PASSWORD_FILE": str(secret),
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
    login = "from django.contrib.auth import authenticate; print(authenticate(username='ops', password='s3cret-pass') is not None)"
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
        proc.wait(timeout=20)


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
    ALLOWED_HOSTS
    holding only the public domain (the probe sends it as Host). Without web it fails."""
    env = {**service_env, "HEALTHCHECK_SCHEDULER_STALE_S": "1", "ALLOWED_HOSTS": "lago.example.org"}
    proc, port, check = start_web(env)
    public = {"Host": "lago.example.org"}
    try:
        wait_for_http(f"http://127.0.0.1:{port}/health", proc)
        assert (
            httpx.get(f"http://127.0.0.1:{port}/health").status_code == 400
        )  # Host 127.0.0.1 is not allowed
        deadline = time.monotonic() + 20
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
        proc.wait(timeout=20)
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
        proc.wait(timeout=20)
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
        seen = read_until(proc, "running", timeout=30)
        assert "schedule 'lago-tick'" in seen and "Q Cluster" in seen
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


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
        read_until(proc, "Application started", timeout=30)
        deadline = time.monotonic() + 20
        while telegram_server.polls < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert telegram_server.polls >= 2
        healthy = subprocess.run(
            check, env=env, cwd=settings.BASE_DIR, capture_output=True, text=True
        )
        assert healthy.returncode == 0, healthy.stdout + healthy.stderr
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    assert proc.returncode == 0


def wait_for_http(url, proc, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited: {proc.stdout.read()}")
        try:
            return httpx.get(url, timeout=2)
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
