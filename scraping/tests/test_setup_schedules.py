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


def test_resets_what_the_tick_runs_and_pauses_other_schedules(capsys):
    from scraping.tests.test_schedule_admin import EXPLOIT_KWARGS

    Schedule.objects.create(
        name="lago-tick", func="os.system", hook="os.system", args="'id'", kwargs=EXPLOIT_KWARGS
    )
    Schedule.objects.create(name="evil", func="os.system", args="'id'")
    call_command("setup_schedules")
    tick = Schedule.objects.get(name="lago-tick")
    assert tick.func == "scraping.tick.tick"
    assert not (tick.hook or tick.args or tick.kwargs or tick.cluster)
    assert Schedule.objects.get(name="evil").repeats == 0
    assert "Paused schedule 'evil' (os.system)" in capsys.readouterr().out
