"""Fixtures for the notifications app: the fake Telegram Bot API, wired into settings."""

import pytest

from notifications import sender
from tests.fakes.telegram import FakeTelegram


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
