"""django-q2's admins run no code: schedules may be paused and retimed only, stored tasks are not
resubmitted, queued tasks are read-only — for superusers too."""

import pytest
from django.contrib.admin import site
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth.models import Permission, User
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone
from django_q.models import Failure, OrmQ, Schedule, Success

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]

# The payload of the finding: a chain that makes the cluster call os.system after the tick.
EXPLOIT_KWARGS = (
    "{'q_options': {'cached': False, 'sync': False, 'chain': [('os.system', ('id > /tmp/x',),)]}}"
)


@pytest.fixture
def tick():
    call_command("setup_schedules", verbosity=0)
    return Schedule.objects.get(name="lago-tick")


@pytest.fixture
def viewer(client):
    user = User.objects.create_user("viewer", password="x-long-enough-Passw0rd", is_staff=True)
    user.user_permissions.set(
        Permission.objects.filter(content_type__app_label="django_q", codename__startswith="view_")
    )
    client.force_login(user)
    return client


def change(client, schedule, **extra):
    data = {
        "name": "evil",
        "func": "os.system",
        "hook": "os.system",
        "args": "'id > /tmp/x'",
        "kwargs": EXPLOIT_KWARGS,
        "cluster": "elsewhere",
        "intended_date_kwarg": "",
        "schedule_type": Schedule.MINUTES,
        "minutes": "5",
        "cron": "",
        "repeats": "-1",
        "next_run_0": "2030-01-01",
        "next_run_1": "12:00:00",
        **extra,
    }
    url = reverse("admin:django_q_schedule_change", args=[schedule.pk])
    return client.post(url, data)


def act(client, model, action, *objects):
    url = reverse(f"admin:django_q_{model._meta.model_name}_changelist")
    return client.post(
        url, {"action": action, ACTION_CHECKBOX_NAME: [o.pk for o in objects]}, follow=True
    )


def test_nobody_adds_a_schedule(admin_client, tick):
    add = reverse("admin:django_q_schedule_add")
    assert admin_client.get(add).status_code == 403
    data = {"name": "evil", "func": "scraping.tick.tick", "kwargs": EXPLOIT_KWARGS}
    assert admin_client.post(add, {**data, "schedule_type": "I", "minutes": "1"}).status_code == 403
    assert list(Schedule.objects.values_list("name", flat=True)) == ["lago-tick"]
    changelist = admin_client.get(reverse("admin:django_q_schedule_changelist"))
    assert reverse("admin:django_q_schedule_add") not in changelist.content.decode()


def test_a_superuser_changes_only_the_timing(admin_client, tick):
    response = change(admin_client, tick)
    assert response.status_code == 302, response.content.decode()[:2000]
    tick.refresh_from_db()
    assert (tick.minutes, tick.next_run.year) == (5, 2030)
    assert (tick.name, tick.func) == ("lago-tick", "scraping.tick.tick")
    assert not (tick.hook or tick.args or tick.kwargs or tick.cluster)


def test_the_change_form_shows_what_runs_read_only(admin_client, tick):
    page = admin_client.get(reverse("admin:django_q_schedule_change", args=[tick.pk]))
    html = page.content.decode()
    assert 'name="minutes"' in html and 'name="repeats"' in html
    for field in ("name", "func", "hook", "args", "kwargs", "cluster"):
        assert f'name="{field}"' not in html


def test_a_foreign_schedule_cannot_be_retimed_or_resumed(admin_client):
    evil = Schedule.objects.create(
        name="evil", func="scraping.tick.tick", kwargs=EXPLOIT_KWARGS, repeats=0
    )
    response = change(admin_client, evil)
    assert "is not one of Lago&#x27;s" in response.content.decode()
    response = act(admin_client, Schedule, "resume", evil)
    assert "are not Lago&#x27;s schedules" in response.content.decode()
    evil.refresh_from_db()
    assert evil.repeats == 0 and evil.minutes is None


def test_pause_and_resume(admin_client, tick):
    act(admin_client, Schedule, "pause", tick)
    tick.refresh_from_db()
    assert tick.repeats == 0
    act(admin_client, Schedule, "resume", tick)
    tick.refresh_from_db()
    assert tick.repeats == -1


def test_view_only_staff_cannot_change_pause_or_delete(viewer, tick):
    assert change(viewer, tick).status_code == 403
    act(viewer, Schedule, "pause", tick)
    act(viewer, Schedule, "delete_selected", tick)
    tick.refresh_from_db()
    assert (tick.minutes, tick.repeats) == (1, -1)


def stored_tasks():
    now = timezone.now()
    common = {"started": now, "stopped": now, "group": "g", "kwargs": {}}
    ok = Success.objects.create(
        id="a" * 32, name="ok", func="scraping.tick.tick", hook="os.system", args=(), success=True,
        result=None, **common,
    )  # fmt: skip
    failed = Failure.objects.create(
        id="b" * 32, name="failed", func="os.system", args=("id > /tmp/x",), success=False,
        result="", **common,
    )  # fmt: skip
    return ok, failed


@pytest.mark.parametrize("as_superuser", [True, False], ids=["superuser", "view-only"])
def test_stored_tasks_are_not_resubmitted(client, admin_user, viewer, as_superuser):
    if as_superuser:
        client.force_login(admin_user)
    ok, failed = stored_tasks()
    for model, row in ((Success, ok), (Failure, failed)):
        response = act(client, model, "resubmit_task", row)
        assert response.status_code == 200
        assert 'value="resubmit_task"' not in response.content.decode()
    assert not OrmQ.objects.exists()
    assert (
        Success.objects.filter(pk=ok.pk).exists() and Failure.objects.filter(pk=failed.pk).exists()
    )


def test_queued_tasks_are_read_only(admin_client):
    row = OrmQ.objects.create(key="lago", payload="x", lock=timezone.now())
    page = admin_client.get(reverse("admin:django_q_ormq_change", args=[row.pk]))
    html = page.content.decode()
    assert 'name="key"' not in html and 'name="lock"' not in html


def test_every_django_q_admin_action_declares_a_permission():
    for model, model_admin in site._registry.items():
        if model._meta.app_label != "django_q":
            continue
        for name in model_admin.actions or []:
            func = getattr(model_admin, name)
            assert getattr(func, "allowed_permissions", None), f"{model.__name__}.{name}"
