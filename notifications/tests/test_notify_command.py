"""manage.py notify, /health's sending_paused, and admin alerts."""

import pytest
from django.core.management import call_command

from notifications.alerts import enqueue_admin_alert
from notifications.models import Notification
from tests.factories import make_chat, make_notification
from tracker.models import Heartbeat

pytestmark = pytest.mark.django_db


def test_notify_sends_due_rows(telegram, capsys):
    make_notification()
    call_command("notify")
    assert "sent 1" in capsys.readouterr().out
    assert len(telegram.messages) == 1


def test_notify_dry_run_prints_and_changes_nothing(telegram, capsys):
    n = make_notification()
    call_command("notify", "--dry-run", verbosity=2)
    out = capsys.readouterr().out
    assert f"notification {n.pk}" in out and n.ad.title in out
    assert telegram.messages == []
    n.refresh_from_db()
    assert (n.status, n.attempts) == (Notification.Status.PENDING, 0)


def test_health_reports_sending_paused(client, settings):
    # A live scheduler and bot: past the start-up grace the verdict would otherwise be about them.
    Heartbeat.beat("scheduler")
    Heartbeat.beat("bot")
    settings.TELEGRAM_BOT_TOKEN = ""
    body = client.get("/health").json()
    assert body["status"] == "ok" and body["sending_paused"] is True
    settings.TELEGRAM_BOT_TOKEN = "1:x"
    assert client.get("/health").json()["sending_paused"] is False


def test_admin_alert_reaches_each_admin_chat_once(telegram):
    admin_chat = make_chat(is_admin=True)
    make_chat(is_admin=False)
    assert enqueue_admin_alert("zero-results:7", "Keyword <rtx> found nothing for 24 h") == 1
    assert enqueue_admin_alert("zero-results:7", "again") == 0
    call_command("notify")
    assert [(m["chat_id"], m["text"]) for m in telegram.messages] == [
        (admin_chat.chat_id, "Keyword &lt;rtx&gt; found nothing for 24 h")
    ]


def test_notify_dry_run_prints_each_text_in_its_chats_language(telegram, capsys):
    german = make_notification()
    english = make_notification(chat=make_chat(language="en"))
    call_command("notify", "--dry-run")
    out = capsys.readouterr().out
    german_text = out.split(f"notification {german.pk}")[1].split("→")[0]
    english_text = out.split(f"notification {english.pk}")[1].split("→")[0]
    assert "Neue Anzeige" in german_text and "New ad" in english_text


def test_notify_dry_run_prints_each_message_text_by_default(telegram, capsys):
    n = make_notification()
    call_command("notify", "--dry-run")
    out = capsys.readouterr().out
    assert f"notification {n.pk}" in out and n.ad.title in out and n.ad.url in out
