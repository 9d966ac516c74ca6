"""Drop rules per subscription: /subscribe … below / drop N%, applied when outbox rows are
written."""

from decimal import Decimal

import pytest
from django.contrib import admin
from django.db import IntegrityError, transaction

from notifications.admin import ChatSubscriptionInline
from notifications.models import Notification, Subscription, TelegramChat
from notifications.tests.conftest import ALLOWED
from scraping.ingest import ingest_page
from scraping.sources.base import ParsedAd
from tests.factories import make_chat, make_keyword, make_subscription

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


def ad(price):
    return ParsedAd(
        external_id="77",
        title="Rennrad",
        price=Decimal(price),
        url="https://www.willhaben.at/iad/object?adId=77",
    )


def test_rules_decide_which_chats_get_a_drop_row():
    keyword = make_keyword()
    every = make_subscription(keyword=keyword).chat
    ten = make_subscription(keyword=keyword, drop_rule="percent", drop_value=Decimal("10")).chat
    thirty = make_subscription(keyword=keyword, drop_rule="percent", drop_value=Decimal("30")).chat
    below_ok = make_subscription(keyword=keyword, drop_rule="below", drop_value=Decimal("150")).chat
    below_lower = make_subscription(
        keyword=keyword, drop_rule="below", drop_value=Decimal("100")
    ).chat
    ingest_page(keyword, [ad("180")], source="willhaben", notify=False)
    ingest_page(keyword, [ad("150")], source="willhaben")  # -16.7 %
    got = set(Notification.objects.filter(kind="price_drop").values_list("chat_id", flat=True))
    assert got == {every.pk, ten.pk, below_ok.pk}
    assert thirty.pk not in got and below_lower.pk not in got


def test_new_ads_reach_every_subscriber_whatever_the_rule():
    keyword = make_keyword()
    make_subscription(keyword=keyword, drop_rule="below", drop_value=Decimal("1"))
    ingest_page(keyword, [ad("180")], source="willhaben")
    assert Notification.objects.filter(kind="new").count() == 1


@pytest.fixture
def member(bot):
    return make_chat(chat_id=ALLOWED)


def test_subscribe_with_rules_by_id_and_by_name(bot, member):
    keyword = make_keyword(name="Rennrad Carbon")
    assert "€ 500 or less" in bot.reply(ALLOWED, f"/subscribe {keyword.pk} below 500")
    sub = Subscription.objects.get(chat=member, keyword=keyword)
    assert (sub.drop_rule, sub.drop_value) == ("below", Decimal("500"))
    assert "at least 10 %" in bot.reply(ALLOWED, "/subscribe rennrad carbon drop 10%")
    sub.refresh_from_db()
    assert (sub.drop_rule, sub.drop_value) == ("percent", Decimal("10"))
    assert "every drop" in bot.reply(ALLOWED, f"/subscribe {keyword.pk} every")
    sub.refresh_from_db()
    assert (sub.drop_rule, sub.drop_value) == ("every", None)


PERCENT_RANGE = "between 1 and 99 %"
PRICE_RANGE = "between € 0,01 and € 100.000.000"


@pytest.mark.parametrize(
    "args,expected",
    [
        ("below cheap", "is not a number"),
        ("drop 10", "is not a percentage"),
        ("drop 100%", PERCENT_RANGE),
        ("drop 99.999%", PERCENT_RANGE),
        ("drop 99.96%", PERCENT_RANGE),
        ("drop 0.004%", PERCENT_RANGE),
        ("drop 0.9%", PERCENT_RANGE),
        ("drop NaN%", PERCENT_RANGE),
        ("drop 1e999999%", PERCENT_RANGE),
        ("below -5", PRICE_RANGE),
        ("below 0.004", PRICE_RANGE),
        ("below 0", PRICE_RANGE),
        ("below 100000000.01", PRICE_RANGE),
        ("below 1e999999", PRICE_RANGE),
        ("below Infinity", PRICE_RANGE),
    ],
)
def test_bad_rules_are_explained_and_change_nothing(bot, member, args, expected):
    keyword = make_keyword()
    assert expected in bot.reply(ALLOWED, f"/subscribe {keyword.pk} {args}")
    assert not Subscription.objects.exists()


@pytest.mark.parametrize(
    "args,stored",
    [
        ("drop 12.34%", ("percent", Decimal("12.3"))),
        ("drop 12,35%", ("percent", Decimal("12.4"))),
        ("drop 0.95%", ("percent", Decimal("1"))),
        ("drop 99.04%", ("percent", Decimal("99"))),
        ("below 99,999", ("below", Decimal("100"))),
        ("below 0.005", ("below", Decimal("0.01"))),
        ("below 100000000", ("below", Decimal("100000000"))),
    ],
)
def test_rule_values_are_rounded_before_they_are_stored(bot, member, args, stored):
    keyword = make_keyword()
    assert "✅" in bot.reply(ALLOWED, f"/subscribe {keyword.pk} {args}")
    sub = Subscription.objects.get(chat=member, keyword=keyword)
    assert (sub.drop_rule, sub.drop_value) == stored


def test_a_refused_rule_keeps_the_existing_one(bot, member):
    keyword = make_keyword()
    make_subscription(member, keyword, drop_rule="percent", drop_value=Decimal("20"))
    assert PERCENT_RANGE in bot.reply(ALLOWED, f"/subscribe {keyword.pk} drop 99.999%")
    sub = Subscription.objects.get()
    assert (sub.drop_rule, sub.drop_value) == ("percent", Decimal("20"))


def test_the_range_is_named_in_german(bot, member):
    keyword = make_keyword()
    reply = bot.reply(ALLOWED, f"/subscribe {keyword.pk} below 0.004", language_code="de")
    assert "zwischen € 0,01 und € 100.000.000" in reply
    reply = bot.reply(ALLOWED, f"/subscribe {keyword.pk} drop 0.004%", language_code="de")
    assert "zwischen 1 und 99 %" in reply
    assert not Subscription.objects.exists()


@pytest.mark.parametrize(
    "rule,value,error",
    [
        ("percent", "100", PERCENT_RANGE),
        ("percent", "0.004", PERCENT_RANGE),
        ("below", "0.004", PRICE_RANGE),
        ("below", "", PRICE_RANGE),
    ],
)
def test_admin_forms_refuse_values_out_of_range(admin_client, rule, value, error):
    chat, keyword = make_chat(), make_keyword()
    response = admin_client.post(
        "/admin/notifications/subscription/add/",
        {"chat": chat.pk, "keyword": keyword.pk, "drop_rule": rule, "drop_value": value},
    )
    assert response.status_code == 200
    assert error in response.content.decode()
    assert not Subscription.objects.exists()


def test_admin_chat_inline_rounds_and_refuses(rf, admin_user):
    chat, keyword = make_chat(), make_keyword()
    request = rf.post("/")
    request.user = admin_user
    formset_class = ChatSubscriptionInline(TelegramChat, admin.site).get_formset(request, chat)

    def formset(rule, value):
        prefix = formset_class.get_default_prefix()
        return formset_class(
            {
                f"{prefix}-TOTAL_FORMS": "1",
                f"{prefix}-INITIAL_FORMS": "0",
                f"{prefix}-0-keyword": keyword.pk,
                f"{prefix}-0-drop_rule": rule,
                f"{prefix}-0-drop_value": value,
                f"{prefix}-0-created_at_0": "2026-01-01",
                f"{prefix}-0-created_at_1": "10:00:00",
            },
            instance=chat,
        )

    refused = formset("percent", "99.999")
    assert not refused.is_valid()
    assert PERCENT_RANGE in str(refused.errors)
    accepted = formset("percent", "12.34")
    assert accepted.is_valid(), accepted.errors
    accepted.save()
    assert Subscription.objects.get().drop_value == Decimal("12.3")


@pytest.mark.parametrize(
    "rule,value",
    [("percent", "100"), ("percent", "0.5"), ("below", "0"), ("below", "100000000.01")],
)
def test_the_database_refuses_values_out_of_range(rule, value):
    with pytest.raises(IntegrityError), transaction.atomic():
        make_subscription(drop_rule=rule, drop_value=Decimal(value))
