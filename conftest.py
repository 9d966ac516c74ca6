"""Project-wide pytest setup: database-dependent markers and shared fixtures."""

import pytest
from django.conf import settings

# Fake peers (willhaben_server, ...) for every app's tests.
pytest_plugins = ["tests.fakes.fixtures"]


@pytest.fixture(scope="session", autouse=True)
def _health_probe_ends_before_the_test_database(django_db_setup):
    """/health's probe thread keeps a connection of its own (PostgreSQL): end it, or the
    test database cannot be dropped."""
    yield
    from operations.health import stop_probe

    stop_probe()


@pytest.fixture
def english(settings):
    """LANGUAGE_CODE en-us: for tests that read the English texts (German, the default, is
    tested in notifications/tests/test_i18n.py and tracker/tests/test_locale.py). New chats
    get English too (TelegramChat.language defaults to LANGUAGE_CODE)."""
    settings.LANGUAGE_CODE = "en-us"


def pytest_collection_modifyitems(config, items):
    if settings.IS_POSTGRES:
        return
    skip = pytest.mark.skip(
        reason="needs PostgreSQL: run with DATABASE_URL=postgres://… (as .ci/run does)"
    )
    for item in items:
        if "postgres" in item.keywords:
            item.add_marker(skip)
