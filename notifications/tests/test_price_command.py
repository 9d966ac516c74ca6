"""/price <keyword> <price>: the judgement of a price for a keyword the chat follows."""

from decimal import Decimal

import pytest
from django.utils import translation

from notifications.bot.price_command import judgement_lines
from notifications.tests.conftest import ALLOWED
from tests.factories import make_ad, make_chat, make_keyword, make_subscription
from tracker.models import KeywordAd
from tracker.price_judgement import Judgement, PriceLabel

pytestmark = pytest.mark.django_db

USAGE = "Send /price &lt;keyword&gt; &lt;price&gt;, e.g. /price 12 450, for a keyword you follow."


@pytest.fixture
def member(bot):
    return make_chat(chat_id=ALLOWED, language="en")


@pytest.fixture
def followed(member):
    return make_subscription(member, make_keyword(name="Rennrad Carbon")).keyword


def test_price_for_a_followed_keyword_without_comparables_says_too_few(bot, followed):
    # Nothing to compare with: too few whatever the engine, by id and by name prefix.
    expected = (
        f"💡 <b>€ 673,59</b> for #{followed.pk} Rennrad Carbon\n"
        "Too few comparable ads (0 of at least 8) to judge this price."
    )
    assert bot.reply(ALLOWED, f"/price {followed.pk} 673.59") == expected
    assert bot.reply(ALLOWED, "/price rennrad 673,59") == expected
    assert bot.reply(ALLOWED, "/price Rennrad Carbon € 673,59") == expected


def test_price_judges_against_the_ads_the_keyword_found(bot, followed):
    for i in range(20):  # € 1.000 … € 1.190: median € 1.095
        price = Decimal(1000 + 10 * i)
        ad = make_ad(title=f"Rennrad Carbon Nr. {i}", price=price)
        KeywordAd.objects.create(keyword=followed, ad=ad, price=price)
    assert bot.reply(ALLOWED, f"/price {followed.pk} 673.59").splitlines() == [
        f"💡 <b>€ 673,59</b> for #{followed.pk} Rennrad Carbon: <b>deal</b>",
        "Median € 1.095 of 20 comparable ads.",
        "38.5 % under the median.",
        "Percentile 0: 0 % of the comparable ads are cheaper.",
        "Cheaper than every comparable ad.",
    ]


def test_price_speaks_the_chat_language(bot, followed):
    reply = bot.reply(ALLOWED, f"/price {followed.pk} 1.095", language_code="de")
    assert reply == (
        f"💡 <b>€ 1.095</b> für #{followed.pk} Rennrad Carbon\n"
        "Zu wenige vergleichbare Anzeigen (0 von mindestens 8), um den Preis einzuschätzen."
    )


@pytest.mark.parametrize(
    "args,expected",
    [
        ("", USAGE),
        ("{k}", USAGE),
        ("{k} cheap", "“cheap” is not a price between € 0,01 and € 100.000.000. " + USAGE),
        ("{k} 0", "“0” is not a price between € 0,01 and € 100.000.000."),
        ("{k} -5", "is not a price"),
        ("{k} 1e999999", "is not a price"),
        ("{k} 100000000.01", "is not a price"),
        ("99999 450", "There is no active keyword #99999."),
        ("fahrrad 450", "There is no active keyword “fahrrad”."),
    ],
)
def test_bad_input_is_answered_with_the_usage(bot, followed, args, expected):
    reply = bot.reply(ALLOWED, f"/price {args.format(k=followed.pk)}".strip())
    assert expected in reply
    assert USAGE in reply


def test_price_for_a_keyword_the_chat_does_not_follow_is_refused(bot, member, caplog):
    other = make_keyword(name="Laptop")
    make_subscription(keyword=other)
    paused = make_subscription(keyword=make_keyword(name="Secret", is_active=False)).keyword
    assert bot.reply(ALLOWED, f"/price {other.pk} 450") == (
        f"You do not follow #{other.pk} Laptop: /price judges prices for the keywords you follow. "
        f"/subscribe {other.pk} follows it."
    )
    reply = bot.reply(ALLOWED, f"/price {paused.pk} 450")
    assert "Secret" not in reply and f"There is no active keyword #{paused.pk}" in reply
    logged = [r.getMessage() for r in caplog.records if r.name == "notifications.bot.price_command"]
    assert logged == [
        f"bot: chat {ALLOWED}: /price for #{other.pk} refused: not followed",
        f"bot: chat {ALLOWED}: /price '{paused.pk} 450' refused: no such keyword",
    ]


def test_a_paused_keyword_the_chat_follows_is_judged(bot, member):
    paused = make_subscription(member, make_keyword(name="Alt", is_active=False)).keyword
    assert bot.reply(ALLOWED, f"/price {paused.pk} 450").startswith(
        f"💡 <b>€ 450</b> for #{paused.pk} Alt\nToo few"
    )


def test_price_goes_through_the_access_gate(bot):
    keyword = make_keyword(name="Rennrad")
    make_subscription(make_chat(chat_id=777, status="pending"), keyword)
    assert "wartet auf die Freigabe" in bot.reply(777, f"/price {keyword.pk} 450")
    assert "Too few" not in bot.reply(777, f"/price {keyword.pk} 450", language_code="en")


def test_help_names_price(bot, member):
    assert "/price 12 450 — how € 450 compares with the ads of keyword 12 you follow" in (
        bot.reply(ALLOWED, "/help")
    )


# --- the reply's lines for each label (judgements made by hand) -------------------------


def judgement(label, percent, percentile, **kw):
    return Judgement(
        label=label,
        n=20,
        median=Decimal("1095"),
        mad=Decimal("50"),
        z=-5.0,
        percent=Decimal(percent),
        percentile=percentile,
        **kw,
    )


def test_a_deal_is_shown_with_median_percent_and_percentile():
    deal = judgement(PriceLabel.DEAL, "-38.48", 0.0, lowest=True)
    with translation.override("en"):
        assert judgement_lines("#3 Rennrad", Decimal("673.59"), deal) == [
            "💡 <b>€ 673,59</b> for #3 Rennrad: <b>deal</b>",
            "Median € 1.095 of 20 comparable ads.",
            "38.5 % under the median.",
            "Percentile 0: 0 % of the comparable ads are cheaper.",
            "Cheaper than every comparable ad.",
        ]
    with translation.override("de"):
        assert judgement_lines("#3 Rennrad", Decimal("673.59"), deal) == [
            "💡 <b>€ 673,59</b> für #3 Rennrad: <b>Schnäppchen</b>",
            "Median € 1.095 von 20 vergleichbaren Anzeigen.",
            "38,5 % unter dem Median.",
            "Perzentil 0: 0 % der vergleichbaren Anzeigen sind günstiger.",
            "Günstiger als jede vergleichbare Anzeige.",
        ]


@pytest.mark.parametrize(
    "label,percent,line,word",
    [
        (PriceLabel.FAIR, "0", "At the median.", "fair"),
        (PriceLabel.HIGH, "21.04", "21.0 % over the median.", "high"),
        (PriceLabel.SUSPICIOUS, "-80", "80.0 % under the median.", "suspiciously cheap"),
    ],
)
def test_other_labels_are_named_in_words(label, percent, line, word):
    with translation.override("en"):
        lines = judgement_lines("#3 x", Decimal("500"), judgement(label, percent, 55.0))
    assert lines[0].endswith(f": <b>{word}</b>")
    assert lines[2] == line
    assert lines[3] == "Percentile 55: 55 % of the comparable ads are cheaper."
    assert (label == PriceLabel.SUSPICIOUS) == any("⚠️" in line for line in lines)


def test_too_few_names_the_count_and_the_minimum(settings):
    settings.PRICE_COMPARE_MIN = 10
    with translation.override("en"):
        lines = judgement_lines("#3 x", Decimal("500"), Judgement(label=PriceLabel.TOO_FEW, n=7))
    assert lines[1] == "Too few comparable ads (7 of at least 10) to judge this price."
