import pytest

from tests.bot_harness import BotHarness

ADMIN = 500
ALLOWED = 600


@pytest.fixture
def bot(telegram, settings, db):
    """The real bot Application polling the fake Bot API (see tests/bot_harness.py).

    Chat 500 is the admin (TELEGRAM_ADMIN_CHAT_IDS), 600 is allowed without approval.
    """
    settings.TELEGRAM_ADMIN_CHAT_IDS = [ADMIN]
    settings.TELEGRAM_ALLOWED_CHAT_IDS = [ALLOWED]
    settings.TELEGRAM_OPEN_REGISTRATION = False
    settings.TELEGRAM_USERS_MAY_ADD_KEYWORDS = False
    telegram.max_poll_wait = 0.5
    # The `telegram` fixture's 1 s is for the sender's timeout tests; the bot's first getMe must not
    # time out when the machine is busy.
    settings.TELEGRAM_TIMEOUT_S = 10.0
    harness = BotHarness(telegram).start()
    yield harness
    harness.stop()
