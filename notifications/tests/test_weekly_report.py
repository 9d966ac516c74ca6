"""The weekly market report: queued at the chat's hour in its time zone, sent once as a photo of
the chart with a caption in the chat's language, held by quiet hours, switched by /report."""

import base64
import struct
from datetime import UTC, datetime, time, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.db import IntegrityError

from notifications import telegram as telegram_api
from notifications.messages import CAPTION_LIMIT
from notifications.models import Notification, TelegramChat
from notifications.reports import (
    caption,
    queue_chat_reports,
    queue_due_reports,
    render_report,
    report_key,
)
from notifications.sender import process_queue
from notifications.tests.conftest import ALLOWED
from scraping.tick import tick
from tests.factories import (
    make_ad,
    make_chat,
    make_destination,
    make_keyword,
    make_notification,
    make_subscription,
)
from tracker.market_report import Deal, MarketReport, WeekPoint
from tracker.models import KeywordAd
from tracker.report_chart import HEIGHT, WIDTH

pytestmark = pytest.mark.django_db
VIENNA = ZoneInfo("Europe/Vienna")
# Monday 1 June 2026; the chats' report is due on Mondays at 08:00 Vienna time.
MONDAY = datetime(2026, 6, 1, tzinfo=VIENNA)


def local(day_offset, hour, minute=0):
    return (MONDAY + timedelta(days=day_offset)).replace(hour=hour, minute=minute)


@pytest.fixture(autouse=True)
def vienna(settings):
    settings.TIME_ZONE = "Europe/Vienna"


@pytest.fixture
def market():
    """A keyword with live ads at 100, 200 and 300 and one deal, not due for scraping."""
    kw = make_keyword(name="Rennrad", next_run_at=datetime(2099, 1, 1, tzinfo=UTC))
    seen = local(-30, 12)
    for price, label, percent in [(100, "deal", "-40.0"), (200, "", None), (300, "", None)]:
        ad = make_ad(price=Decimal(price), first_seen_at=seen, title=f"Rad um {price}")
        KeywordAd.objects.create(
            keyword=kw,
            ad=ad,
            found_at=seen,
            price=Decimal(price),
            price_label=label,
            price_percent=None if percent is None else Decimal(percent),
        )
    return kw


def png_size(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def run_tick(time_machine, moment):
    time_machine.move_to(moment, tick=False)
    tick()


# --- the schedule --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "after,expected",
    [
        (local(-1, 12), local(0, 8)),  # Sunday noon: tomorrow at 8
        (local(0, 7, 59), local(0, 8)),
        (local(0, 8), local(7, 8)),  # the moment itself is past: next week
        (local(2, 9), local(7, 8)),
    ],
)
def test_next_report_is_the_chats_weekday_and_hour_after_now(after, expected):
    chat = TelegramChat(report_weekday=0, report_hour=8)
    assert chat.next_report_at(after.astimezone(UTC)) == expected.astimezone(UTC)


def test_next_report_keeps_the_wall_clock_hour_over_dst_and_follows_the_zone():
    chat = TelegramChat(report_weekday=6, report_hour=8)  # Sundays
    # 29 March 2026 is the first day of summer time in Vienna: 08:00 CEST is 06:00 UTC.
    after = datetime(2026, 3, 28, 12, tzinfo=UTC)
    assert chat.next_report_at(after) == datetime(2026, 3, 29, 6, tzinfo=UTC)
    chat.time_zone = "America/New_York"  # 08:00 EDT is 12:00 UTC
    assert chat.next_report_at(after) == datetime(2026, 3, 29, 12, tzinfo=UTC)


# --- through the tick and the fake Bot API ---------------------------------------------------


@pytest.mark.parametrize(
    "language,heading,median",
    [
        ("en", "Weekly report: Rennrad", "Median price: € 200"),
        ("de", "Wochenbericht: Rennrad", "Medianpreis: € 200"),
    ],
)
def test_report_arrives_at_the_chats_hour_as_a_photo_once(
    telegram, time_machine, market, language, heading, median
):
    chat = make_chat(language=language)
    make_subscription(chat=chat, keyword=market)
    run_tick(time_machine, local(-1, 12))  # Sunday: the chat gets its first report moment
    run_tick(time_machine, local(0, 7, 59))
    assert telegram.messages == []
    run_tick(time_machine, local(0, 8))
    (message,) = telegram.messages
    assert message["method"] == "sendPhoto" and message["chat_id"] == chat.chat_id
    assert png_size(message["photo_bytes"]) == (WIDTH, HEIGHT)
    assert heading in message["caption"] and median in message["caption"]
    deal = market.matches.get(price_label="deal").ad
    assert f'<a href="{deal.url}">' in message["caption"]
    for moment in (local(0, 8, 1), local(0, 9), local(3, 8)):
        run_tick(time_machine, moment)
    assert len(telegram.messages) == 1
    row = Notification.objects.get(kind=Notification.Kind.REPORT)
    assert row.status == Notification.Status.SENT
    assert row.alert_key == report_key(market.pk, "2026-W23")
    run_tick(time_machine, local(7, 8))  # a week later: the next one
    assert len(telegram.photos(chat.chat_id)) == 2


def test_a_destination_gets_the_report_with_the_chart_attached(
    apprise_endpoint, time_machine, market
):
    family = make_destination(
        title="family", apprise_url=apprise_endpoint.url("family"), language="de"
    )
    make_subscription(chat=family, keyword=market)
    run_tick(time_machine, local(-1, 12))  # the destination's first report moment
    time_machine.move_to(local(0, 8), tick=False)
    make_notification(chat=family, ad=make_ad(title="Puch Rennrad"), keyword=market)
    assert queue_due_reports() == 1
    process_queue()  # both rows due: the new ad alone first, the report with its chart next
    time_machine.move_to(local(0, 8, 2), tick=False)  # the next pace slot
    process_queue()
    new_ad, report = apprise_endpoint.posts
    assert new_ad["title"].startswith("🆕 Neue Anzeige") and not new_ad.get("attachments")
    assert report["title"] == "📊 Wochenbericht: Rennrad"
    assert "Medianpreis: € 200" in report["message"] and "<b>" not in report["message"]
    (chart,) = report["attachments"]
    assert chart["mimetype"] == "image/png"
    assert png_size(base64.b64decode(chart["base64"])) == (WIDTH, HEIGHT)
    for moment in (local(0, 9), local(3, 8)):
        run_tick(time_machine, moment)
    assert len(apprise_endpoint.posts) == 2


def test_quiet_hours_hold_the_report(telegram, time_machine, market):
    chat = make_chat(quiet_start=time(7), quiet_end=time(9))
    make_subscription(chat=chat, keyword=market)
    run_tick(time_machine, local(-1, 12))
    run_tick(time_machine, local(0, 8))
    assert telegram.messages == []
    run_tick(time_machine, local(0, 9))
    assert len(telegram.photos(chat.chat_id)) == 1


def test_one_row_per_subscription_that_wants_reports(time_machine, market):
    chat = make_chat()
    make_subscription(chat=chat, keyword=market)
    make_subscription(chat=chat, keyword=make_keyword(), report_enabled=False)
    paused = make_keyword(is_active=False)
    make_subscription(chat=chat, keyword=paused)
    time_machine.move_to(local(-1, 12), tick=False)
    queue_due_reports()
    time_machine.move_to(local(0, 8), tick=False)
    assert queue_due_reports() == 1
    assert list(Notification.objects.values_list("keyword_id", flat=True)) == [market.pk]


def test_a_chat_is_queued_once_even_by_two_ticks(time_machine, market):
    chat = make_chat(report_next_at=local(0, 8))
    make_subscription(chat=chat, keyword=market)
    time_machine.move_to(local(0, 8), tick=False)
    stale = TelegramChat.objects.get(pk=chat.pk)  # what a second tick read before the first wrote
    assert queue_due_reports() == 1
    assert queue_chat_reports(stale, stale.report_next_at) == 0
    assert Notification.objects.count() == 1
    # And the database refuses a second row of the same week.
    with pytest.raises(IntegrityError):
        Notification.objects.create(
            chat=chat,
            keyword=market,
            kind=Notification.Kind.REPORT,
            alert_key=report_key(market.pk, "2026-W23"),
        )


def test_after_downtime_only_this_weeks_report_is_queued(time_machine, market):
    chat = make_chat(report_next_at=local(-21, 8))
    make_subscription(chat=chat, keyword=market)
    time_machine.move_to(local(0, 10), tick=False)
    assert queue_due_reports() == 1
    chat.refresh_from_db()
    assert chat.report_next_at == local(7, 8).astimezone(UTC)


def test_report_of_a_deleted_keyword_is_dead_not_retried(telegram, time_machine, market):
    chat = make_chat(report_next_at=local(0, 8))
    make_subscription(chat=chat, keyword=market)
    time_machine.move_to(local(0, 8), tick=False)
    queue_due_reports()
    market.delete()
    process_queue()
    assert telegram.messages == []
    assert Notification.objects.get(chat=chat).status == Notification.Status.DEAD


def test_the_chats_of_a_keyword_share_one_drawing(
    telegram, time_machine, market, django_assert_num_queries
):
    chats = [make_chat(report_next_at=local(0, 8)) for _ in range(2)]
    for chat in chats:
        make_subscription(chat=chat, keyword=market)
    time_machine.move_to(local(0, 8), tick=False)
    queue_due_reports()
    rows = Notification.objects.load_for_sending(Notification.objects.values_list("pk", flat=True))
    first, second = rows.values()
    drawn = render_report(first)
    with django_assert_num_queries(0):
        again = render_report(second)
    assert again.photo_bytes == drawn.photo_bytes and again.html == drawn.html


def test_a_report_goes_as_its_own_photo_beside_a_digest(telegram, time_machine, market, settings):
    settings.NOTIFY_DIGEST_THRESHOLD = 3
    chat = make_chat(report_next_at=local(0, 8))
    make_subscription(chat=chat, keyword=market)
    time_machine.move_to(local(0, 8), tick=False)
    for _ in range(5):
        make_notification(chat=chat, keyword=market)
    queue_due_reports()
    process_queue()
    process_queue()
    methods = sorted(m["method"] for m in telegram.messages)
    assert methods == ["sendMessage", "sendPhoto"]
    assert not Notification.objects.pending().exists()


# --- the caption ------------------------------------------------------------------------------


def long_report(title_length):
    now = datetime(2026, 6, 1, 8, tzinfo=UTC)
    weeks = [WeekPoint(now - timedelta(weeks=11 - i), 3, Decimal(1000 + i)) for i in range(12)]
    deals = [
        Deal(
            "<Rad> " + "x" * title_length,
            f"https://x.test/{i}?a=1&b=2",
            Decimal(800),
            Decimal(-27),
            Decimal(1100),
        )
        for i in range(3)
    ]
    return MarketReport(1, "Rennrad " + "y" * 200, now, weeks, 12, 7, 9.4, deals)


@pytest.mark.usefixtures("english")
def test_caption_fits_telegrams_limit_and_escapes_html():
    html, plain = caption(long_report(1000))
    assert len(html) <= CAPTION_LIMIT and len(plain) <= CAPTION_LIMIT
    assert "&lt;Rad&gt;" in html and 'href="https://x.test/0?a=1&amp;b=2"' in html
    assert "Median price: € 1.011 (4 weeks ago: € 1.007)" in html
    assert "This week: 12 new, 7 gone" in html and "after 9 days" in html
    assert "27 % under the median" in html


def test_a_caption_too_long_for_all_deals_leaves_the_last_ones_out():
    html, plain = caption(long_report(1000), limit=450)
    assert len(html) <= 450 and len(plain) <= 450
    assert 0 < html.count("<a href=") < 3


def test_short_caption_keeps_whole_titles():
    html, _plain = caption(long_report(20))
    assert "<Rad> " + "x" * 20 in _plain and html.count("<a href=") == 3


# --- /report ---------------------------------------------------------------------------------


@pytest.fixture
def member(bot):
    return make_chat(chat_id=ALLOWED, language="en")


def test_report_command_switches_and_schedules(bot, member, market):
    other = make_keyword(name="Helm")
    make_subscription(chat=member, keyword=market)
    make_subscription(chat=member, keyword=other)
    assert "on for 2 of 2 keywords" in bot.reply(ALLOWED, "/report")
    assert "off for all" in bot.reply(ALLOWED, "/report off")
    assert not member.subscriptions.filter(report_enabled=True).exists()
    assert f"on for keyword {market.pk}" in bot.reply(ALLOWED, f"/report {market.pk} on")
    assert list(
        member.subscriptions.filter(report_enabled=True).values_list("keyword", flat=True)
    ) == [market.pk]
    assert "do not follow keyword 999999" in bot.reply(ALLOWED, "/report 999999 on")
    assert "Friday 18:00 (Europe/Vienna)" in bot.reply(ALLOWED, "/report friday 18")
    member.refresh_from_db()
    assert (member.report_weekday, member.report_hour) == (4, 18)
    assert member.report_next_at.astimezone(VIENNA).weekday() == 4
    assert "0 to 23" in bot.reply(ALLOWED, "/report fr 24")
    assert "/report monday 8" in bot.reply(ALLOWED, "/report sometimes")
    assert "/report on|off" in bot.reply(ALLOWED, "/help")


def test_photo_bytes_must_be_bytes_never_a_path(telegram):
    with pytest.raises(TypeError):
        telegram_api.send_message(1, "x", photo_bytes="/etc/passwd")
    assert telegram.messages == []


def test_admin_moves_the_next_report_and_refuses_hour_24(admin_client, time_machine):
    from notifications.tests.test_quiet_hours import change_chat

    time_machine.move_to(local(-1, 12), tick=False)
    chat = make_chat(report_next_at=local(0, 8))
    assert change_chat(admin_client, chat, report_hour=24).status_code == 200  # form with errors
    chat.refresh_from_db()
    assert chat.report_hour == 8
    assert change_chat(admin_client, chat, report_weekday=4, report_hour=18).status_code == 302
    chat.refresh_from_db()
    assert chat.report_next_at == local(4, 18).astimezone(UTC)
