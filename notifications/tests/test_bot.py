"""The bot, driven through the real Application against the fake Bot API (tests/bot_harness.py)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from notifications.bot import access, commands
from notifications.models import MUTED_FOREVER, Notification, Subscription, TelegramChat
from notifications.tests.conftest import ADMIN, ALLOWED
from tests.factories import make_chat, make_keyword, make_notification, make_subscription
from tracker.models import Heartbeat

# English texts; the German default is tested in notifications/tests/test_i18n.py.
pytestmark = pytest.mark.usefixtures("english")

STRANGER = 900
COMMANDS = [
    "/help",
    "/keywords",
    "/subscribe 1",
    "/unsubscribe 1",
    "/mute",
    "/mute 2h",
    "/unmute",
    "/status",
    "/stop",
    "/stats",
    "/health",
    "/add bike",
    "/nonsense",
    "hello",
]


def chat(chat_id):
    return TelegramChat.objects.get(chat_id=chat_id)


def buttons(markup):
    return [b["callback_data"] for row in markup["inline_keyboard"] for b in row]


# --- start-up -------------------------------------------------------------------------


def test_startup_deletes_webhook_sets_menus_and_seeds_admins(bot):
    assert bot.server.webhook_deletes >= 1
    assert (
        "stats" not in bot.server.commands["default"]
        and "keywords" in bot.server.commands["default"]
    )
    assert {"stats", "health"} <= set(bot.server.commands[f"chat:{ADMIN}"])
    admin = chat(ADMIN)
    assert admin.is_admin and admin.status == TelegramChat.Status.ACTIVE


def test_polling_writes_the_bot_heartbeat(bot):
    started = timezone.now()
    # A beat written after the test began: polling beats, not only the start-up.
    bot.wait(
        lambda: Heartbeat.objects.filter(name="bot", last_seen_at__gte=started).exists(),
        what="a heartbeat",
    )


# --- registration -----------------------------------------------------------------------


def test_allowed_chat_is_active_at_once(bot):
    reply = bot.reply(ALLOWED, "/start")
    assert "Welcome to Lago" in reply and "/keywords" in reply
    assert chat(ALLOWED).status == TelegramChat.Status.ACTIVE


def test_unknown_chat_becomes_pending_and_admins_get_an_approve_button(bot):
    reply = bot.reply(701, "/start", username="eve")
    assert "admin must approve" in reply
    assert chat(701).status == TelegramChat.Status.PENDING
    [request] = [m for m in bot.server.messages if m["chat_id"] == ADMIN]
    assert "701" in request["text"] and "@eve" in request["text"]
    assert buttons(request["reply_markup"]) == ["approve:701"]
    # Asking again neither changes anything nor pesters the admins.
    assert "waiting for an admin" in bot.reply(701, "/start")
    assert len([m for m in bot.server.messages if m["chat_id"] == ADMIN]) == 1


def test_admin_approves_with_the_button(bot):
    bot.send(702, "/start")
    answer = bot.press(ADMIN, "approve:702", message_id=77)
    assert answer["text"] == "Approved ✅"
    approved = chat(702)
    assert approved.status == TelegramChat.Status.ACTIVE
    welcome = approved.notifications.get()
    assert welcome.kind == Notification.Kind.WELCOME and "approved" in welcome.text
    [edit] = bot.server.edits
    assert (
        edit["method"] == "editMessageText"
        and edit["message_id"] == 77
        and "approved" in edit["text"]
    )
    assert bot.press(ADMIN, "approve:702")["text"].endswith("active already.")


def test_approve_model_method_queues_one_welcome(db):
    pending = make_chat(chat_id=703, status=TelegramChat.Status.PENDING)
    assert pending.approve() is True
    assert pending.approve() is False
    assert chat(703).status == TelegramChat.Status.ACTIVE
    assert pending.notifications.count() == 1


def test_non_admin_cannot_press_approve(bot):
    bot.send(ALLOWED, "/start")
    bot.send(704, "/start")
    answer = bot.press(ALLOWED, "approve:704")
    assert "admins only" in answer["text"] and answer["show_alert"]
    assert chat(704).status == TelegramChat.Status.PENDING


def test_open_registration_skips_approval(bot, settings):
    settings.TELEGRAM_OPEN_REGISTRATION = True
    assert "Welcome to Lago" in bot.reply(705, "/start")
    assert chat(705).status == TelegramChat.Status.ACTIVE


def test_blocked_chat_needs_an_admin_again_even_with_open_registration(bot, settings):
    settings.TELEGRAM_OPEN_REGISTRATION = True
    make_chat(chat_id=706, status=TelegramChat.Status.BLOCKED)
    assert "admin must approve" in bot.reply(706, "/start")
    assert chat(706).status == TelegramChat.Status.PENDING


# --- strangers and chats that are not active --------------------------------------------


@pytest.mark.parametrize("text", COMMANDS)
def test_stranger_gets_only_the_registration_reply(bot, text):
    keyword = make_keyword(pk=1)
    other = make_chat(chat_id=ALLOWED)
    make_subscription(other, keyword)
    assert bot.send(STRANGER, text) == [access.UNKNOWN_TEXT]
    assert not TelegramChat.objects.filter(chat_id=STRANGER).exists()
    assert Subscription.objects.count() == 1 and chat(ALLOWED).muted_until is None


@pytest.mark.parametrize(
    "status,expected",
    [
        (TelegramChat.Status.PENDING, access.PENDING_TEXT),
        (TelegramChat.Status.BLOCKED, "This chat is blocked"),
        (TelegramChat.Status.STOPPED, access.STOPPED_TEXT),
    ],
)
@pytest.mark.parametrize(
    "text", ["/keywords", "/subscribe 1", "/mute", "/status", "/stats", "/nonsense", "hi"]
)
def test_inactive_chat_gets_only_the_registration_reply(bot, status, expected, text):
    make_keyword(pk=1)
    make_chat(chat_id=710, status=status, is_admin=True)
    [reply] = bot.send(710, text)
    assert expected in reply
    assert (
        not Subscription.objects.exists()
        and chat(710).muted_until is None
        and chat(710).status == status
    )


@pytest.mark.parametrize("data", ["sub:1", "mutekw:1", "snooze:3600", "approve:1"])
def test_stranger_pressing_a_button_changes_nothing(bot, data):
    make_keyword(pk=1)
    answer = bot.press(STRANGER, data)
    assert answer["text"].startswith("👋 This is Lago") and answer["show_alert"]
    assert (
        not TelegramChat.objects.filter(chat_id=STRANGER).exists()
        and not Subscription.objects.exists()
    )


def test_group_messages_that_are_not_commands_get_no_reply_from_a_pending_group(bot):
    make_chat(chat_id=-720, status=TelegramChat.Status.PENDING)
    assert bot.send(-720, "just chatting") == []


# --- commands for active chats ----------------------------------------------------------


@pytest.fixture
def member(bot):
    """An active, non-admin chat."""
    return make_chat(chat_id=ALLOWED)


def test_help_lists_commands_and_admin_commands_only_for_admins(bot, member):
    assert "/subscribe" in bot.reply(ALLOWED, "/help") and "/stats" not in bot.reply(
        ALLOWED, "/help"
    )
    assert "/stats" in bot.reply(ADMIN, "/help")


def test_keywords_lists_active_keywords_with_buttons_escaped(bot, member):
    a = make_keyword(query="<b>rad</b>")
    b = make_keyword(query="sofa")
    make_keyword(query="hidden", is_active=False)
    make_subscription(member, b)
    bot.reply(ALLOWED, "/keywords")
    message = bot.server.messages[-1]
    assert "&lt;b&gt;rad&lt;/b&gt;" in message["text"] and "hidden" not in message["text"]
    assert buttons(message["reply_markup"]) == [f"sub:{a.pk}", f"unsub:{b.pk}"]


def test_keywords_when_there_are_none(bot, member):
    assert "no active keywords" in bot.reply(ALLOWED, "/keywords")


def test_subscribe_and_unsubscribe(bot, member):
    keyword = make_keyword(name="Rennrad")
    assert "Subscribed to" in bot.reply(ALLOWED, f"/subscribe {keyword.pk}")
    assert Subscription.objects.filter(chat=member, keyword=keyword).exists()
    assert "already" in bot.reply(ALLOWED, f"/subscribe {keyword.pk}")
    assert "Unsubscribed" in bot.reply(ALLOWED, f"/unsubscribe {keyword.pk}")
    assert not Subscription.objects.exists()
    assert "do not follow" in bot.reply(ALLOWED, f"/unsubscribe {keyword.pk}")


@pytest.mark.parametrize(
    "text,expected",
    [
        ("/subscribe", "Which keyword?"),
        ("/subscribe abc", "no active keyword “abc”"),
        ("/subscribe 999", "no active keyword #999"),
        ("/unsubscribe", "Which keyword?"),
        ("/unsubscribe x1", "no active keyword “x1”"),
        ("/unsubscribe 999", "no active keyword #999"),
    ],
)
def test_subscribe_bad_input(bot, member, text, expected):
    assert expected in bot.reply(ALLOWED, text)
    assert not Subscription.objects.exists()


def test_subscribe_to_an_inactive_keyword_is_refused(bot, member):
    keyword = make_keyword(is_active=False)
    assert f"no active keyword #{keyword.pk}" in bot.reply(ALLOWED, f"/subscribe {keyword.pk}")
    assert not Subscription.objects.exists()


def test_bad_id_is_escaped(bot, member):
    assert "&lt;i&gt;" in bot.reply(ALLOWED, "/subscribe <i>")


def test_subscribe_buttons_toggle_and_refresh_the_keyboard(bot, member):
    keyword = make_keyword()
    assert bot.press(ALLOWED, f"sub:{keyword.pk}", message_id=5)["text"].startswith("✅ Subscribed")
    assert Subscription.objects.filter(chat=member, keyword=keyword).exists()
    edit = bot.server.edits[-1]
    assert edit["method"] == "editMessageReplyMarkup" and buttons(edit["reply_markup"]) == [
        f"unsub:{keyword.pk}"
    ]
    bot.press(ALLOWED, f"unsub:{keyword.pk}", message_id=5)
    assert not Subscription.objects.exists()


def test_mute_until_unmute_and_for_a_duration(bot, member):
    assert "until you send /unmute" in bot.reply(ALLOWED, "/mute")
    assert chat(ALLOWED).muted_until == MUTED_FOREVER
    before = timezone.now()
    assert "Muted for 2 h" in bot.reply(ALLOWED, "/mute 2h")
    until = chat(ALLOWED).muted_until
    assert before + timedelta(hours=2) <= until <= timezone.now() + timedelta(hours=2)
    assert "Muted for 1 day" in bot.reply(ALLOWED, "/mute 1d")


@pytest.mark.parametrize("text", ["/mute soon", "/mute 2x", "/mute 0h", "/mute 400d"])
def test_mute_bad_duration(bot, member, text):
    reply = bot.reply(ALLOWED, text)
    assert "30m, 2h, 1d, 1w" in reply or "longer than a year" in reply
    assert chat(ALLOWED).muted_until is None


def test_unmute_clears_chat_and_keyword_mutes(bot, member):
    sub = make_subscription(member, muted_until=MUTED_FOREVER)
    member.mute(timezone.now() + timedelta(hours=1))
    assert "on again (1 muted keyword on again)" in bot.reply(ALLOWED, "/unmute")
    sub.refresh_from_db()
    assert chat(ALLOWED).muted_until is None and sub.muted_until is None
    assert "Nothing was muted" in bot.reply(ALLOWED, "/unmute")


def test_status_shows_only_this_chats_data(bot, member):
    mine = make_keyword(name="mine")
    theirs = make_keyword(name="theirs-secret")
    make_subscription(member, mine)
    other = make_chat(chat_id=601)
    make_subscription(other, theirs)
    make_notification(chat=member)
    make_notification(chat=other)
    sent = make_notification(chat=member, status=Notification.Status.SENT, sent_at=timezone.now())
    reply = bot.reply(ALLOWED, "/status")
    assert "mine" in reply and "theirs-secret" not in reply
    assert "Waiting to be sent: 1" in reply and sent.ad.title in reply


def test_stop_then_start_resumes(bot, member):
    make_notification(chat=member)
    assert "Send /start to resume" in bot.reply(ALLOWED, "/stop")
    assert chat(ALLOWED).status == TelegramChat.Status.STOPPED
    assert member.notifications.get().status == Notification.Status.CANCELLED
    assert bot.send(ALLOWED, "/keywords") == [access.STOPPED_TEXT]
    assert "Welcome back" in bot.reply(ALLOWED, "/start")
    assert chat(ALLOWED).status == TelegramChat.Status.ACTIVE


def test_group_commands_addressed_to_the_bot(bot):
    make_chat(chat_id=-740)
    assert "/subscribe" in bot.reply(-740, "/help@lago_test_bot")
    assert bot.send(-740, "chatter in the group") == []


def test_unknown_command_and_plain_text(bot, member):
    assert bot.reply(ALLOWED, "/frobnicate now") == "Unknown command /frobnicate. Try /help."
    assert "only understand commands" in bot.reply(ALLOWED, "hello")


def test_add_is_off_by_default(bot, member):
    assert "turned off" in bot.reply(ALLOWED, "/add rennrad")
    assert not make_keyword.__globals__["Keyword"].objects.filter(query="rennrad").exists()


def test_add_creates_an_inactive_keyword_and_alerts_admins(bot, member, settings):
    settings.TELEGRAM_USERS_MAY_ADD_KEYWORDS = True
    assert "Send /add" in bot.reply(ALLOWED, "/add")
    reply = bot.reply(ALLOWED, "/add rennrad <carbon>")
    assert "&lt;carbon&gt;" in reply and "admin must activate" in reply
    from tracker.models import Keyword

    keyword = Keyword.objects.get(query="rennrad <carbon>")
    assert not keyword.is_active
    assert (
        Notification.objects.get(chat__chat_id=ADMIN, kind=Notification.Kind.ALERT).alert_key
        == f"keyword-proposed:{keyword.pk}"
    )


# --- admin commands -----------------------------------------------------------------------


def test_admin_commands_for_admins_only(bot, member):
    assert bot.reply(ALLOWED, "/stats") == "/stats is for admins only. Try /help."
    assert bot.reply(ALLOWED, "/health") == "/health is for admins only. Try /help."
    stats = bot.reply(ADMIN, "/stats")
    assert "Lago stats" in stats and "Keywords: 0" in stats
    health = bot.reply(ADMIN, "/health")
    assert "scheduler_never_ran" in health and "Queue: 0 pending" in health


# --- notification buttons -------------------------------------------------------------------


def test_mute_keyword_button(bot, member):
    sub = make_subscription(member)
    answer = bot.press(ALLOWED, f"mutekw:{sub.keyword_id}")
    assert "muted until /unmute" in answer["text"]
    sub.refresh_from_db()
    assert sub.muted_until == MUTED_FOREVER
    assert "do not follow" in bot.press(ALLOWED, f"mutekw:{make_keyword().pk}")["text"]


def test_snooze_button_mutes_the_chat_for_an_hour(bot, member):
    assert "Snoozed for 1 h" in bot.press(ALLOWED, "snooze:3600")["text"]
    left = chat(ALLOWED).muted_until - timezone.now()
    assert timedelta(minutes=59) < left <= timedelta(hours=1)


def test_unknown_button_data(bot, member):
    assert "no longer valid" in bot.press(ALLOWED, "launch:1")["text"]


# --- chat lifecycle ---------------------------------------------------------------------------


def test_blocking_the_bot_blocks_the_chat(bot, member):
    make_notification(chat=member)
    bot.member(ALLOWED, "kicked")
    blocked = chat(ALLOWED)
    assert blocked.status == TelegramChat.Status.BLOCKED and "kicked" in blocked.status_reason
    assert member.notifications.get().status == Notification.Status.CANCELLED
    assert bot.server.replies(ALLOWED) == []


def test_leaving_a_group_blocks_it(bot):
    make_chat(chat_id=-730)
    bot.member(-730, "left")
    assert chat(-730).status == TelegramChat.Status.BLOCKED


def test_group_migration_keeps_subscriptions_under_the_new_id(bot):
    group = make_chat(chat_id=-731)
    sub = make_subscription(group)
    bot.migrate(-731, -100731)
    assert not TelegramChat.objects.filter(chat_id=-731).exists()
    assert Subscription.objects.get(pk=sub.pk).chat.chat_id == -100731
    assert bot.reply(-100731, "/status").count("#") == 1


def test_sent_notification_carries_buttons_that_work(bot, member):
    from notifications.sender import process_queue

    sub = make_subscription(member)
    make_notification(chat=member, keyword=sub.keyword)
    make_notification(chat=member, keyword=None)
    assert process_queue() == 2
    with_keyword, without = bot.server.messages[-2:]
    assert buttons(with_keyword["reply_markup"])[:2] == [f"mutekw:{sub.keyword_id}", "snooze:3600"]
    assert buttons(without["reply_markup"]) == ["snooze:3600"]
    bot.press(
        ALLOWED, buttons(with_keyword["reply_markup"])[0], message_id=with_keyword["message_id"]
    )
    sub.refresh_from_db()
    assert sub.muted_until == MUTED_FOREVER


def test_handler_errors_are_logged_with_the_update_and_the_chat_is_told(
    bot, member, monkeypatch, caplog
):
    class Broken:
        class objects:
            @staticmethod
            def filter(**kwargs):
                raise RuntimeError("database on fire")

    monkeypatch.setattr(commands, "Keyword", Broken)
    [reply] = bot.send(ALLOWED, "/keywords")
    assert "Something went wrong" in reply
    [record] = [
        r
        for r in caplog.records
        if r.name == "notifications.bot.handlers" and r.levelname == "ERROR"
    ]
    assert (
        "'keywords'" in record.getMessage()
        and f"chat {ALLOWED}" in record.getMessage()
        and "database on fire" in record.getMessage()
    )


def test_gate_fails_closed(bot, member, monkeypatch, caplog):
    def broken(ref, command):
        raise RuntimeError("gate broke")

    monkeypatch.setattr(access, "access", broken)
    [reply] = bot.send(ALLOWED, "/mute")
    assert "Something went wrong" in reply
    assert chat(ALLOWED).muted_until is None
    assert any("gate broke" in r.getMessage() for r in caplog.records if r.levelname == "ERROR")


@pytest.mark.parametrize("text", ["/stats.", "/stats,", "/health!", "/stats-x", "/STATS:"])
def test_admin_commands_with_trailing_punctuation_are_refused_too(bot, member, text):
    # Telegram's bot_command entity ends before the punctuation: PTB's CommandHandler runs /stats.
    name = "health" if "health" in text else "stats"
    assert bot.reply(ALLOWED, text) == f"/{name} is for admins only. Try /help."


@pytest.mark.parametrize("text", ["/stats", "/health", "/stats."])
def test_editing_a_message_into_an_admin_command_is_refused(bot, member, text):
    name = "health" if "health" in text else "stats"
    assert bot.reply(ALLOWED, text, edited=True) == f"/{name} is for admins only. Try /help."
    assert "Lago stats" in bot.reply(ADMIN, "/stats", edited=True)


def test_subscribe_by_a_unique_prefix_of_name_or_query(bot, member):
    carbon = make_keyword(name="rennrad carbon · bis € 2.000", query="rennrad carbon")
    make_keyword(name="Wohnung", query="mietwohnung wien")
    assert f"Subscribed to #{carbon.pk}" in bot.reply(ALLOWED, "/subscribe Rennrad")
    assert Subscription.objects.filter(chat=member, keyword=carbon).exists()
    make_keyword(name="Rennrad Alu", query="rennrad alu")
    assert "Subscribed to" in bot.reply(ALLOWED, "/subscribe MIETWOHN")
    assert Subscription.objects.filter(chat=member).count() == 2


def test_an_ambiguous_prefix_lists_the_candidates(bot, member):
    carbon = make_keyword(name="Rennrad Carbon")
    alu = make_keyword(name="Rennrad Alu")
    make_keyword(name="Rennrad paused", is_active=False)
    reply = bot.reply(ALLOWED, "/subscribe rennrad")
    assert "Several keywords start with “rennrad”" in reply
    assert f"#{carbon.pk} Rennrad Carbon\n#{alu.pk} Rennrad Alu" in reply
    assert "paused" not in reply
    assert not Subscription.objects.exists()
