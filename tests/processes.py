"""Helpers for tests that run real processes against the test database."""

import os
import sys

from django.conf import settings
from django.db import connection


def database_url():
    """A DATABASE_URL that points a child process at the live test database."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        name = db["NAME"]
        if name == ":memory:" or "mode=memory" in str(name):
            raise RuntimeError("child processes need a file database: mark the test postgres or use a file")
        return f"sqlite:///{name}"
    user = db.get("USER") or ""
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{user}{password}@{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}/{db['NAME']}"


def child_env(**extra):
    env = dict(os.environ)
    env.update(
        DATABASE_URL=database_url(),
        # django-q2 signs tasks with SECRET_KEY: a child with another key silently drops the tasks this process enqueues.
        SECRET_KEY=settings.SECRET_KEY,
        DJANGO_SETTINGS_MODULE="tracker.settings",
        PYTHONPATH=str(settings.BASE_DIR),
    )
    env.update({k: str(v) for k, v in extra.items()})
    return env


PYTHON = sys.executable
