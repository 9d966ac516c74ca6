"""Project-wide pytest setup: database-dependent markers and shared fixtures."""

import pytest
from django.conf import settings

# Fake peers (willhaben_server, ...) for every app's tests.
pytest_plugins = ["tests.fakes.fixtures"]


def pytest_collection_modifyitems(config, items):
    if settings.IS_POSTGRES:
        return
    skip = pytest.mark.skip(reason="needs PostgreSQL: run with DATABASE_URL=postgres://… (as .ci/run does)")
    for item in items:
        if "postgres" in item.keywords:
            item.add_marker(skip)
