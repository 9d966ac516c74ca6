"""process_queue against the fake Bot API: delivery, failures, chat state, pacing of retries."""

from datetime import timedelta

import pytest
from django.utils import timezone

from notifications import sender
from notifications.models import BACKOFF, Notification, TelegramChat
from notifications.sender import process_queue
from tests.factories import make_ad, make_chat, make_notification, make_subscription

pytestmark = pytest.mark.django_db


def refreshed(n):
    n.refresh_from_db()
    return n


def test_due_row_is_sent_once_and_marked_sent(telegram):
    n = make_notification()
    assert process_queue() == 1
    assert process_queue() == 0
    n = refreshed(n)
    assert n.status == Notification.Status.SENT
    assert n.sent_at is not None
    assert n.attempts == 1
    assert n.message_id == telegram.messages[0]["message_id"]
    assert [m["chat_id"] for m in telegram.messages] == [n.chat.chat_id]


def test_two_consecutive_calls_in_one_process_both_send(telegram):
    make_notification()
    assert process_queue() == 1
    make_notification()
    assert process_queue() == 1
    assert len(telegram.messages) == 2


def test_rows_not_yet_due_wait(telegram):
    make_notification(next_attempt_at=timezone.now() + timedelta(minutes=5))
    assert process_queue() == 0
    assert telegram.messages == []


def test_batch_cap_limits_messages_per_call(telegram, settings):
    settings.NOTIFY_BATCH = 3
    for _ in range(5):
        make_notification()
    assert process_queue() == 3
    assert Notification.objects.pending().count() == 2


def test_photo_is_sent_with_caption(telegram):
    make_notification(ad=make_ad(image_url="https://img.example/1.jpg"))
    process_queue()
    (message,) = telegram.messages
    assert message["method"] == "sendPhoto"
    assert message["photo"] == "https://img.example/1.jpg"
    assert "<b>" in message["caption"]


def test_failing_photo_falls_back_to_text(telegram):
    telegram.fail_photo()
    n = make_notification(ad=make_ad(image_url="https://img.example/broken.jpg"))
    assert process_queue() == 1
    assert [m["method"] for m in telegram.messages] == ["sendMessage"]
    assert refreshed(n).status == Notification.Status.SENT


def test_html_parse_error_is_resent_once_as_plain_text(telegram):
    telegram.parse_error(times=1)
    n = make_notification(ad=make_ad(title="Lamp <vintage>"))
    assert process_queue() == 1
    (message,) = telegram.messages
    assert message["parse_mode"] is None
    assert "Lamp <vintage>" in message["text"]
    assert refreshed(n).status == Notification.Status.SENT


def test_parse_error_twice_is_permanent_for_the_row_only(telegram):
    telegram.parse_error(times=2)
    n = make_notification()
    process_queue()
    n = refreshed(n)
    assert n.status == Notification.Status.DEAD
    assert "parse" in n.last_error
    assert n.chat.status == TelegramChat.Status.ACTIVE


def test_forbidden_blocks_the_chat_and_cancels_its_queue(telegram):
    chat = make_chat()
    first = make_notification(chat=chat)
    later = make_notification(chat=chat, next_attempt_at=timezone.now() + timedelta(hours=1))
    other = make_notification()
    telegram.forbid(chat.chat_id)
    assert process_queue() == 1
    chat.refresh_from_db()
    assert chat.status == TelegramChat.Status.BLOCKED
    assert "blocked by the user" in chat.status_reason
    assert refreshed(first).status == Notification.Status.CANCELLED
    assert refreshed(later).status == Notification.Status.CANCELLED
    assert "blocked" in refreshed(later).last_error
    assert refreshed(other).status == Notification.Status.SENT


def test_chat_not_found_is_permanent_for_the_chat(telegram):
    chat = make_chat()
    n = make_notification(chat=chat)
    telegram.fail(400, "Bad Request: chat not found", chat_id=chat.chat_id, times=None)
    process_queue()
    assert refreshed(n).status == Notification.Status.CANCELLED
    chat.refresh_from_db()
    assert chat.status == TelegramChat.Status.BLOCKED


def test_migrated_group_gets_its_new_id_and_the_message(telegram):
    chat = make_chat(chat_id=-100)
    n = make_notification(chat=chat)
    telegram.migrate(-100, -1001234)
    assert process_queue() == 1
    chat.refresh_from_db()
    assert chat.chat_id == -1001234
    assert [m["chat_id"] for m in telegram.messages] == [-1001234]
    assert refreshed(n).attempts == 1


def test_retry_after_schedules_the_row_at_telegrams_delay(telegram):
    telegram.fail(429, "Too Many Requests: retry after 7", parameters={"retry_after": 7})
    n = make_notification()
    before = timezone.now()
    assert process_queue() == 0
    n = refreshed(n)
    assert n.status == Notification.Status.PENDING
    assert n.attempts == 0  # flood control is not the message's fault
    assert (
        before + timedelta(seconds=7) <= n.next_attempt_at <= timezone.now() + timedelta(seconds=7)
    )
    assert "Flood control" in n.last_error or "retry" in n.last_error.lower()


def test_timeout_is_transient_and_the_message_goes_next_time(telegram, time_machine):
    telegram.hang(seconds=5)
    n = make_notification()
    assert process_queue() == 0
    n = refreshed(n)
    assert n.status == Notification.Status.PENDING
    assert n.attempts == 1
    assert "TimedOut" in n.last_error
    time_machine.move_to(n.next_attempt_at)
    assert process_queue() == 1
    assert len(telegram.messages) == 1


def test_muted_chat_keeps_its_rows_pending_until_the_mute_ends(telegram, time_machine):
    time_machine.move_to(timezone.now(), tick=False)
    chat = make_chat(muted_until=timezone.now() + timedelta(hours=1))
    n = make_notification(chat=chat)
    assert process_queue() == 0
    assert refreshed(n).status == Notification.Status.PENDING
    time_machine.shift(timedelta(hours=1, seconds=1))
    assert process_queue() == 1


def test_muted_keyword_keeps_its_rows_pending(telegram):
    sub = make_subscription(muted_until=timezone.now() + timedelta(hours=1))
    n = make_notification(chat=sub.chat, keyword=sub.keyword)
    assert process_queue() == 0
    assert refreshed(n).status == Notification.Status.PENDING


@pytest.mark.parametrize(
    "status",
    [TelegramChat.Status.PENDING, TelegramChat.Status.BLOCKED, TelegramChat.Status.STOPPED],
)
def test_chats_not_active_receive_nothing(telegram, status):
    make_notification(chat=make_chat(status=status))
    assert process_queue() == 0
    assert telegram.messages == []


def test_a_round_cancels_only_the_pending_rows_of_blocked_and_stopped_chats(telegram):
    gone = [
        make_notification(chat=make_chat(status=s))
        for s in (TelegramChat.Status.BLOCKED, TelegramChat.Status.STOPPED)
    ]
    waiting = make_notification(chat=make_chat(status=TelegramChat.Status.PENDING))
    sent = make_notification(chat=gone[0].chat, status=Notification.Status.SENT)
    assert process_queue() == 0
    assert [refreshed(n).status for n in gone] == [Notification.Status.CANCELLED] * 2
    assert refreshed(gone[0]).last_error == "chat not active"
    assert refreshed(waiting).status == Notification.Status.PENDING
    assert refreshed(sent).status == Notification.Status.SENT


def test_sending_paused_without_token_keeps_rows_pending_and_warns(settings, caplog):
    settings.TELEGRAM_BOT_TOKEN = ""
    n = make_notification()
    assert process_queue() == 0
    assert refreshed(n).status == Notification.Status.PENDING
    warnings = [
        r for r in caplog.records if r.levelname == "WARNING" and "paused" in r.getMessage()
    ]
    assert len(warnings) == 1


def test_backlog_over_budget_becomes_one_digest(telegram, settings):
    settings.NOTIFY_DIGEST_THRESHOLD = 5
    chat = make_chat()
    rows = [make_notification(chat=chat) for _ in range(8)]
    assert process_queue() == 8
    (message,) = telegram.messages
    assert "8 neue Benachrichtigungen" in message["text"]
    assert all(refreshed(n).status == Notification.Status.SENT for n in rows)


def test_a_digest_leaves_out_the_rows_of_a_keyword_muted_in_its_chat(telegram, settings):
    settings.NOTIFY_DIGEST_THRESHOLD = 5
    muted = make_subscription(muted_until=timezone.now() + timedelta(hours=1))
    listed = [make_notification(chat=muted.chat) for _ in range(8)]
    held = [make_notification(chat=muted.chat, keyword=muted.keyword) for _ in range(3)]
    assert process_queue() == 8
    (message,) = telegram.messages
    assert "8 neue Benachrichtigungen" in message["text"]
    assert {refreshed(n).status for n in listed} == {Notification.Status.SENT}
    assert {refreshed(n).status for n in held} == {Notification.Status.PENDING}


def test_reset_state_forgets_pacing_as_a_new_process_would():
    sender.pacer().record(1)
    assert sender.pacer().delay(1) > 0  # the same chat just had a message
    sender.reset_state()
    assert sender.pacer().delay(1) == 0


def test_backoff_constant_is_the_documented_schedule():
    assert [d.total_seconds() / 60 for d in BACKOFF] == [1, 2, 4, 8, 16]
