"""The deal-only rule: a chat hears only of ads judged deals at least N % under the median, new
ads and price drops alike."""

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import translation

from notifications.messages import render
from notifications.models import Notification, Subscription
from notifications.sender import process_queue
from notifications.tests.conftest import ALLOWED
from scraping.ingest import ingest_page
from scraping.sources.base import ParsedAd
from tests.factories import (
    make_ad,
    make_chat,
    make_keyword,
    make_notification,
    make_subscription,
)
from tracker.price_judgement import Judgement, PriceLabel

pytestmark = pytest.mark.django_db

DEAL = Subscription.DropRule.DEAL


def judged(label, percent=None):
    percent = None if percent is None else Decimal(percent)
    return Judgement(label=label, n=14, median=Decimal("450"), percent=percent)


@pytest.mark.parametrize("kind", ["new", "price_drop"])
@pytest.mark.parametrize(
    "judgement,wanted",
    [
        (judged(PriceLabel.DEAL, "-20.0"), True),
        (judged(PriceLabel.DEAL, "-38.5"), True),
        (judged(PriceLabel.DEAL, "-19.9"), False),
        (judged(PriceLabel.FAIR, "-5"), False),
        (judged(PriceLabel.HIGH, "30"), False),
        # Far under the market but with bait words: not a deal, however low.
        (judged(PriceLabel.SUSPICIOUS, "-80"), False),
        (Judgement(label=PriceLabel.TOO_FEW, n=3), False),
        (judged(PriceLabel.DEAL), False),
        (None, False),
    ],
)
def test_a_deal_rule_wants_only_deals_deep_enough(kind, judgement, wanted):
    old_price = Decimal("500") if kind == "price_drop" else None
    got = Subscription.wants(DEAL, Decimal("20"), kind, Decimal("360"), old_price, judgement)
    assert got is wanted


def test_other_rules_ignore_the_judgement():
    no_deal = judged(PriceLabel.HIGH, "30")
    wants = Subscription.wants
    assert wants("every", None, "new", Decimal("900"), None, no_deal)
    assert wants("percent", Decimal("10"), "new", Decimal("900"), None, None)
    assert wants("below", Decimal("100"), "price_drop", Decimal("90"), Decimal("120"), no_deal)
    assert not wants("below", Decimal("100"), "price_drop", Decimal("110"), Decimal("120"))
    assert not wants("percent", Decimal("10"), "price_drop", Decimal("95"), Decimal("100"))


def test_a_deal_chat_gets_no_row_for_an_ad_not_judged_a_deal():
    keyword = make_keyword()
    every = make_subscription(keyword=keyword).chat
    make_subscription(keyword=keyword, drop_rule=DEAL, drop_value=Decimal("15"))
    ad = ParsedAd(
        external_id="77",
        title="Rennrad",
        price=Decimal("180"),
        url="https://www.willhaben.at/iad/object?adId=77",
    )
    ingest_page(keyword, [ad], source="willhaben")
    assert list(Notification.objects.values_list("chat_id", flat=True)) == [every.pk]


@pytest.mark.parametrize(
    "value,stored",
    [("20", Decimal("20")), ("12.34", Decimal("12.3")), ("0.95", Decimal("1")), ("99", "99")],
)
def test_deal_values_are_rounded_to_one_decimal(value, stored):
    assert Subscription.clean_rule(DEAL, value) == Decimal(stored)


@pytest.mark.parametrize("value", ["0.9", "99.96", "100", "-20", "", None, "NaN", "1e999999"])
def test_deal_values_out_of_range_are_refused_naming_the_range(value):
    with translation.override("en"), pytest.raises(ValidationError) as exc:
        Subscription.clean_rule(DEAL, value)
    assert exc.value.messages == [
        "A deal must be between 1 and 99 % under the median (e.g. 20 or 12.5)."
    ]
    with translation.override("de"), pytest.raises(ValidationError) as exc:
        Subscription.clean_rule(DEAL, value)
    assert "zwischen 1 und 99 % unter dem Median" in exc.value.messages[0]


@pytest.mark.parametrize("value", [Decimal("100"), Decimal("0.5"), None])
def test_the_database_refuses_deal_values_out_of_range(value):
    with pytest.raises(IntegrityError), transaction.atomic():
        make_subscription(drop_rule=DEAL, drop_value=value)


def test_the_deal_rule_is_described_in_words():
    sub = make_subscription(drop_rule=DEAL, drop_value=Decimal("12.50"))
    with translation.override("en"):
        assert sub.describe_rule() == "only deals at least 12.5 % under the median"
    with translation.override("de"):
        assert sub.describe_rule() == "nur Schnäppchen mindestens 12.5 % unter dem Median"


def test_the_admin_form_offers_the_deal_rule(admin_client, settings):
    settings.LANGUAGE_CODE = "en"
    chat, keyword = make_chat(), make_keyword()
    form = admin_client.get("/admin/notifications/subscription/add/").content.decode()
    assert '<option value="deal">only deals of at least N %</option>' in form
    response = admin_client.post(
        "/admin/notifications/subscription/add/",
        {"chat": chat.pk, "keyword": keyword.pk, "drop_rule": "deal", "drop_value": "0.5"},
    )
    assert "between 1 and 99 % under the median" in response.content.decode()
    admin_client.post(
        "/admin/notifications/subscription/add/",
        {
            "chat": chat.pk,
            "keyword": keyword.pk,
            "drop_rule": "deal",
            "drop_value": "20.04",
            "created_at_0": "2026-01-01",
            "created_at_1": "10:00:00",
        },
    )
    sub = Subscription.objects.get()
    assert (sub.drop_rule, sub.drop_value) == ("deal", Decimal("20.0"))


# --- from the chat ---------------------------------------------------------------------


@pytest.fixture
def member(bot):
    return make_chat(chat_id=ALLOWED, language="en")


def rule_of(sub):
    sub.refresh_from_db()
    return sub.drop_rule, sub.drop_value


def test_subscribe_with_a_deal_rule_by_id_and_by_name(bot, member):
    keyword = make_keyword(name="Rennrad Carbon")
    reply = bot.reply(ALLOWED, f"/subscribe {keyword.pk} deal 20%")
    assert reply == (
        f"✅ Subscribed to #{keyword.pk} Rennrad Carbon: only deals at least 20 % under the "
        "median (new ads and price drops)."
    )
    sub = Subscription.objects.get(chat=member, keyword=keyword)
    assert rule_of(sub) == ("deal", Decimal("20"))
    reply = bot.reply(ALLOWED, "/subscribe rennrad carbon DEAL 12,34%")
    assert reply.startswith(f"✅ Updated #{keyword.pk} Rennrad Carbon: only deals at least 12.3 %")
    assert rule_of(sub) == ("deal", Decimal("12.3"))
    bot.reply(ALLOWED, f"/subscribe {keyword.pk} deal 25")
    assert rule_of(sub) == ("deal", Decimal("25"))


@pytest.mark.parametrize(
    "args,expected",
    [
        ("deal cheap", "“cheap” is not a percentage: send e.g. /subscribe 12 deal 20%."),
        ("deal 0.9%", "between 1 and 99 % under the median"),
        ("deal 100%", "between 1 and 99 % under the median"),
        ("deal -20%", "between 1 and 99 % under the median"),
        ("deal NaN%", "between 1 and 99 % under the median"),
    ],
)
def test_bad_deal_rules_are_explained_and_change_nothing(bot, member, args, expected):
    keyword = make_keyword()
    make_subscription(member, keyword, drop_rule="percent", drop_value=Decimal("10"))
    assert expected in bot.reply(ALLOWED, f"/subscribe {keyword.pk} {args}")
    assert rule_of(Subscription.objects.get()) == ("percent", Decimal("10"))


def test_the_deal_rule_speaks_german(bot):
    make_chat(chat_id=ALLOWED, language="de")
    keyword = make_keyword()
    reply = bot.reply(ALLOWED, f"/subscribe {keyword.pk} deal 0.5%", language_code="de")
    assert "zwischen 1 und 99 % unter dem Median" in reply
    reply = bot.reply(ALLOWED, f"/subscribe {keyword.pk} deal 20%", language_code="de")
    assert "nur Schnäppchen mindestens 20 % unter dem Median" in reply
    assert "/subscribe 12 deal 20%" in bot.reply(ALLOWED, "/help", language_code="de")


def test_help_names_the_deal_rule(bot, member):
    assert "/subscribe 12 deal 20% — only ads and drops at least 20 % under the median" in (
        bot.reply(ALLOWED, "/help")
    )


def callbacks(markup):
    return [b.callback_data for row in markup.inline_keyboard for b in row]


def test_new_ad_and_drop_messages_offer_the_deal_button(settings):
    settings.LANGUAGE_CODE = "en"
    sub = make_subscription()
    k = sub.keyword_id
    new = render(make_notification(chat=sub.chat, keyword=sub.keyword)).reply_markup
    assert callbacks(new) == [f"mutekw:{k}", "snooze:3600", f"rule:{k}:d15"]
    assert new.inline_keyboard[-1][0].text == "💡 Only deals"
    drop = make_notification(
        chat=sub.chat,
        keyword=sub.keyword,
        ad=make_ad(price=Decimal("187")),
        kind=Notification.Kind.PRICE_DROP,
        old_price=Decimal("250"),
    )
    assert callbacks(render(drop).reply_markup)[-2:] == [f"rule:{k}:every", f"rule:{k}:d15"]
    alert = render(make_notification(chat=sub.chat, keyword=None)).reply_markup
    assert callbacks(alert) == ["snooze:3600"]


def test_pressing_only_deals_on_a_sent_new_ad_sets_the_rule(bot, member):
    sub = make_subscription(member, keyword=make_keyword(name="Rennrad"))
    make_notification(chat=member, keyword=sub.keyword)
    assert process_queue() == 1
    (message,) = bot.server.messages
    markup = message["reply_markup"]["inline_keyboard"]
    assert markup[-1][0]["text"] == "💡 Only deals"
    answer = bot.press(ALLOWED, markup[-1][0]["callback_data"], message_id=message["message_id"])
    assert answer["text"] == (
        "✅ Rennrad: only deals at least 15 % under the median (new ads and price drops)."
    )
    assert rule_of(sub) == ("deal", Decimal("15"))


@pytest.mark.parametrize(
    "data", ["rule:{k}:d0", "rule:{k}:d100", "rule:{k}:d", "rule:{k}:d15.5", "rule:{k}:d١٥"]
)
def test_malformed_deal_buttons_are_refused(bot, member, data):
    sub = make_subscription(member, drop_rule="percent", drop_value=Decimal("20"))
    answer = bot.press(ALLOWED, data.format(k=sub.keyword_id))
    assert answer["show_alert"] and "no longer valid" in answer["text"]
    assert rule_of(sub) == ("percent", Decimal("20"))


def test_a_deal_button_for_a_keyword_the_chat_does_not_follow_changes_nothing(bot, member):
    other = make_subscription(keyword=make_keyword(name="Secret"))
    answer = bot.press(ALLOWED, f"rule:{other.keyword_id}:d15")
    assert answer["show_alert"] and "Secret" not in answer["text"]
    assert rule_of(other) == ("every", None)
    assert not Subscription.objects.filter(chat=member).exists()


def test_the_keyword_page_inline_offers_the_deal_rule(admin_client, settings):
    settings.LANGUAGE_CODE = "en"
    keyword = make_keyword()
    make_subscription(keyword=keyword, drop_rule=DEAL, drop_value=Decimal("20"))
    page = admin_client.get(f"/admin/tracker/keyword/{keyword.pk}/change/").content.decode()
    assert '<option value="deal" selected>only deals of at least N %</option>' in page
