"""The drop-rule buttons on price-drop messages: they change the chat's rule for that keyword,
and nothing else."""

from decimal import Decimal

import pytest

from notifications.messages import render
from notifications.models import Notification, Subscription
from notifications.sender import process_queue
from notifications.tests.conftest import ALLOWED
from tests.factories import make_ad, make_chat, make_keyword, make_notification, make_subscription

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english(settings):
    settings.LANGUAGE_CODE = "en"


def buttons(markup):
    return [b["callback_data"] for row in markup["inline_keyboard"] for b in row]


def labels(markup):
    return [b.text for row in markup.inline_keyboard for b in row]


def drop(chat, keyword, price="187", old="250"):
    ad = make_ad(price=Decimal(price))
    return make_notification(
        chat=chat, keyword=keyword, ad=ad, kind=Notification.Kind.PRICE_DROP, old_price=Decimal(old)
    )


def test_drop_message_offers_rule_buttons_and_a_new_ad_does_not():
    sub = make_subscription()
    markup = render(drop(sub.chat, sub.keyword)).reply_markup
    assert labels(markup)[2:5] == ["Only −10 % or more", "Only ≤ € 180", "Every drop"]
    k = sub.keyword_id
    assert [b.callback_data for row in markup.inline_keyboard for b in row][2:5] == [
        f"rule:{k}:p10",
        f"rule:{k}:b180",
        f"rule:{k}:every",
    ]
    new = make_notification(chat=sub.chat, keyword=sub.keyword)
    assert "Every drop" not in labels(render(new).reply_markup)


def test_drop_of_an_ad_without_price_has_no_target_button():
    sub = make_subscription()
    n = make_notification(
        chat=sub.chat,
        keyword=sub.keyword,
        ad=make_ad(price=Decimal("0.50")),
        kind=Notification.Kind.PRICE_DROP,
    )
    assert "Only ≤" not in " ".join(labels(render(n).reply_markup))


def test_a_target_above_the_allowed_price_gets_no_button():
    sub = make_subscription()
    markup = render(drop(sub.chat, sub.keyword, price="250000000", old="300000000")).reply_markup
    assert labels(markup)[2:4] == ["Only −10 % or more", "Every drop"]


@pytest.fixture
def member(bot):
    return make_chat(chat_id=ALLOWED)


def rule_of(sub):
    sub.refresh_from_db()
    return sub.drop_rule, sub.drop_value


def test_pressing_the_buttons_of_a_sent_drop_changes_the_rule(bot, member):
    sub = make_subscription(member, keyword=make_keyword(name="Rennrad"))
    drop(member, sub.keyword)
    assert process_queue() == 1
    (message,) = bot.server.messages
    percent, below, every = buttons(message["reply_markup"])[2:5]
    answer = bot.press(ALLOWED, percent, message_id=message["message_id"])
    assert answer["text"] == "✅ Rennrad: price drops: drops of at least 10 %."
    assert rule_of(sub) == ("percent", Decimal("10"))
    bot.press(ALLOWED, below, message_id=message["message_id"])
    assert rule_of(sub) == ("below", Decimal("180"))
    bot.press(ALLOWED, every, message_id=message["message_id"])
    assert rule_of(sub) == ("every", None)


def test_forged_button_for_a_keyword_the_chat_does_not_follow_changes_nothing(bot, member):
    other = make_subscription(
        keyword=make_keyword(name="Secret"), drop_rule="below", drop_value=Decimal("50")
    )
    answer = bot.press(ALLOWED, f"rule:{other.keyword_id}:every")
    assert answer["show_alert"] and "You do not follow this keyword" in answer["text"]
    assert "Secret" not in answer["text"]
    assert not Subscription.objects.filter(chat=member).exists()
    assert rule_of(other) == ("below", Decimal("50"))


@pytest.mark.parametrize(
    "data",
    [
        "rule:{k}:p100",
        "rule:{k}:p0",
        "rule:{k}:b0",
        "rule:{k}:b99999999999",
        "rule:{k}:x",
        "rule:{k}:every:1",
        "rule:x:every",
        "rule:",
        "rule:{k}:p١٠",
    ],
)
def test_malformed_rule_buttons_are_refused(bot, member, data):
    sub = make_subscription(member, drop_rule="percent", drop_value=Decimal("20"))
    answer = bot.press(ALLOWED, data.format(k=sub.keyword_id))
    assert answer["show_alert"] and "no longer valid" in answer["text"]
    assert rule_of(sub) == ("percent", Decimal("20"))


def test_rule_buttons_go_through_the_access_gate(bot):
    sub = make_subscription(make_chat(chat_id=777, status="pending"))
    answer = bot.press(777, f"rule:{sub.keyword_id}:p10")
    assert "waiting for an admin" in answer["text"]
    assert rule_of(sub) == ("every", None)
