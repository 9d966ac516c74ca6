"""pytest fixtures for the fake peers; loaded for every app through the root conftest."""

import pytest

from tests.fakes.willhaben import FakeWillhaben


@pytest.fixture
def willhaben_server(settings):
    """A running FakeWillhaben; settings point WILLHABEN_BASE_URL at it with fast retries and no request gap."""
    server = FakeWillhaben().start()
    settings.WILLHABEN_BASE_URL = server.base_url
    settings.SCRAPE_MIN_REQUEST_GAP_MS = 0
    settings.HTTP_BACKOFF_BASE_S = 0.01
    settings.HTTP_BACKOFF_MAX_S = 0.05
    settings.HTTP_TIMEOUT = 2.0
    yield server
    server.stop()
