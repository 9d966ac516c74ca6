"""Databases upgraded from before the squash still hold the send pace's SQL functions; the
pace is Python only now, so they are dropped (nothing on a fresh database)."""

from django.db import migrations


def drop_pace_functions(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        # Two overloads: each is dropped by its full signature.
        cursor.execute("SELECT oid::regprocedure::text FROM pg_proc WHERE proname = 'lago_pace_reserve'")
        signatures = [row[0] for row in cursor.fetchall()]
    for signature in signatures:
        schema_editor.execute(f"DROP FUNCTION IF EXISTS {signature}")


class Migration(migrations.Migration):
    dependencies = [
        ("notifications", "0001_squashed_0010_pace_reserve_takes_the_arrival"),
    ]

    operations = [migrations.RunPython(drop_pace_functions, migrations.RunPython.noop)]
