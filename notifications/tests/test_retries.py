"""The retry schedule: 1, 2, 4, 8, 16 minutes, dead after the 5th failed retry; operator retry."""

from datetime import timedelta

import pytest
from django.contrib.admin.sites import site
from django.urls import reverse
from django.utils import timezone

from notifications import sender
from notifications.models import Notification
from notifications.sender import process_queue
from tests.factories import make_notification

pytestmark = pytest.mark.django_db


def tick():
    # A minute or more passes between ticks in production: the per-chat pacing slot is free again.
    sender.pacer().chat_free_at.clear()
    return process_queue()


def test_exact_backoff_schedule_then_dead(telegram, time_machine, caplog):
    time_machine.move_to(timezone.now(), tick=False)
    telegram.fail(502, "Bad Gateway", times=None)
    n = make_notification()
    waits = []
    for failure in range(1, 7):
        failed_at = timezone.now()
        assert tick() == 0
        n.refresh_from_db()
        assert n.attempts == failure
        if n.status == Notification.Status.DEAD:
            break
        waits.append((n.next_attempt_at - failed_at) / timedelta(minutes=1))
        time_machine.move_to(n.next_attempt_at - timedelta(seconds=1))
        assert tick() == 0  # not due yet: nothing sent, nothing counted
        n.refresh_from_db()
        assert n.attempts == failure
        time_machine.move_to(n.next_attempt_at)
    assert waits == [1, 2, 4, 8, 16]
    assert n.status == Notification.Status.DEAD
    assert n.attempts == 6
    assert "Bad Gateway" in n.last_error
    dead = [r for r in caplog.records if r.levelname == "ERROR" and "dead" in r.getMessage()]
    assert len(dead) == 1
    assert str(n.chat.chat_id) in dead[0].getMessage() and f"ad {n.ad_id}" in dead[0].getMessage()
    assert len([r for r in telegram.requests if r["method"] == "sendMessage"]) == 6


def test_dead_row_stays_dead(telegram, time_machine):
    telegram.fail(500, times=None)
    n = make_notification(attempts=5)
    tick()
    n.refresh_from_db()
    assert n.status == Notification.Status.DEAD
    time_machine.move_to(timezone.now() + timedelta(days=1))
    tick()
    assert len([r for r in telegram.requests if r["method"] == "sendMessage"]) == 1


def test_retry_now_from_admin_sends_a_dead_row(telegram, admin_client):
    n = make_notification(status=Notification.Status.DEAD, attempts=6, last_error="Bad Gateway")
    url = reverse("admin:notifications_notification_changelist")
    response = admin_client.post(url, {"action": "retry_now", "_selected_action": [n.pk]})
    assert response.status_code == 302
    n.refresh_from_db()
    assert n.status == Notification.Status.PENDING
    assert n.attempts == 0
    assert n.next_attempt_at <= timezone.now()
    assert tick() == 1
    n.refresh_from_db()
    assert n.status == Notification.Status.SENT


def test_retry_now_makes_a_backing_off_row_due_now(telegram):
    n = make_notification(attempts=3, next_attempt_at=timezone.now() + timedelta(minutes=8))
    assert n.retry_now()
    assert tick() == 1


def test_cancel_from_admin(admin_client):
    n = make_notification()
    sent = make_notification(status=Notification.Status.SENT)
    url = reverse("admin:notifications_notification_changelist")
    admin_client.post(url, {"action": "cancel", "_selected_action": [n.pk, sent.pk]})
    n.refresh_from_db()
    sent.refresh_from_db()
    assert n.status == Notification.Status.CANCELLED
    assert sent.status == Notification.Status.SENT


def test_admin_queue_filters_render(admin_client):
    n = make_notification(last_error="TimedOut: timed out")
    url = reverse("admin:notifications_notification_changelist")
    for query in ("?status__exact=pending", "?kind__exact=new", f"?chat__id__exact={n.chat_id}"):
        response = admin_client.get(url + query)
        assert response.status_code == 200
        assert "TimedOut" in response.content.decode()
    assert Notification in site._registry
