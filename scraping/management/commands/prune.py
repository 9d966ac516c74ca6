"""Delete history past its retention now (the tick does this daily).

manage.py prune             # delete, printing progress per batch and the totals
manage.py prune --dry-run   # only count what would be deleted
"""

from django.core.management.base import BaseCommand

from scraping import retention


class Command(BaseCommand):
    help = (
        "Delete scrape runs, settled notifications and task failures past RETENTION_*_DAYS, "
        "in batches."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--dry-run", action="store_true", help="count what would be deleted, delete nothing"
        )

    def handle(self, dry_run, verbosity, **options):
        if dry_run:
            for name, n in retention.count().items():
                self.stdout.write(f"{name}: {n} would be deleted")
            return

        def progress(name, deleted):
            if verbosity >= 1:
                self.stdout.write(f"  {name}: {deleted} deleted so far")

        result = retention.prune(progress=progress)
        for name, n in result.counts.items():
            self.stdout.write(f"{name}: {n} deleted")
