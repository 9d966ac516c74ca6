"""`manage.py runbot` as a real process against the fake Bot API and the test database."""

import signal
import subprocess

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.utils import timezone

from notifications.models import TelegramChat
from tests.processes import PYTHON, child_env, wait_for
from tracker.models import Heartbeat


def test_runbot_without_a_token_fails(settings):
    settings.TELEGRAM_BOT_TOKEN = ""
    with pytest.raises(CommandError, match="TELEGRAM_BOT_TOKEN is not set"):
        call_command("runbot")


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.timeout(120)
def test_runbot_polls_answers_beats_and_stops_cleanly_on_sigterm(telegram):
    env = child_env(
        TELEGRAM_BOT_TOKEN=telegram.token,
        TELEGRAM_API_BASE_URL=telegram.base_url,
        TELEGRAM_POLL_TIMEOUT_S=1,
        TELEGRAM_ADMIN_CHAT_IDS="500",
        TELEGRAM_ALLOWED_CHAT_IDS="600,601",
        LOG_LEVEL="DEBUG",
    )
    started = timezone.now()
    proc = subprocess.Popen(
        [PYTHON, "manage.py", "runbot"],
        env=env,
        cwd=settings.BASE_DIR,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        wait_for(
            lambda: Heartbeat.objects.filter(name="bot").exists(),
            60,
            "the bot heartbeat",
            proc=proc,
        )
        assert telegram.webhook_deletes >= 1 and "keywords" in telegram.commands["default"]
        assert TelegramChat.objects.get(chat_id=500).is_admin
        telegram.push_message(600, "/start")
        wait_for(lambda: telegram.replies(600), 30, "the reply to /start", proc=proc)
        assert (
            "Willkommen bei Lago" in telegram.replies(600)[0]
        )  # German by default (LANGUAGE_CODE de-at)
        assert TelegramChat.objects.get(chat_id=600).status == TelegramChat.Status.ACTIVE
    finally:
        proc.send_signal(signal.SIGTERM)
        output = proc.communicate(timeout=30)[0]
    assert proc.returncode == 0, output[-3000:]
    assert "runbot: stopped" in output
    assert telegram.token not in output
    assert Heartbeat.objects.get(name="bot").last_seen_at >= started


@pytest.mark.django_db
@pytest.mark.timeout(60)
def test_runbot_with_a_revoked_token_exits_with_a_clear_message_without_the_token(
    telegram, capsys, caplog
):
    telegram.fail(401, "Unauthorized", methods=None, times=None)
    with pytest.raises(CommandError, match="Telegram rejected TELEGRAM_BOT_TOKEN") as error:
        call_command("runbot", verbosity=0)
    out = capsys.readouterr()
    everything = str(error.value) + out.out + out.err + caplog.text
    assert telegram.token not in everything and telegram.token.split(":")[1] not in everything
