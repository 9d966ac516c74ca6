"""Drop rules per subscription: /subscribe … below / drop N%, applied when outbox rows are written."""

from decimal import Decimal

import pytest

from notifications.models import Notification, Subscription
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


@pytest.mark.parametrize(
    "args,expected",
    [
        ("below cheap", "is not a number"),
        ("drop 10", "is not a percentage"),
        ("drop 100%", "never happens"),
        ("below -5", "positive"),
    ],
)
def test_bad_rules_are_explained_and_change_nothing(bot, member, args, expected):
    keyword = make_keyword()
    assert expected in bot.reply(ALLOWED, f"/subscribe {keyword.pk} {args}")
    assert not Subscription.objects.exists()
