"""Destinations in /metrics, /stats, `status` and the dashboard: per channel counts, last
success and error, paused ones among the open problems; the URL masked everywhere."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from notifications.models import Notification
from tests.factories import make_chat, make_destination, make_notification

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]

URL = "json://user:secret@127.0.0.1:9/hook"


@pytest.fixture
def outbox():
    family = make_destination(title="family", apprise_url=URL)
    office = make_destination(title="office", apprise_url=URL.replace("hook", "office"))
    chat = make_chat()
    sent = dict(status=Notification.Status.SENT, sent_at=timezone.now())
    make_notification(chat=family, **sent)
    make_notification(chat=family, status=Notification.Status.DEAD, last_error="HTTP 500")
    make_notification(chat=office, last_error="HTTP 500", attempts=1)  # failing, will retry
    make_notification(chat=chat, **sent)
    make_notification(chat=chat, **sent)
    make_notification(chat=chat, status=Notification.Status.DEAD, last_error="Forbidden")
    make_notification(chat=chat)
    family.note_success()
    family.note_failure("Failed to send JSON POST notification: error=500.")
    office.pause("failed 6 times: error=500.", alert=False)
    return family, office


def test_metrics_count_sent_pending_and_dead_per_channel_kind(client, outbox):
    text = client.get("/metrics").content.decode()
    samples = {
        (s.labels["channel"], s.labels["outcome"]): s.value
        for family in text_string_to_metric_families(text)
        if family.name == "lago_channel_notifications"
        for s in family.samples
    }
    assert samples == {
        ("telegram", "sent"): 2,
        ("telegram", "pending"): 1,
        ("telegram", "dead"): 1,
        ("apprise", "sent"): 1,
        # The office's failing row was cancelled when it was paused.
        ("apprise", "pending"): 0,
        ("apprise", "dead"): 1,
    }
    assert "secret" not in text


def test_stats_list_destinations_with_last_success_and_error_masked(client, outbox):
    body = client.get("/stats").json()
    family, office = body["destinations"]
    assert family["name"] == "family" and family["url"] == "json://user:****@127.0.0.1:9/hook"
    assert family["status"] == "active" and family["last_success_at"]
    assert "error=500" in family["last_error"] and family["last_error_at"]
    assert office["status"] == "paused" and "failed 6 times" in office["status_reason"]
    assert "secret" not in client.get("/stats").content.decode()


def test_status_command_shows_destinations_masked(outbox):
    out = StringIO()
    try:
        call_command("status", stdout=out, stderr=out)
    except SystemExit:  # unhealthy: no scheduler has run here
        pass
    text = out.getvalue()
    assert "Destination family (json://user:****@127.0.0.1:9/hook): active" in text
    assert "Destination office" in text and "paused" in text
    assert "secret" not in text


def test_dashboard_lists_destinations_and_paused_ones_as_problems(admin_client, outbox):
    html = admin_client.get("/admin/").content.decode()
    section = html.split('id="lago-destinations"')[1].split('<div class="module"')[0]
    problems = section.split('id="lago-destination-problems"')[1].split("</ul>")[0]
    assert "office" in problems and "failed 6 times" in problems
    assert "family" not in problems
    assert "1 dead message to destinations" in problems
    assert "json://user:****@127.0.0.1:9/hook" in section
    assert "error=500" in section
    assert "secret" not in html
