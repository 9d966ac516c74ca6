"""Process-level tests: real gunicorn, qcluster, watchdog, honcho, manage.py children.

Migrating a database and collecting static files take seconds each in a fresh interpreter, so
they happen once per session (per xdist worker): every test gets a copy of one migrated SQLite
file and shares one collected static folder (read-only).
"""

import contextlib
import shutil
import sqlite3
import subprocess

import pytest
from django.conf import settings

from tests.processes import PYTHON, child_env


@pytest.fixture(scope="session")
def migrated_sqlite_template(tmp_path_factory):
    """A SQLite file migrated once per session; tests take copies (`sqlite_database`)."""
    path = tmp_path_factory.mktemp("template") / "lago.sqlite3"
    env = child_env(database=path)
    subprocess.run(
        [PYTHON, "manage.py", "migrate", "--no-input", "-v", "0"],
        env=env,
        cwd=settings.BASE_DIR,
        check=True,
    )
    # Back to a rollback journal (which folds the WAL into the file): a plain copy is then the
    # whole database, and a copy is in WAL mode only if the settings put it there.
    with contextlib.closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA journal_mode=DELETE").fetchone() == ("delete",)
    return path


@pytest.fixture
def sqlite_database(migrated_sqlite_template, tmp_path):
    """A migrated SQLite file of this test's own (a copy of the session's template)."""
    path = tmp_path / "lago.sqlite3"
    shutil.copyfile(migrated_sqlite_template, path)
    return path


@pytest.fixture(scope="session")
def static_root(tmp_path_factory):
    """STATIC_ROOT collected once per session, as the image's build does; read-only for tests."""
    path = tmp_path_factory.mktemp("static")
    env = child_env(database=tmp_path_factory.getbasetemp() / "collectstatic.sqlite3")
    env["STATIC_ROOT"] = str(path)
    subprocess.run(
        [PYTHON, "manage.py", "collectstatic", "--no-input", "--verbosity", "0"],
        env=env,
        cwd=settings.BASE_DIR,
        check=True,
    )
    return path
