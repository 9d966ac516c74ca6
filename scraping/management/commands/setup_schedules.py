"""Creates (or updates) the django-q2 schedule of the scheduler tick. Idempotent."""

from django.core.management.base import BaseCommand
from django_q.models import Schedule

TICK = {
    "name": "lago-tick",
    "func": "scraping.tick.tick",
    "schedule_type": Schedule.MINUTES,
    "minutes": 1,
    "repeats": -1,
}


class Command(BaseCommand):
    help = "Create or update the django-q2 schedule that runs the scheduler tick every minute."

    def add_arguments(self, parser):
        parser.add_argument(
            "--dry-run", action="store_true", help="Show what would change, change nothing."
        )

    def handle(self, *args, dry_run=False, **options):
        existing = Schedule.objects.filter(name=TICK["name"]).first()
        if dry_run:
            verb = "update" if existing else "create"
            self.stdout.write(
                f"Would {verb} schedule {TICK['name']!r}: {TICK['func']} every minute."
            )
            return
        schedule, created = Schedule.objects.update_or_create(name=TICK["name"], defaults=TICK)
        verb = "Created" if created else "Updated"
        self.stdout.write(
            self.style.SUCCESS(
                f"{verb} schedule {schedule.name!r}: {schedule.func} every minute (catch-up off)."
            )
        )
