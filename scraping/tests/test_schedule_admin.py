"""The django-q2 Schedule admin schedules only Lago's own task functions."""

import pytest
from django.urls import reverse
from django_q.models import Schedule

from scraping.management.commands.setup_schedules import TICK

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]
ADD = reverse("admin:django_q_schedule_add")


def form(**extra):
    data = {
        "name": "x",
        "func": TICK["func"],
        "hook": "",
        "args": "",
        "kwargs": "",
        "schedule_type": "I",
        "minutes": "1",
    }
    data.update(
        {
            "repeats": "-1",
            "next_run_0": "2030-01-01",
            "next_run_1": "00:00:00",
            "cron": "",
            "cluster": "",
            "intended_date_kwarg": "",
        }
    )
    return {**data, **extra}


@pytest.mark.parametrize(
    "func", ["os.system", "subprocess.run", "builtins.eval", " scraping.tick.tick.__globals__"]
)
def test_a_foreign_function_is_rejected(admin_client, func):
    response = admin_client.post(ADD, form(func=func, args="'id > /tmp/pwned'"))
    assert response.status_code == 200
    assert "Only Lago&#x27;s task functions can be scheduled" in response.content.decode()
    assert not Schedule.objects.exists()


def test_a_hook_is_rejected(admin_client):
    response = admin_client.post(ADD, form(hook="os.system"))
    assert "take no hook" in response.content.decode()
    assert not Schedule.objects.exists()


def test_lagos_tick_from_setup_schedules_can_be_scheduled(admin_client):
    response = admin_client.post(ADD, form())
    assert response.status_code == 302, response.content.decode()[:3000]
    assert Schedule.objects.get().func == TICK["func"] == "scraping.tick.tick"
