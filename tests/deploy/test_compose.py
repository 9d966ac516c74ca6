"""No Docker engine runs in CI, so the compose file is checked by reading it; each service's
command is run, as written, in tests/system/test_compose_commands.py."""

from pathlib import Path

import yaml
from django.conf import settings

from operations.management.commands.status import DEFAULT_WEB_URL

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


def test_services_exist_and_restart_unless_stopped():
    assert {"db", "migrate", "web", "worker", "bot"} == set(SERVICES)
    for name in ["db", "web", "worker", "bot"]:
        assert SERVICES[name]["restart"] == "unless-stopped", name


def test_no_container_gets_the_docker_socket():
    """autoheal needed /var/run/docker.sock (root on the host); the watchdog restarts from
    inside."""
    assert "docker.sock" not in COMPOSE_TEXT
    for name, service in SERVICES.items():
        assert "labels" not in service, name
        assert not any("docker.sock" in str(v) for v in service.get("volumes", [])), name


# Which service reads which secret: migrate creates the admin user; web answers /health, the
# dashboard, /stats and /metrics; the worker sends through the Bot API; the bot polls it.
SERVICE_SECRETS = {
    "migrate": {"SECRET_KEY", "DATABASE_URL", "DJANGO_SUPERUSER_PASSWORD"},
    "web": {"SECRET_KEY", "DATABASE_URL", "TELEGRAM_BOT_TOKEN", "STATS_TOKEN"},
    "worker": {"SECRET_KEY", "DATABASE_URL", "TELEGRAM_BOT_TOKEN"},
    "bot": {"SECRET_KEY", "DATABASE_URL", "TELEGRAM_BOT_TOKEN"},
}
# The start-up warning each optional secret's absence raises (operations/checks.py).
ABSENCE_WARNINGS = {"TELEGRAM_BOT_TOKEN": "lago.W001", "STATS_TOKEN": "lago.W010"}


def test_app_services_read_env_and_wait_for_the_database():
    for name in APP_SERVICES:
        service = SERVICES[name]
        assert service["env_file"] == ".env"
        assert service["depends_on"]["db"] == {"condition": "service_healthy"}
        assert "DATABASE_URL" not in service["environment"]
    for name in ["web", "worker", "bot"]:
        assert SERVICES[name]["depends_on"]["migrate"] == {
            "condition": "service_completed_successfully"
        }


def test_each_secret_is_mounted_only_into_the_services_that_read_it():
    for name, settings_read in SERVICE_SECRETS.items():
        service = SERVICES[name]
        assert set(service["secrets"]) == {SECRET_SETTINGS[s] for s in settings_read}, name
        files = {k for k in service["environment"] if k.endswith("_FILE")}
        assert files == {f"{s}_FILE" for s in settings_read}, name
        for setting in settings_read:
            secret = SECRET_SETTINGS[setting]
            assert service["environment"][f"{setting}_FILE"] == f"/run/secrets/{secret}", name
    assert [n for n in APP_SERVICES if "superuser_password" in SERVICES[n]["secrets"]] == [
        "migrate"
    ]


def test_a_service_without_an_optional_secret_does_not_warn_that_it_is_unset():
    for name, settings_read in SERVICE_SECRETS.items():
        silenced = SERVICES[name]["environment"].get("SILENCED_SYSTEM_CHECKS", "")
        expected = {w for s, w in ABSENCE_WARNINGS.items() if s not in settings_read}
        assert set(filter(None, silenced.split(","))) == expected, name


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
    """qcluster finishes a running task on SIGTERM; Docker's default 10 s would kill it
    mid-scrape."""
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
