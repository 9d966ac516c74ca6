import pytest
from django.conf import settings
from django.core.management import call_command
from django_q.models import Schedule

pytestmark = pytest.mark.django_db


def test_creates_the_tick_once_and_is_idempotent(capsys):
    call_command("setup_schedules")
    call_command("setup_schedules")
    schedule = Schedule.objects.get()
    assert (schedule.name, schedule.func) == ("lago-tick", "scraping.tick.tick")
    assert (schedule.schedule_type, schedule.minutes, schedule.repeats) == (Schedule.MINUTES, 1, -1)
    out = capsys.readouterr().out
    assert "Created schedule 'lago-tick'" in out and "Updated schedule 'lago-tick'" in out


def test_repairs_an_edited_schedule():
    Schedule.objects.create(
        name="lago-tick", func="scraping.tick.tick", schedule_type=Schedule.HOURLY
    )
    call_command("setup_schedules")
    assert Schedule.objects.get().schedule_type == Schedule.MINUTES


def test_dry_run_changes_nothing(capsys):
    call_command("setup_schedules", dry_run=True)
    assert Schedule.objects.count() == 0
    assert "Would create" in capsys.readouterr().out


def test_catch_up_is_off():
    # A cluster back from downtime must not fire one tick per missed minute.
    assert settings.Q_CLUSTER["catch_up"] is False
