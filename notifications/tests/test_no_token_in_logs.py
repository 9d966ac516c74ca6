"""The bot token is in every Bot API URL; no log record may contain it, at any level."""

import logging
import traceback
from datetime import timedelta

import pytest
from django.utils import timezone

from notifications import sender
from notifications.sender import process_queue
from tests.factories import make_ad, make_chat, make_notification
from tests.fakes.telegram import FakeTelegram

pytestmark = pytest.mark.django_db

TOKEN = "555000111:AAH-Recognisable_SecretTokenXYZ123456"


@pytest.fixture
def secret_server(settings):
    server = FakeTelegram(token=TOKEN).start()
    settings.TELEGRAM_BOT_TOKEN = TOKEN
    settings.TELEGRAM_API_BASE_URL = server.base_url
    settings.TELEGRAM_TIMEOUT_S = 0.5
    sender.reset_state()
    yield server
    server.stop()
    sender.reset_state()


def rendered(record):
    parts = [record.getMessage(), record.exc_text or "", record.stack_info or ""]
    if record.exc_info:
        parts.append("".join(traceback.format_exception(*record.exc_info)))
    return "\n".join(parts)


def only_capture_handlers(monkeypatch, caplog):
    """The console handler's filter redacts records in place; without it the records
    caplog sees prove that redaction happens for *every* handler, not just ours."""
    root = logging.getLogger()
    monkeypatch.setattr(
        root, "handlers", [h for h in root.handlers if isinstance(h, type(caplog.handler))]
    )


def test_no_record_contains_the_token_on_any_path(secret_server, caplog, time_machine, monkeypatch):
    only_capture_handlers(monkeypatch, caplog)
    for name in ("", "httpx", "httpcore", "telegram", "notifications", "tracker"):
        caplog.set_level(logging.DEBUG, logger=name)
    time_machine.move_to(timezone.now(), tick=False)
    chat_gone, group = make_chat(), make_chat(chat_id=-77)
    secret_server.forbid(chat_gone.chat_id)
    secret_server.migrate(-77, -10077)
    make_notification(chat=chat_gone)
    make_notification(chat=group)
    make_notification(ad=make_ad(image_url="https://img.example/x.jpg"))
    secret_server.fail_photo(times=1)
    make_notification()
    process_queue()  # success, photo fallback, 403, migration

    steps = [
        lambda: secret_server.fail(500, times=1),
        lambda: secret_server.fail(
            429, "Too Many Requests: retry after 1", parameters={"retry_after": 1}
        ),
        lambda: secret_server.hang(seconds=2),
        lambda: secret_server.parse_error(times=2),
        lambda: setattr(secret_server, "down", True),
    ]
    for arrange in steps:
        make_notification()
        arrange()
        sender.pacer().chat_free_at.clear()
        process_queue()
        time_machine.shift(timedelta(minutes=1))
    secret_server.down = False
    time_machine.shift(timedelta(hours=1))
    process_queue()

    assert any(r.name.startswith("httpx") for r in caplog.records), (
        "httpx request logs were not captured"
    )
    assert any("[redacted]" in r.getMessage() for r in caplog.records)
    leaks = [rendered(r) for r in caplog.records if TOKEN in rendered(r)]
    assert leaks == []
    # A secret's distinctive halves must not leak either.
    assert not [r for r in caplog.records if "SecretTokenXYZ" in rendered(r)]
