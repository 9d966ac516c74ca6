"""A trigram index for the ad admin's title search (issue 16), on PostgreSQL only.

The admin searches `title__icontains`, which Django writes as
`UPPER("tracker_ad"."title"::text) LIKE UPPER('%term%')`: a GIN trigram index on
that expression serves it. pg_trgm is a trusted extension (PostgreSQL 13+), so the
database owner may create it. On SQLite both steps do nothing.
"""

from django.db import migrations

INDEX = "ad_title_trgm_idx"


def create(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    schema_editor.execute(f"CREATE INDEX IF NOT EXISTS {INDEX} ON tracker_ad USING gin ((UPPER(title::text)) gin_trgm_ops)")


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    dependencies = [
        ("tracker", "0011_i18n_labels"),
    ]

    operations = [migrations.RunPython(create, drop, elidable=False)]
