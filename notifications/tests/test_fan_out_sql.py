"""Pins the Django backend API that notifications/fan_out_sql.py builds its INSERT from.

fan_out writes `INSERT … ON CONFLICT DO NOTHING` by hand instead of calling bulk_create.
It relies on `connection.ops.quote_name`, `insert_statement`, `on_conflict_suffix_sql`
and `bulk_batch_size` (their signatures and what they return), on `bulk_insert_sql`'s
VALUES layout, on `cursor.rowcount` counting only new rows, and on the prepared-value API
of fields. A Django upgrade that changes any of these fails here, not in production.

The SQL checks run for SQLite and PostgreSQL alike: the PostgreSQL backend's operations
are used offline (a DatabaseWrapper that never connects). The execution checks run on the
configured database (SQLite locally, PostgreSQL with DATABASE_URL=postgres://…).
"""

import copy
import inspect

import pytest
from django.db import connection
from django.db.models import Field
from django.db.models.constants import OnConflict
from django.db.models.sql import InsertQuery
from django.db.utils import load_backend
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from notifications.fan_out_sql import FAN_OUT_BATCH, insert_ignoring_conflicts, insert_sql
from notifications.models import Notification, TelegramChat

ENGINES = {"sqlite": "django.db.backends.sqlite3", "postgresql": "django.db.backends.postgresql"}
TABLE = TelegramChat._meta.db_table
FIELDS = [f for f in TelegramChat._meta.concrete_fields if not f.primary_key]
# Spelled out from the model, so a new TelegramChat field does not break these tests.
COLUMNS = "(" + ", ".join(f'"{f.column}"' for f in FIELDS) + ")"
ROW = "(" + ", ".join(["%s"] * len(FIELDS)) + ")"
SQLITE_MAX_PARAMS = 999
# PostgreSQL takes at most 65,535 parameters per statement.
POSTGRES_MAX_PARAMS = 65535


@pytest.fixture(params=sorted(ENGINES))
def backend(request):
    """A connection of each backend that is never opened: only its `ops` and `features` are used."""
    settings_dict = copy.deepcopy(connection.settings_dict)
    settings_dict.update(ENGINE=ENGINES[request.param], NAME="offline", HOST="127.0.0.1", PORT="1")
    wrapper = load_backend(settings_dict["ENGINE"]).DatabaseWrapper(
        settings_dict, alias=f"offline_{request.param}"
    )
    assert wrapper.vendor == request.param
    yield wrapper
    assert wrapper.connection is None  # nothing here may open a connection


def parameters(method):
    return [(p.name, p.default) for p in inspect.signature(method).parameters.values()]


# --- the ops API: signatures -------------------------------------------------------------


def test_ops_signatures_are_the_ones_fan_out_calls(backend):
    ops, empty = backend.ops, inspect.Parameter.empty
    assert parameters(ops.quote_name) == [("name", empty)]
    assert parameters(ops.insert_statement) == [("on_conflict", None)]
    assert parameters(ops.on_conflict_suffix_sql) == [
        ("fields", empty),
        ("on_conflict", empty),
        ("update_fields", empty),
        ("unique_fields", empty),
    ]
    assert parameters(ops.bulk_batch_size) == [("fields", empty), ("objs", empty)]
    assert parameters(ops.bulk_insert_sql) == [("fields", empty), ("placeholder_rows", empty)]


def test_field_preparation_api_fan_out_calls():
    empty = inspect.Parameter.empty
    assert parameters(Field.get_db_prep_save) == [
        ("self", empty),
        ("value", empty),
        ("connection", empty),
    ]
    assert parameters(Field.get_default) == [("self", empty)]
    assert OnConflict.IGNORE.value == "ignore"


# --- the ops API: what the calls return ------------------------------------------------------


def test_ops_answers_per_backend(backend):
    ops = backend.ops
    assert ops.quote_name(TABLE) == '"notifications_telegramchat"'
    assert ops.quote_name('"already"') == '"already"'
    ignore = ops.insert_statement(on_conflict=OnConflict.IGNORE)
    suffix = ops.on_conflict_suffix_sql(FIELDS, OnConflict.IGNORE, None, None)
    if backend.vendor == "sqlite":
        assert (ignore, suffix) == ("INSERT OR IGNORE INTO", "")
    else:
        assert (ignore, suffix) == ("INSERT INTO", "ON CONFLICT DO NOTHING")


def test_bulk_batch_size_keeps_statements_within_the_parameter_limit(backend):
    ops, fields = backend.ops, [f for f in Notification._meta.concrete_fields if not f.primary_key]
    rows = [()] * 5000
    size = ops.bulk_batch_size(fields, rows)
    if backend.vendor == "sqlite":
        assert backend.features.max_query_params == 999
        assert size == 999 // len(fields)
        assert size * len(fields) <= backend.features.max_query_params
    else:
        # No limit of its own on PostgreSQL: FAN_OUT_BATCH is what keeps fan_out under 65,535.
        assert size == len(rows)
        assert ops.bulk_batch_size(fields, rows[:3]) == 3
        assert FAN_OUT_BATCH * len(fields) <= POSTGRES_MAX_PARAMS


# --- the statement -----------------------------------------------------------------------


def test_statement_text_per_backend(backend):
    sql = insert_sql(backend.ops, TABLE, FIELDS, 2)
    if backend.vendor == "sqlite":
        assert (
            sql
            == f'INSERT OR IGNORE INTO "notifications_telegramchat" {COLUMNS} VALUES {ROW}, {ROW}'
        )
    else:
        assert sql == (
            f'INSERT INTO "notifications_telegramchat" {COLUMNS} VALUES {ROW}, {ROW}'
            " ON CONFLICT DO NOTHING"
        )


def test_statement_is_what_bulk_create_ignore_conflicts_writes(backend):
    """One row: the ORM's own InsertQuery (bulk_create's) compiles to the very same SQL."""
    query = InsertQuery(TelegramChat, on_conflict=OnConflict.IGNORE)
    query.insert_values(FIELDS, [TelegramChat(chat_id=1)])
    [(orm_sql, _)] = query.get_compiler(connection=backend).as_sql()
    assert insert_sql(backend.ops, TABLE, FIELDS, 1) == orm_sql


def test_values_clause_is_bulk_insert_sqls(backend):
    """Several rows: the VALUES list is laid out as ops.bulk_insert_sql lays out plain
    placeholders."""
    ops = backend.ops
    values = ops.bulk_insert_sql(FIELDS, [["%s"] * len(FIELDS)] * 3)
    assert values == f"VALUES {ROW}, {ROW}, {ROW}"
    parts = [
        ops.insert_statement(on_conflict=OnConflict.IGNORE),
        ops.quote_name(TABLE),
        COLUMNS,
        values,
    ]
    parts.append(ops.on_conflict_suffix_sql(FIELDS, OnConflict.IGNORE, None, None))
    assert insert_sql(ops, TABLE, FIELDS, 3) == " ".join(p for p in parts if p)


# --- executed on the configured database ---------------------------------------------------------


def chat_rows(*chat_ids):
    now = timezone.now()
    given = {"status": TelegramChat.Status.ACTIVE, "created_at": now}
    return [
        tuple(
            f.get_db_prep_save(
                chat_id if f.name == "chat_id" else given.get(f.name, f.get_default()), connection
            )
            for f in FIELDS
        )
        for chat_id in chat_ids
    ]


@pytest.mark.django_db
def test_rowcount_counts_only_new_rows():
    assert insert_ignoring_conflicts(connection, TABLE, FIELDS, chat_rows(1, 2, 3)) == 3
    assert insert_ignoring_conflicts(connection, TABLE, FIELDS, chat_rows(2, 3, 4)) == 1
    assert insert_ignoring_conflicts(connection, TABLE, FIELDS, chat_rows(4)) == 0
    assert list(TelegramChat.objects.order_by("chat_id").values_list("chat_id", "status")) == [
        (i, "active") for i in (1, 2, 3, 4)
    ]
    assert all(c.created_at.tzinfo is not None for c in TelegramChat.objects.all())


@pytest.mark.django_db
def test_rows_are_split_into_batches():
    with CaptureQueriesContext(connection) as ctx:
        assert (
            insert_ignoring_conflicts(connection, TABLE, FIELDS, chat_rows(*range(1, 6)), batch=2)
            == 5
        )
    inserts = [q["sql"] for q in ctx.captured_queries if "notifications_telegramchat" in q["sql"]]
    assert len(inserts) == 3
    assert TelegramChat.objects.count() == 5


@pytest.mark.django_db
def test_backend_limit_caps_the_batch():
    # SQLite's 999 parameters hold 999 // len(FIELDS) rows (124 of 8 columns); PostgreSQL has no
    # limit of its own.
    per_statement = min(connection.ops.bulk_batch_size(FIELDS, [()] * 300), FAN_OUT_BATCH)
    with CaptureQueriesContext(connection) as ctx:
        assert (
            insert_ignoring_conflicts(connection, TABLE, FIELDS, chat_rows(*range(1, 301))) == 300
        )
    inserts = [q for q in ctx.captured_queries if "notifications_telegramchat" in q["sql"]]
    assert len(inserts) == -(-300 // per_statement)
    assert len(inserts) == (
        -(-300 // (SQLITE_MAX_PARAMS // len(FIELDS))) if connection.vendor == "sqlite" else 1
    )
