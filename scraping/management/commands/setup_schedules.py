"""Creates (or repairs) the django-q2 schedule of the scheduler tick. Idempotent.

The schedules are the project's: the tick's row is reset to exactly what Lago runs (no hook,
arguments or cluster, whatever was stored), and every other schedule is paused, since only this
command makes schedules (the admin may pause and retime, see scraping/admin_schedules.py).
"""

from django.core.management.base import BaseCommand
from django_q.models import Schedule

TICK = {
    "name": "lago-tick",
    "func": "scraping.tick.tick",
    "hook": None,
    "args": None,
    "kwargs": None,
    "cluster": None,
    # The tick measures keyword windows from the moment it was scheduled for (scraping.tick).
    "intended_date_kwarg": "scheduled_at",
    "schedule_type": Schedule.MINUTES,
    "minutes": 1,
    "repeats": -1,
}


class Command(BaseCommand):
    help = (
        "Create or update the django-q2 schedule that runs the scheduler tick every minute; "
        "pause every other schedule."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--dry-run", action="store_true", help="Show what would change, change nothing."
        )

    def handle(self, *args, dry_run=False, **options):
        existing = Schedule.objects.filter(name=TICK["name"]).first()
        foreign = Schedule.objects.exclude(name=TICK["name"]).exclude(repeats=0)
        if dry_run:
            verb = "update" if existing else "create"
            self.stdout.write(
                f"Would {verb} schedule {TICK['name']!r}: {TICK['func']} every minute."
            )
            for schedule in foreign:
                self.stdout.write(f"Would pause schedule {schedule.name!r} ({schedule.func}).")
            return
        for schedule in foreign:
            self.stdout.write(
                self.style.WARNING(
                    f"Paused schedule {schedule.name!r} ({schedule.func}): not one of Lago's; "
                    "delete it in the admin."
                )
            )
        foreign.update(repeats=0)
        schedule, created = Schedule.objects.update_or_create(name=TICK["name"], defaults=TICK)
        verb = "Created" if created else "Updated"
        self.stdout.write(
            self.style.SUCCESS(
                f"{verb} schedule {schedule.name!r}: {schedule.func} every minute (catch-up off)."
            )
        )
