"""Shared bench start-up: repo on sys.path, Django settings, a throwaway SQLite file unless DATABASE_URL is set."""

import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def django_setup(migrate=False):
    """Configure Django like the product. Returns the temp dir to delete (SQLite) or None."""
    sys.path.insert(0, str(REPO))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tracker.settings")
    os.environ.setdefault("SECRET_KEY", "bench-only-secret-key")
    os.environ.setdefault("LOG_LEVEL", "ERROR")
    tmp = None
    if not os.environ.get("DATABASE_URL"):
        tmp = tempfile.TemporaryDirectory(prefix="lago-bench-")
        os.environ["DATABASE_URL"] = f"sqlite:///{tmp.name}/bench.sqlite3"
    import django

    django.setup()
    if migrate:
        from django.core.management import call_command

        call_command("migrate", verbosity=0, interactive=False)
    return tmp
