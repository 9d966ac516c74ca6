# The other half of tracker.0003_heartbeat: scraping forgets the model, the table stays.
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("scraping", "0001_initial"),
        ("tracker", "0003_heartbeat"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="Heartbeat")],
            database_operations=[],
        ),
    ]
