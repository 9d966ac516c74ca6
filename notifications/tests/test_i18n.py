"""German by default, English for chats whose Telegram language is English (issue 18).

Messages go through the sender and the fake Bot API; bot replies through the real
Application (tests/bot_harness.py); the chat's language comes from Telegram's language_code.
"""

from decimal import Decimal

import pytest
from django.utils import translation

from notifications.bot import commands
from notifications.bot.replies import ChatRef
from notifications.models import Notification, TelegramChat
from notifications.models.chats import chat_language
from notifications.sender import process_queue
from notifications.tests.conftest import ALLOWED
from tests.factories import make_ad, make_chat, make_keyword, make_notification

pytestmark = pytest.mark.django_db


def new_ad_message(telegram, chat):
    keyword = make_keyword(name="fahrrad")
    ad = make_ad(title="Rennrad Carbon", price=Decimal("673.59"), location="Wien")
    make_notification(chat=chat, ad=ad, keyword=keyword, price=ad.price)
    assert process_queue() == 1
    return telegram.texts(chat.chat_id)[-1]


def test_new_ad_message_is_german_by_default_with_the_willhaben_price(telegram):
    text = new_ad_message(telegram, make_chat())
    assert text.startswith("🆕 Neue Anzeige")
    assert "€ 673,59" in text and "Anzeige öffnen" in text
    assert "New ad" not in text and "673.59" not in text


def test_new_ad_message_is_english_for_a_chat_registered_in_english(bot, telegram):
    bot.send(ALLOWED, "/start", language_code="en")
    chat = TelegramChat.objects.get(chat_id=ALLOWED)
    assert chat.language == "en"
    text = new_ad_message(telegram, chat)
    assert text.startswith("🆕 New ad") and "€ 673,59" in text and "Open ad" in text


def test_price_drop_and_buttons_follow_the_chat_language(telegram):
    for language, drop, button in [
        ("de", "📉 Preis gesenkt", "Suchbegriff stummschalten"),
        ("en", "📉 Price drop", "Mute this keyword"),
    ]:
        chat = make_chat(language=language)
        ad = make_ad(price=Decimal("90"))
        make_notification(
            chat=chat,
            ad=ad,
            keyword=make_keyword(),
            kind=Notification.Kind.PRICE_DROP,
            price=ad.price,
            old_price=100,
        )
        assert process_queue() == 1
        message = telegram.messages[-1]
        assert message["text"].startswith(drop)
        assert button in str(message["reply_markup"])


def test_help_is_german_by_default_and_english_for_an_english_chat(bot):
    welcome = bot.reply(ALLOWED, "/start")
    assert welcome.startswith("✅ Willkommen bei Lago!") and "Lago-Befehle" in welcome
    help_de = bot.reply(ALLOWED, "/help")
    assert "<b>Lago-Befehle</b>" in help_de and "einem Suchbegriff folgen" in help_de
    # The next message says the sender's Telegram is English: the chat follows.
    help_en = bot.reply(ALLOWED, "/help", language_code="en-GB")
    assert "<b>Lago commands</b>" in help_en and "follow a keyword" in help_en
    assert TelegramChat.objects.get(chat_id=ALLOWED).language == "en"
    # A message without a language_code keeps the stored language.
    assert "<b>Lago commands</b>" in bot.reply(ALLOWED, "/help")


def test_errors_answered_on_the_loop_follow_the_senders_language(bot):
    bot.send(ALLOWED, "/start")
    assert bot.reply(ALLOWED, "/nonsense") == "Unbekannter Befehl /nonsense. Versuch es mit /help."
    assert (
        bot.reply(ALLOWED, "/nonsense", language_code="en")
        == "Unknown command /nonsense. Try /help."
    )


@pytest.mark.parametrize(
    "code, expected",
    [
        ("en", "en"),
        ("en-US", "en"),
        ("de", "de"),
        ("de-AT", "de"),
        ("fr", "de"),
        (None, "de"),
        ("", "de"),
    ],
)
def test_chat_language_from_telegrams_language_code(code, expected):
    """Always one of LANGUAGES, the choices of TelegramChat.language ("de-at" was stored before)."""
    assert chat_language(code) == expected


def test_chat_language_falls_back_to_the_site_language_in_english(settings):
    settings.LANGUAGE_CODE = "en-us"
    assert [chat_language(code) for code in ("fr", None, "de-CH")] == ["en", "en", "de"]


def test_the_bot_stores_only_a_language_lago_speaks(bot):
    bot.send(ALLOWED, "/start", language_code="de-AT")
    assert TelegramChat.objects.get(chat_id=ALLOWED).language == "de"
    bot.send(ALLOWED, "/help", language_code="pt-BR")  # no catalogue: the site's language
    chat = TelegramChat.objects.get(chat_id=ALLOWED)
    assert chat.language == "de"
    chat.full_clean()


def test_de_at_falls_back_to_the_de_catalogue():
    with translation.override("de-at"):
        assert translation.gettext("New ad") == "Neue Anzeige"
    with translation.override("en"):
        assert translation.gettext("New ad") == "New ad"


# --- digest and welcome ---------------------------------------------------------------


def test_digest_header_names_its_keywords(telegram, settings):
    settings.NOTIFY_DIGEST_THRESHOLD = 2
    german, english = make_chat(), make_chat(language="en")
    bike, ski = make_keyword(name="fahrrad"), make_keyword(name="ski")
    for chat in (german, english):
        for keyword in (bike, ski, bike):
            make_notification(chat=chat, keyword=keyword)
    assert process_queue() == 6
    assert telegram.texts(german.chat_id)[0].startswith(
        "<b>📬 3 neue Anzeigen für fahrrad, ski</b>\n"
    )
    assert telegram.texts(english.chat_id)[0].startswith("<b>📬 3 new ads for fahrrad, ski</b>\n")


def test_welcome_has_its_own_kind_and_is_rendered_in_the_chats_language(telegram):
    chats = [
        make_chat(status=TelegramChat.Status.PENDING),
        make_chat(status=TelegramChat.Status.PENDING, language="en"),
    ]
    for chat in chats:
        assert chat.approve()
    welcomes = Notification.objects.filter(kind=Notification.Kind.WELCOME)
    assert (
        welcomes.count() == 2
        and not Notification.objects.filter(kind=Notification.Kind.ALERT).exists()
    )
    assert process_queue() == 2
    assert telegram.texts(chats[0].chat_id)[0].startswith(
        "✅ Ein Admin hat diesen Chat freigegeben"
    )
    assert telegram.texts(chats[1].chat_id)[0].startswith("✅ An admin approved this chat")


def test_notification_admin_filters_by_the_welcome_kind(admin_client):
    chat = make_chat(status=TelegramChat.Status.PENDING)
    chat.approve()
    page = admin_client.get("/admin/notifications/notification/").content.decode()
    assert "Willkommen" in page and "Admin-Meldung" in page
    page = admin_client.get(
        "/admin/notifications/notification/?kind__exact=welcome"
    ).content.decode()
    assert "1 Benachrichtigung" in page


def test_status_lists_the_welcome_in_the_chats_language(telegram):
    chat = make_chat(status=TelegramChat.Status.PENDING)
    chat.approve()
    assert process_queue() == 1
    text = commands.status(ChatRef(chat.chat_id)).text
    assert "Nachrichten: 🔔 an" in text and "✅ Ein Admin hat diesen Chat freigegeben" in text
