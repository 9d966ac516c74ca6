"""Quiet hours (/quiet 22-7): messages due inside the window wait in the outbox and come after
it."""

from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from notifications.models import Notification, TelegramChat
from notifications.sender import process_queue
from notifications.tests.conftest import ALLOWED
from tests.factories import make_chat, make_notification

pytestmark = pytest.mark.django_db
VIENNA = ZoneInfo("Europe/Vienna")


@pytest.fixture(autouse=True)
def english(settings):
    settings.LANGUAGE_CODE = "en"
    settings.TIME_ZONE = "Europe/Vienna"


def local(*args, zone=VIENNA):
    return datetime(*args, tzinfo=zone)


def refreshed(n):
    n.refresh_from_db()
    return n


# --- the window ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "moment,expected_end",
    [
        (local(2026, 6, 10, 23, 0), local(2026, 6, 11, 7, 0)),  # before midnight: ends tomorrow
        (local(2026, 6, 11, 3, 0), local(2026, 6, 11, 7, 0)),  # after midnight: ends today
        (local(2026, 6, 10, 22, 0), local(2026, 6, 11, 7, 0)),  # the start is inside
        (local(2026, 6, 11, 7, 0), None),  # the end is not
        (local(2026, 6, 11, 12, 0), None),
        (local(2026, 6, 10, 21, 59), None),
    ],
)
def test_window_over_midnight(moment, expected_end):
    chat = TelegramChat(quiet_start=time(22), quiet_end=time(7))
    assert chat.quiet_ends_at(moment.astimezone(UTC)) == expected_end


def test_window_within_a_day():
    chat = TelegramChat(quiet_start=time(13), quiet_end=time(15, 30))
    assert chat.quiet_ends_at(local(2026, 6, 10, 14, 0)) == local(2026, 6, 10, 15, 30)
    assert chat.quiet_ends_at(local(2026, 6, 10, 16, 0)) is None
    assert chat.quiet_ends_at(local(2026, 6, 10, 12, 59)) is None


def test_window_keeps_wall_clock_hours_over_dst_changes():
    chat = TelegramChat(quiet_start=time(22), quiet_end=time(7))
    # Spring forward (29 March 2026, 02:00 → 03:00): 07:00 CEST is 05:00 UTC.
    assert chat.quiet_ends_at(local(2026, 3, 28, 23, 0)) == datetime(2026, 3, 29, 5, 0, tzinfo=UTC)
    # Fall back (25 October 2026, 03:00 → 02:00): 07:00 CET is 06:00 UTC.
    assert chat.quiet_ends_at(local(2026, 10, 24, 23, 0)) == datetime(
        2026, 10, 25, 6, 0, tzinfo=UTC
    )


def test_window_follows_the_chats_time_zone():
    chat = TelegramChat(quiet_start=time(22), quiet_end=time(7), time_zone="America/New_York")
    # 23:00 in Vienna is 17:00 in New York: not quiet there.
    assert chat.quiet_ends_at(local(2026, 6, 10, 23, 0)) is None
    ny = ZoneInfo("America/New_York")
    assert chat.quiet_ends_at(local(2026, 6, 10, 23, 0, zone=ny)) == local(
        2026, 6, 11, 7, 0, zone=ny
    )


@pytest.mark.parametrize(
    "fields,field",
    [
        ({"time_zone": "Mars/Olympus"}, "time_zone"),
        ({"time_zone": "../../etc/passwd"}, "time_zone"),
        ({"quiet_start": time(22), "quiet_end": time(22)}, "quiet_end"),
        ({"quiet_start": time(22)}, "__all__"),
    ],
)
def test_invalid_quiet_hours_do_not_validate(fields, field):
    with pytest.raises(ValidationError) as error:
        TelegramChat(chat_id=1, **fields).full_clean()
    assert field in error.value.message_dict


# --- holding and delivering --------------------------------------------------------------


def test_message_due_at_night_waits_and_comes_at_seven(telegram, time_machine):
    time_machine.move_to(local(2026, 6, 10, 23, 0), tick=False)
    chat = make_chat(quiet_start=time(22), quiet_end=time(7))
    n = make_notification(chat=chat)
    assert process_queue() == 0
    n = refreshed(n)
    assert (n.status, n.attempts, n.next_attempt_at) == (
        Notification.Status.PENDING,
        0,
        local(2026, 6, 11, 7, 0),
    )
    time_machine.move_to(local(2026, 6, 11, 6, 59), tick=False)
    assert process_queue() == 0
    time_machine.move_to(local(2026, 6, 11, 7, 0), tick=False)
    assert process_queue() == 1
    assert refreshed(n).status == Notification.Status.SENT
    assert len(telegram.messages) == 1


def test_many_held_messages_come_as_one_digest(telegram, time_machine, settings):
    settings.NOTIFY_DIGEST_THRESHOLD = 3
    time_machine.move_to(local(2026, 6, 10, 22, 30), tick=False)
    chat = make_chat(quiet_start=time(22), quiet_end=time(7))
    rows = []
    for _ in range(6):  # queued through the night, one every hour
        rows.append(make_notification(chat=chat))
        assert process_queue() == 0
        time_machine.shift(timedelta(hours=1))
    time_machine.move_to(local(2026, 6, 11, 7, 0, 30), tick=False)
    assert process_queue() == 6
    (message,) = telegram.messages
    assert "6 new notifications" in message["text"]
    assert all(refreshed(n).status == Notification.Status.SENT for n in rows)


def test_other_chats_and_admin_alerts_are_not_held(telegram, time_machine):
    time_machine.move_to(local(2026, 6, 10, 23, 0), tick=False)
    quiet = make_chat(quiet_start=time(22), quiet_end=time(7))
    make_notification(chat=make_chat())
    make_notification(
        chat=quiet,
        ad=None,
        kind=Notification.Kind.ALERT,
        alert_key="zero-results:1",
        text="Keyword 1: no ads",
    )
    assert process_queue() == 2
    assert Notification.objects.hold_for_quiet_hours(timezone.now()) == 0


def test_hold_leaves_rows_that_are_not_due_alone(time_machine):
    time_machine.move_to(local(2026, 6, 10, 23, 0), tick=False)
    chat = make_chat(quiet_start=time(22), quiet_end=time(7))
    later = timezone.now() + timedelta(minutes=4)  # a retry's backoff, or a sender's claim lease
    n = make_notification(chat=chat, next_attempt_at=later, attempts=2)
    assert Notification.objects.hold_for_quiet_hours(timezone.now()) == 0
    assert refreshed(n).next_attempt_at == later


# --- the bot -----------------------------------------------------------------------------


@pytest.fixture
def member(bot):
    return make_chat(chat_id=ALLOWED)


def test_quiet_sets_shows_and_turns_off(bot, member):
    assert "22:00–07:00 (Europe/Vienna)" in bot.reply(ALLOWED, "/quiet 22-7")
    member.refresh_from_db()
    assert (member.quiet_start, member.quiet_end, member.time_zone) == (time(22), time(7), "")
    assert "22:30–07:00 (Europe/Berlin)" in bot.reply(ALLOWED, "/quiet 22:30-07:00 Europe/Berlin")
    member.refresh_from_db()
    assert (member.quiet_start, member.quiet_end, member.time_zone) == (
        time(22, 30),
        time(7),
        "Europe/Berlin",
    )
    assert "22:30–07:00 (Europe/Berlin)" in bot.reply(ALLOWED, "/quiet")
    assert "off" in bot.reply(ALLOWED, "/quiet off")
    member.refresh_from_db()
    assert (member.quiet_start, member.quiet_end) == (None, None)
    assert "No quiet hours" in bot.reply(ALLOWED, "/quiet")


@pytest.mark.parametrize(
    "args,expected",
    [
        ("25-7", "not a time of day"),
        ("22:75-7", "not a time of day"),
        ("abc", "Send the quiet hours as /quiet 22-7"),
        ("22-7 Mars/Olympus", "Unknown time zone “Mars/Olympus”"),
        ("22-22", "must end at another time"),
        ("22-7 " + "x" * 200, "too long"),
    ],
)
def test_bad_quiet_input_is_explained_and_changes_nothing(bot, member, args, expected):
    assert expected in bot.reply(ALLOWED, f"/quiet {args}")
    member.refresh_from_db()
    assert (member.quiet_start, member.quiet_end, member.time_zone) == (None, None, "")


def test_quiet_off_releases_held_messages(bot, member):
    now = timezone.localtime()
    start, end = (
        (now - timedelta(hours=2)).time().replace(second=0, microsecond=0),
        (now + timedelta(hours=2)).time(),
    )
    member.set_quiet_hours(start, end.replace(second=0, microsecond=0))
    n = make_notification(chat=member)
    assert process_queue() == 0
    assert refreshed(n).next_attempt_at > timezone.now()
    assert "1 held message is on its way" in bot.reply(ALLOWED, "/quiet off")
    assert process_queue() == 1
    assert refreshed(n).status == Notification.Status.SENT


def test_help_lists_quiet(bot, member):
    assert "/quiet 22-7" in bot.reply(ALLOWED, "/help")


# --- the admin ---------------------------------------------------------------------------


def change_chat(client, chat, **fields):
    data = {
        "chat_id": chat.chat_id,
        "title": "",
        "username": "",
        "status": chat.status,
        "status_reason": "",
        "muted_until_0": "",
        "muted_until_1": "",
        "quiet_start": "",
        "quiet_end": "",
        "time_zone": "",
        "language": chat.language,
        "report_weekday": chat.report_weekday,
        "report_hour": chat.report_hour,
        "subscriptions-TOTAL_FORMS": "0",
        "subscriptions-INITIAL_FORMS": "0",
        "subscriptions-MIN_NUM_FORMS": "0",
        "subscriptions-MAX_NUM_FORMS": "1000",
    } | fields
    return client.post(reverse("admin:notifications_telegramchat_change", args=[chat.pk]), data)


def test_admin_validates_quiet_hours_and_time_zone(admin_client):
    chat = make_chat()
    response = change_chat(
        admin_client, chat, quiet_start="22:00", quiet_end="07:00", time_zone="Mars/Olympus"
    )
    assert (
        response.status_code == 200
        and "Unknown time zone “Mars/Olympus”" in response.content.decode()
    )
    response = change_chat(admin_client, chat, quiet_start="22:00")
    assert (
        response.status_code == 200
        and "Set both ends of the quiet hours, or neither." in response.content.decode()
    )
    chat.refresh_from_db()
    assert (chat.quiet_start, chat.time_zone) == (None, "")
    assert (
        change_chat(
            admin_client, chat, quiet_start="22:00", quiet_end="07:00", time_zone="Europe/Berlin"
        ).status_code
        == 302
    )
    chat.refresh_from_db()
    assert (chat.quiet_start, chat.quiet_end, chat.time_zone) == (
        time(22),
        time(7),
        "Europe/Berlin",
    )


def test_admin_turning_quiet_hours_off_releases_held_rows(admin_client, time_machine):
    time_machine.move_to(local(2026, 6, 10, 23, 0))
    chat = make_chat(quiet_start=time(22), quiet_end=time(7))
    n = make_notification(chat=chat)
    assert Notification.objects.hold_for_quiet_hours(timezone.now()) == 1
    assert change_chat(admin_client, chat).status_code == 302
    assert refreshed(n).next_attempt_at <= timezone.now()
