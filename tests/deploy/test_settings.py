"""Configuration problems are explained at start-up, not discovered later."""

import json
import os
import secrets
import subprocess
import sys

import pytest
from django.conf import settings
from django.core.checks import Error
from django.test import override_settings

from lago.env import _strict_bool
from operations import checks
from tests.processes import run_python


def test_dev_secret_key_is_refused_without_debug():
    with override_settings(DEBUG=False, SECRET_KEY=settings.DEV_SECRET_KEY):
        errors = checks.check_secret_key()
    assert [e.id for e in errors] == ["lago.E001"]
    assert isinstance(errors[0], Error)


def test_dev_secret_key_is_allowed_with_debug():
    with override_settings(DEBUG=True, SECRET_KEY=settings.DEV_SECRET_KEY):
        assert checks.check_secret_key() == []


def test_timeout_must_be_below_retry():
    with override_settings(Q_CLUSTER={**settings.Q_CLUSTER, "timeout": 300, "retry": 300}):
        assert [e.id for e in checks.check_queue_timeouts()] == ["lago.E002"]
    assert settings.Q_CLUSTER["timeout"] < settings.Q_CLUSTER["retry"]


@pytest.mark.parametrize("raw,expected", [("true", True), ("1", True), ("off", False), ("", False)])
def test_booleans_parse(raw, expected):
    assert _strict_bool(raw) is expected


def test_a_bad_boolean_is_an_error_not_false():
    env = {**os.environ, "DEBUG": "yes-please"}
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='lago.settings'; "
            "django.setup()",
        ],
        env=env,
        capture_output=True,
        text=True,
        cwd=settings.BASE_DIR,
    )
    assert result.returncode != 0
    assert "not a boolean: 'yes-please'" in result.stderr


def test_sqlite_shares_one_file_safely():
    if not settings.IS_SQLITE:
        pytest.skip("SQLite-only settings")
    options = settings.DATABASES["default"]["OPTIONS"]
    assert options["transaction_mode"] == "IMMEDIATE"
    assert "journal_mode=WAL" in options["init_command"]
    assert options["timeout"] >= 5


@pytest.mark.parametrize(
    "url", ["sqlite:////tmp/lago-settings-test.sqlite3", "postgres://lago@127.0.0.1:5432/lago"]
)
def test_each_thread_keeps_its_database_connection_across_requests(url):
    """On SQLite too: connecting costs more than /health's queries (bench/README.md, health)."""
    env = {**os.environ, "DATABASE_URL": url}
    env.pop("DB_CONN_MAX_AGE", None)
    code = "from lago import settings; print(settings.DATABASES['default'].get('CONN_MAX_AGE', 0))"
    assert run_python(code, env, check=True).stdout.strip() == "60"


def test_times_are_stored_in_utc_and_shown_in_vienna():
    assert settings.USE_TZ is True
    code = (
        "import django; django.setup(); from django.conf import settings; print(settings.TIME_ZONE)"
    )
    env = {k: v for k, v in os.environ.items() if k != "TIME_ZONE"}
    out = run_python(code, env, check=True)
    assert out.stdout.strip().splitlines()[-1] == "Europe/Vienna"


@pytest.mark.parametrize("entry_point", ["lago.wsgi", "lago.asgi"])
@pytest.mark.parametrize(
    "secret,serves",
    [
        (None, False),
        ("lago-test-only-secret-key", False),
        (" a-real-secret-key-for-this-test", False),
        ("abcdeabcdeabcdeabcde", False),
        ("a-real-secret-key-for-this-test", True),
    ],
)
def test_the_web_process_refuses_the_dev_secret_key(entry_point, secret, serves):
    """gunicorn and ASGI servers load lago.wsgi / lago.asgi without running manage.py's checks."""
    env = {k: v for k, v in os.environ.items() if k != "SECRET_KEY"}
    env.update(DEBUG="false", **({"SECRET_KEY": secret} if secret else {}))
    result = run_python(f"import {entry_point}", env)
    assert (result.returncode == 0) is serves, result.stderr
    assert ("lago.E001" in result.stderr) is not serves


def test_an_unknown_broker_is_an_error_with_a_hint():
    with override_settings(Q_BROKER="rabbitmq"):
        errors = checks.check_queue_broker()
    assert [e.id for e in errors] == ["lago.E005"]
    assert "Q_BROKER=redis" in errors[0].hint


def test_an_unknown_name_in_scrape_sources_is_a_start_up_error():
    with override_settings(SCRAPE_SOURCES=["willhaben", "ebay"]):
        [error] = checks.check_scrape_sources()
    assert error.id == "lago.E007" and "ebay" in error.msg
    with override_settings(SCRAPE_SOURCES=["willhaben", "kleinanzeigen"]):
        assert checks.check_scrape_sources() == []


def _cluster_conf(**env_vars):
    code = (
        "import django, json; django.setup(); from django.conf import settings;"
        " print(json.dumps(settings.Q_CLUSTER))"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("Q_BROKER", "REDIS_URL")}
    env.update(DJANGO_SETTINGS_MODULE="lago.settings", **env_vars)
    out = run_python(code, env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_orm_is_the_default_broker():
    conf = _cluster_conf()
    assert conf["orm"] == "default"
    assert "redis" not in conf


def test_redis_broker_takes_redis_url_and_drops_orm():
    conf = _cluster_conf(Q_BROKER="redis", REDIS_URL="redis://10.0.0.5:6380/2")
    assert conf["redis"] == "redis://10.0.0.5:6380/2"
    assert "orm" not in conf


@pytest.mark.parametrize(
    "secret",
    [
        "change-me-to-a-long-random-string",
        "short-key",
        "django-insecure-abcdefghijklmnopqrstuvwxyz",
        "a" * 60,
    ],
)
def test_placeholder_or_short_secret_key_is_refused_without_debug(secret):
    with override_settings(DEBUG=False, SECRET_KEY=secret):
        errors = checks.check_secret_key()
    assert [e.id for e in errors] == ["lago.E001"]
    assert secret not in errors[0].msg


@pytest.mark.parametrize(
    "secret",
    [
        "lago-test-only-secret-key",
        " Zq8-real-random-secret-Xy71kLmN0pQ",
        "Zq8-real-random-secret-Xy71kLmN0pQ\n",
        "Zq8-real-random-secret-Xy71kLmN0pQ\t",
        "abcdeabcdeabcdeabcde",
        "abcdefghijabcdefghijabcdefghij",
        "ab-ab-ab-ab-ab-ab-ab-ab-",
    ],
)
def test_the_published_test_key_padded_and_repetitive_keys_are_refused(secret):
    with override_settings(DEBUG=False, SECRET_KEY=secret):
        errors = checks.check_secret_key()
    assert [e.id for e in errors] == ["lago.E001"]
    assert secret.strip() not in errors[0].msg
    with override_settings(DEBUG=True, SECRET_KEY=secret):
        assert checks.check_secret_key() == []


def test_a_generated_key_passes_and_the_test_run_uses_one():
    with override_settings(DEBUG=False, SECRET_KEY=secrets.token_urlsafe(50)):
        assert checks.check_secret_key() == []
    assert checks.secret_key_problem(settings.SECRET_KEY) is None


def test_the_env_example_secret_key_is_refused():
    example = (settings.BASE_DIR / ".env.example").read_text()
    # The example may keep the line commented out (compose passes secrets as files): its value still
    # must not pass.
    secret = next(
        line.split("=", 1)[1]
        for line in example.splitlines()
        if line.lstrip("# ").startswith("SECRET_KEY=")
    )
    with override_settings(DEBUG=False, SECRET_KEY=secret):
        assert [e.id for e in checks.check_secret_key()] == ["lago.E001"]
    with override_settings(DEBUG=False, SECRET_KEY="Zq8-real-random-secret-Xy71kLmN0pQ"):
        assert checks.check_secret_key() == []


def test_password_validators_are_configured():
    names = {v["NAME"].rsplit(".", 1)[1] for v in settings.AUTH_PASSWORD_VALIDATORS}
    assert {
        "MinimumLengthValidator",
        "CommonPasswordValidator",
        "NumericPasswordValidator",
    } <= names


PRODUCTION_ENV = {
    "DEBUG": "false",
    "SECRET_KEY": "pR0d-" + "k7Qx9_ZmLw3VbT2nYc8HsJ4dFa6GeUiOpXrN1tKqWy5Bv0Mz",
    "ALLOWED_HOSTS": "lago.example.com",
    "CSRF_TRUSTED_ORIGINS": "https://lago.example.com",
    "SECURE_SSL_REDIRECT": "true",
    "SECURE_PROXY_SSL_HEADER": "true",
    "SESSION_COOKIE_SECURE": "true",
    "CSRF_COOKIE_SECURE": "true",
    "SECURE_HSTS_SECONDS": "31536000",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": "true",
    "SECURE_HSTS_PRELOAD": "true",
    "STATS_TOKEN": "a-long-random-stats-token-for-this-test",
    "TELEGRAM_BOT_TOKEN": "123456789:AAFakeTokenForTests_abcdefghijklmnop",
}


def _check_deploy(**env_vars):
    env = {**os.environ, **env_vars}
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        env=env,
        capture_output=True,
        text=True,
        cwd=settings.BASE_DIR,
    )


def test_check_deploy_is_clean_with_the_readmes_production_values():
    readme = (settings.BASE_DIR / "README.md").read_text()
    for name in PRODUCTION_ENV:
        assert f"`{name}`" in readme, f"{name} is not documented in README"
    result = _check_deploy(**PRODUCTION_ENV)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_open_stats_without_debug_is_a_warning():
    with override_settings(DEBUG=False, STATS_TOKEN=""):
        assert [w.id for w in checks.check_stats_token()] == ["lago.W010"]
    with override_settings(DEBUG=True, STATS_TOKEN=""):
        assert checks.check_stats_token() == []
