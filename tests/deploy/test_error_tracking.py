"""SENTRY_DSN: ERROR lines reach the ingest endpoint (a local fake over real HTTP), scrubbed,
without personal data."""

import json
import logging
import subprocess
import sys

import pytest
import sentry_sdk
from django.conf import settings as django_settings

from lago.error_tracking import init_error_tracking
from lib.log_filters import REDACTED
from tests.fakes.sentry import FakeSentry
from tests.processes import child_env

TOKEN = "123456789:AAFakeTokenForTests_abcdefghijklmnop"
SCRAPE_PASSWORD = "scr4pe-s3cret"
TELEGRAM_PASSWORD = "tel3gram-s3cret"
OTHER_TOKEN = "987654321:AAAnotherBotsTokenSeenInAUrl_0123456"
SECRETS = [TOKEN, SCRAPE_PASSWORD, TELEGRAM_PASSWORD, OTHER_TOKEN]

logger = logging.getLogger("lago.test_error_tracking")


@pytest.fixture
def ingest(settings):
    settings.TELEGRAM_BOT_TOKEN = TOKEN
    settings.SCRAPE_PROXY_URL = f"http://scraper:{SCRAPE_PASSWORD}@proxy.example:3128"
    settings.TELEGRAM_PROXY_URL = f"socks5://tg:{TELEGRAM_PASSWORD}@127.0.0.1:1080"
    server = FakeSentry().start()
    sentry_sdk.get_isolation_scope().clear_breadcrumbs()
    assert init_error_tracking(server.dsn, "test")
    yield server
    client = sentry_sdk.get_client()
    client.close(timeout=5)
    sentry_sdk.get_global_scope().set_client(None)
    sentry_sdk.get_isolation_scope().clear_breadcrumbs()
    server.stop()


def send_to_telegram(settings_proxy):
    url = f"https://api.telegram.org/bot{TOKEN}/sendMessage"  # a frame variable the event carries
    proxy = settings_proxy
    raise ConnectionError(f"cannot reach {url} through {proxy}")


def test_error_line_arrives_with_token_and_proxy_credentials_scrubbed(ingest, settings):
    logger.info(
        "polling https://api.telegram.org/bot%s/getUpdates via %s",
        OTHER_TOKEN,
        settings.TELEGRAM_PROXY_URL,
    )
    try:
        send_to_telegram(settings.SCRAPE_PROXY_URL)
    except ConnectionError:
        logger.exception("sending failed (token %s, proxy password %s)", TOKEN, SCRAPE_PASSWORD)
    sentry_sdk.flush(timeout=5)

    [event] = ingest.events()
    assert ingest.paths == ["/api/1/envelope/"]
    assert event["level"] == "error" and event["environment"] == "test"
    assert (
        event["logentry"]["formatted"]
        == f"sending failed (token {REDACTED}, proxy password {REDACTED})"
    )
    [exception] = event["exception"]["values"]
    assert (
        exception["value"]
        == f"cannot reach https://api.telegram.org/bot{REDACTED}/sendMessage through http://{REDACTED}@proxy.example:3128"
    )
    frame = exception["stacktrace"]["frames"][-1]
    assert frame["function"] == "send_to_telegram"
    assert frame["vars"]["url"] == f"'https://api.telegram.org/bot{REDACTED}/sendMessage'"
    [crumb] = [c for c in event["breadcrumbs"]["values"] if c.get("category") == logger.name]
    assert (
        crumb["message"]
        == f"polling https://api.telegram.org/bot{REDACTED}/getUpdates via socks5://{REDACTED}@127.0.0.1:1080"
    )
    raw = b"".join(ingest.raw).decode()
    for secret in SECRETS:
        assert secret not in raw


def test_a_warning_is_a_breadcrumb_not_an_event(ingest):
    logger.warning("willhaben answered 503")
    sentry_sdk.flush(timeout=5)
    assert ingest.events() == []

    logger.error("scrape failed")
    sentry_sdk.flush(timeout=5)
    [event] = ingest.events()
    assert [
        c["message"] for c in event["breadcrumbs"]["values"] if c.get("category") == logger.name
    ] == ["willhaben answered 503"]


def test_no_personal_data_is_sent(ingest):
    logger.error("scrape failed")
    sentry_sdk.flush(timeout=5)
    [event] = ingest.events()
    assert "user" not in event
    raw = b"".join(ingest.raw).decode()
    assert "ip_address" not in raw and "{{auto}}" not in raw
    assert sentry_sdk.get_client().should_send_default_pii() is False


def test_without_dsn_nothing_starts():
    assert init_error_tracking("") is False
    assert not sentry_sdk.get_client().is_active()


def test_the_fake_decodes_what_the_sdk_sends(ingest):
    """The envelope parser is the test's eyes: the event is JSON, not a blob it skipped."""
    logger.error("one")
    sentry_sdk.flush(timeout=5)
    [(headers, items)] = ingest.envelopes
    assert "event_id" in headers
    assert json.dumps(items[0][1])


def test_settings_start_it_from_sentry_dsn_in_a_real_process(tmp_path):
    """SENTRY_DSN in the environment is enough: the settings start the client, the LOGGING config
    lets it see ERRORs."""
    server = FakeSentry().start()
    try:
        env = child_env(
            database=tmp_path / "sentry.sqlite3",
            SENTRY_DSN=server.dsn,
            TELEGRAM_BOT_TOKEN=TOKEN,
            SENTRY_ENVIRONMENT="staging",
        )
        script = (
            f"import logging; logging.getLogger('lago.x').error('token %s', '{TOKEN}');"
            " import sentry_sdk; sentry_sdk.flush(5)"
        )
        command = [sys.executable, "manage.py", "shell", "-v", "0", "-c", script]
        result = subprocess.run(
            command,
            env=env,
            cwd=django_settings.BASE_DIR,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 0, result.stderr
        [event] = server.events()
    finally:
        server.stop()
    assert event["environment"] == "staging"
    assert event["logentry"]["formatted"] == f"token {REDACTED}"
    assert TOKEN not in b"".join(server.raw).decode()
