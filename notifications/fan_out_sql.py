"""The outbox fan-out's hand-built `INSERT … ON CONFLICT DO NOTHING` (NotificationQuerySet.fan_out).

bulk_create(ignore_conflicts=True) writes the same statement, but prepares every field of
every row through the ORM; fan_out prepares its values itself and hands the rows here.
The statement is assembled from Django's backend API (`connection.ops`), the same calls
bulk_create's SQL compiler makes; notifications/tests/test_fan_out_sql.py pins each of
them, on SQLite and PostgreSQL, so a Django upgrade that changes one fails there first.
"""

from django.db.models.constants import OnConflict

# Rows per INSERT in fan_out: PostgreSQL takes at most 65,535 parameters per statement.
FAN_OUT_BATCH = 1000


def insert_ignoring_conflicts(db, table, fields, rows, batch=FAN_OUT_BATCH):
    """Inserts `rows` (tuples of values prepared for `db`, one per field) into `table`.

    Rows a unique constraint already holds are skipped; returns how many rows were new.
    `db` is a connection (django.db.connections[alias]), `fields` the model fields whose
    columns the values fill, in order. Batches stay within the backend's parameter limit.
    """
    size = max(min(db.ops.bulk_batch_size(fields, rows), batch), 1)
    inserted = 0
    with db.cursor() as cursor:
        for start in range(0, len(rows), size):
            chunk = rows[start : start + size]
            cursor.execute(
                insert_sql(db.ops, table, fields, len(chunk)), [v for row in chunk for v in row]
            )
            inserted += cursor.rowcount
    return inserted


def insert_sql(ops, table, fields, row_count):
    """The statement for `row_count` rows: what bulk_create(ignore_conflicts=True) writes.

    SQLite: INSERT OR IGNORE INTO "t" ("a", "b") VALUES (%s, %s), (%s, %s)
    PostgreSQL: INSERT INTO "t" ("a", "b") VALUES (%s, %s), (%s, %s) ON CONFLICT DO NOTHING
    """
    names = ", ".join(ops.quote_name(f.column) for f in fields)
    row = "(" + ", ".join(["%s"] * len(fields)) + ")"
    insert = ops.insert_statement(on_conflict=OnConflict.IGNORE)
    values = ", ".join([row] * row_count)
    sql = f"{insert} {ops.quote_name(table)} ({names}) VALUES {values}"
    suffix = ops.on_conflict_suffix_sql(fields, OnConflict.IGNORE, None, None)
    return f"{sql} {suffix}" if suffix else sql
