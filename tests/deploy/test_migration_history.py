"""Each app has one linear migration history, and a database made before the squash upgrades.

`data/before_squash.*.sql` are dumps of a database migrated with the history before it was
squashed (35 migrations, two SQL functions of the old send pace), holding one keyword, ad,
price change, chat, subscription, notification and run. Migrating such a database must keep
its rows and end with the same tables, columns and indexes as a fresh database.
"""

import os
import sqlite3
import subprocess
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.db import connection
from django.db.migrations.loader import MigrationLoader

from tests.processes import PYTHON

APPS = ["tracker", "notifications", "scraping"]
DUMPS = Path(__file__).parent / "data"


def test_each_app_has_one_linear_history_without_merge_migrations():
    loader = MigrationLoader(None, ignore_no_migrations=True)
    for app in APPS:
        nodes = [key for key in loader.disk_migrations if key[0] == app]
        assert len(loader.graph.leaf_nodes(app)) == 1, app
        for key in nodes:
            own_parents = [p for p in loader.graph.node_map[key].parents if p.key[0] == app]
            assert len(own_parents) <= 1, f"{key} merges {own_parents}"
            assert loader.disk_migrations[key].operations, f"{key} is empty"


def _migrate(database_url):
    result = subprocess.run(
        [PYTHON, "manage.py", "migrate", "--no-input", "--skip-checks", "-v", "1"],
        env={
            **os.environ,
            "DATABASE_URL": database_url,
            "SECRET_KEY": settings.SECRET_KEY,
            "DJANGO_SETTINGS_MODULE": "lago.settings",
        },
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def _sqlite_schema(path):
    with sqlite3.connect(path) as db:
        tables = [
            row[0]
            for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if not row[0].startswith("sqlite_")
        ]
        return {
            table: (
                sorted(tuple(c[1:4]) for c in db.execute(f'PRAGMA table_info("{table}")')),
                sorted(i[1] for i in db.execute(f'PRAGMA index_list("{table}")')),
            )
            for table in tables
        }


def test_a_sqlite_database_from_before_the_squash_upgrades_with_its_data(tmp_path):
    old = tmp_path / "old.sqlite3"
    with sqlite3.connect(old) as db:
        db.executescript((DUMPS / "before_squash.sqlite.sql").read_text(encoding="utf-8"))
    output = _migrate(f"sqlite:///{old}")

    assert "tracker.0001" not in output  # the squashed history counts as applied
    fresh = tmp_path / "fresh.sqlite3"
    _migrate(f"sqlite:///{fresh}")
    old_schema, fresh_schema = _sqlite_schema(old), _sqlite_schema(fresh)
    ours = [t for t in fresh_schema if t.split("_")[0] in APPS]
    assert ours
    assert {t: old_schema.get(t) for t in ours} == {t: fresh_schema[t] for t in ours}
    with sqlite3.connect(old) as db:
        assert db.execute("SELECT title FROM tracker_ad").fetchall() == [("Canyon Ultimate CF",)]
        assert db.execute("SELECT chat_id FROM notifications_telegramchat").fetchall() == [(4242,)]
        # Stored as LANGUAGE_CODE ("de-at") then; now one of the language choices.
        assert db.execute("SELECT language FROM notifications_telegramchat").fetchall() == [("de",)]
        assert db.execute("SELECT count(*) FROM notifications_notification").fetchone() == (1,)


def _pg_schema(url):
    with psycopg.connect(url) as db:
        columns = db.execute(
            "SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns"
            " WHERE table_schema = 'public' ORDER BY 1, 2"
        ).fetchall()
        indexes = db.execute(
            "SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'"
            " ORDER BY 1, 2"
        ).fetchall()
        functions = db.execute(
            "SELECT proname FROM pg_proc WHERE proname LIKE 'lago%%' ORDER BY 1"
        ).fetchall()
    mine = tuple(APPS)
    return (
        [c for c in columns if c[0].startswith(mine)],
        # A partial index's condition is compared by name only: PostgreSQL prints the same
        # condition with other casts depending on how it was built.
        [(t, name, d.split(" WHERE ")[0]) for t, name, d in indexes if t.startswith(mine)],
        functions,
    )


@pytest.fixture
def postgres_databases():
    """Two throwaway databases on the test server: `old` (restored from the dump) and `fresh`."""
    db = connection.settings_dict
    auth = f"{db['USER']}:{db['PASSWORD']}@" if db.get("PASSWORD") else f"{db['USER']}@"
    server = f"postgres://{auth}{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}"
    names = {kind: f"{db['NAME']}_{kind}_history" for kind in ("old", "fresh")}
    with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
        for name in names.values():
            admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
            admin.execute(f'CREATE DATABASE "{name}"')
    yield {kind: f"{server}/{name}" for kind, name in names.items()}
    with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
        for name in names.values():
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.mark.postgres
def test_a_postgres_database_from_before_the_squash_upgrades_with_its_data(postgres_databases):
    old, fresh = postgres_databases["old"], postgres_databases["fresh"]
    with psycopg.connect(old, autocommit=True) as db:
        db.execute((DUMPS / "before_squash.postgres.sql").read_text(encoding="utf-8"))
        assert (
            db.execute(
                "SELECT count(*) FROM pg_proc WHERE proname = 'lago_pace_reserve'"
            ).fetchone()[0]
            == 2
        )

    output = _migrate(old)

    assert "tracker.0001" not in output
    _migrate(fresh)
    old_schema, fresh_schema = _pg_schema(old), _pg_schema(fresh)
    assert old_schema == fresh_schema
    assert old_schema[2] == []  # the old pace functions are gone
    with psycopg.connect(old) as db:
        assert db.execute("SELECT title FROM tracker_ad").fetchall() == [("Canyon Ultimate CF",)]
        assert db.execute("SELECT count(*) FROM notifications_notification").fetchone() == (1,)
