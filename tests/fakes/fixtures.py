"""pytest fixtures for the fake peers; loaded for every app through the root conftest."""

import pytest

from lib.log_filters import forget_learnt_secrets
from notifications import sender
from scraping import http
from tests.fakes.apprise_endpoint import FakeAppriseEndpoint
from tests.fakes.kleinanzeigen import FakeKleinanzeigen
from tests.fakes.telegram import FakeTelegram
from tests.fakes.willhaben import FakeWillhaben


@pytest.fixture
def willhaben_server(settings):
    """A running FakeWillhaben; settings point WILLHABEN_BASE_URL at it with fast retries and no
    request gap."""
    server = FakeWillhaben().start()
    settings.WILLHABEN_BASE_URL = server.base_url
    settings.SCRAPE_MIN_REQUEST_GAP_MS = 0
    settings.HTTP_BACKOFF_BASE_S = 0.01
    settings.HTTP_BACKOFF_MAX_S = 0.05
    settings.HTTP_TIMEOUT = 2.0
    yield server
    server.stop()


@pytest.fixture
def fetch_waits(monkeypatch):
    """The seconds scraping.http.fetch() was asked to wait (retry backoff, Retry-After, the
    per-host gap), recorded instead of slept."""
    waits = []
    monkeypatch.setattr(http, "sleep", waits.append)
    return waits


@pytest.fixture
def kleinanzeigen_server(settings):
    """A running FakeKleinanzeigen; the source is enabled and pointed at it, with fast retries
    and no request gap."""
    server = FakeKleinanzeigen().start()
    settings.KLEINANZEIGEN_BASE_URL = server.base_url
    settings.KLEINANZEIGEN_REQUEST_GAP_MS = 0
    settings.SCRAPE_SOURCES = ["willhaben", "kleinanzeigen"]
    settings.SCRAPE_MIN_REQUEST_GAP_MS = 0
    settings.HTTP_BACKOFF_BASE_S = 0.01
    settings.HTTP_BACKOFF_MAX_S = 0.05
    settings.HTTP_TIMEOUT = 2.0
    yield server
    server.stop()


@pytest.fixture
def telegram_server():
    """A running FakeTelegram (not yet wired into settings)."""
    server = FakeTelegram().start()
    yield server
    server.stop()


@pytest.fixture
def telegram(telegram_server, settings):
    """The fake Bot API, with settings pointing the product at it and fresh sender state."""
    settings.TELEGRAM_BOT_TOKEN = telegram_server.token
    settings.TELEGRAM_API_BASE_URL = telegram_server.base_url
    settings.TELEGRAM_TIMEOUT_S = 1.0
    sender.reset_state()
    yield telegram_server
    sender.reset_state()


@pytest.fixture
def apprise_endpoint(settings):
    """A running FakeAppriseEndpoint; Apprise destinations get short timeouts and no pace gap."""
    settings.APPRISE_TIMEOUT_S = 2.0
    settings.APPRISE_MIN_GAP_S = 0.0
    server = FakeAppriseEndpoint().start()
    yield server
    server.stop()
    # The endpoint's password must not stay redacted in the tests that follow.
    forget_learnt_secrets()
