# Heartbeat moves from scraping to tracker in Django's state only: the table
# scraping_heartbeat stays as it is (no rename, no data copied).
import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tracker", "0002_keywordad_price"),
        ("scraping", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Heartbeat",
                    fields=[
                        ("name", models.CharField(max_length=32, primary_key=True, serialize=False)),
                        ("last_seen_at", models.DateTimeField(default=django.utils.timezone.now)),
                        ("detail", models.CharField(blank=True, default="", max_length=200)),
                    ],
                    options={"db_table": "scraping_heartbeat"},
                ),
            ],
            database_operations=[],
        ),
    ]
