"""The deal-only rule: a chat hears only of ads judged deals at least N % under the median, new
ads and price drops alike."""

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import translation

from notifications.models import Notification, Subscription
from scraping.ingest import ingest_page
from scraping.sources.base import ParsedAd
from tests.factories import make_chat, make_keyword, make_subscription
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
