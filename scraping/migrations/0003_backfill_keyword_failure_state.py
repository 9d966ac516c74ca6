"""Seeds Keyword.last_success_at from the run history, so an existing install
does not look stale (SCRAPE_STALE_MINUTES) right after the upgrade."""

from django.db import migrations
from django.db.models import Max, OuterRef, Subquery


def backfill(apps, schema_editor):
    Keyword = apps.get_model("tracker", "Keyword")
    ScrapeRun = apps.get_model("scraping", "ScrapeRun")
    newest_done = (
        ScrapeRun.objects.filter(keyword=OuterRef("pk"), status="done").values("keyword").annotate(at=Max("finished_at")).values("at")
    )
    Keyword.objects.update(last_success_at=Subquery(newest_done))


class Migration(migrations.Migration):
    dependencies = [
        ("scraping", "0002_heartbeat_to_tracker"),
        ("tracker", "0005_keyword_failure_state"),
    ]

    operations = [migrations.RunPython(backfill, migrations.RunPython.noop)]
