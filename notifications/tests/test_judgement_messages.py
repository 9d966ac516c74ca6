"""New-ad and price-drop messages carry the price judgement, in the chat's language."""

from datetime import timedelta
from decimal import Decimal as D
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import translation

from notifications.messages import judgement_line, render
from notifications.models import Notification
from notifications.sender import process_queue
from tests.factories import (
    make_ad,
    make_chat,
    make_destination,
    make_keyword,
    make_notification,
    make_subscription,
)
from tests.fakes.willhaben_factory import BASE_TIME, make_raw_ad, set_price
from tracker.models import KeywordAd
from tracker.price_judgement import Judgement

pytestmark = pytest.mark.django_db

BIKE = "Specialized Rennrad Carbon 56 cm"
OTHERS = ["Fahrradschloss Abus", "Fahrradhelm Uvex", "Luftpumpe SKS", "Kettenöl"]


def scrape(keyword):
    call_command("scrape", str(keyword.pk), stdout=StringIO())


@pytest.fixture
def market(willhaben_server, telegram, settings):
    """A keyword whose first run found 20 bikes at € 1.000 … € 1.190 (median € 1.095) and 20
    cheap other things; a German and an English chat follow it."""
    settings.SCRAPE_ROWS = 60
    settings.SCRAPE_MAX_PAGES = 1
    bikes = [
        make_raw_ad(
            title=f"{BIKE} Nr. {i}",
            price=str(1000 + 10 * i),
            published=BASE_TIME - timedelta(minutes=i + 1),
        )
        for i in range(20)
    ]
    others = [
        make_raw_ad(
            title=OTHERS[i % 4],
            price=str(20 + i),
            published=BASE_TIME - timedelta(hours=1, minutes=i),
        )
        for i in range(20)
    ]
    willhaben_server.set_ads([*bikes, *others])
    keyword = make_keyword(name="rad")
    german = make_subscription(keyword=keyword, chat=make_chat(language="de")).chat
    english = make_subscription(keyword=keyword, chat=make_chat(language="en")).chat
    scrape(keyword)  # the first run: quiet
    assert process_queue() == 0
    return {
        "server": willhaben_server,
        "ads": [*bikes, *others],
        "bikes": bikes,
        "keyword": keyword,
        "de": german,
        "en": english,
    }


def new_ad(market, title, price):
    raw = make_raw_ad(title=title, price=price, published=BASE_TIME + timedelta(hours=2))
    market["server"].set_ads([raw, *market["ads"]])
    scrape(market["keyword"])
    process_queue()


def test_a_new_deal_says_how_far_under_the_median_it_is_and_that_it_is_the_lowest(market, telegram):
    new_ad(market, BIKE, "673.59")
    (german,) = telegram.texts(market["de"].chat_id)
    (english,) = telegram.texts(market["en"].chat_id)
    assert "💡 39 % unter dem Median (€ 1.095, 20 vergleichbare)" in german
    assert "🆕 günstigster Preis dieser Suche seit 90 Tagen" in german
    assert "💡 39 % below the median (€ 1.095, 20 comparable)" in english
    assert "🆕 lowest price of this search in 90 days" in english


def test_a_bait_title_far_under_the_market_is_flagged_not_praised(market, telegram):
    new_ad(market, f"{BIKE} defekt", "500")
    (german,) = telegram.texts(market["de"].chat_id)
    assert "⚠️ verdächtig günstig" in german and "günstigster Preis" not in german


def test_a_price_drop_is_judged_against_the_other_ads(market, telegram):
    set_price(market["bikes"][0], "800")
    scrape(market["keyword"])
    process_queue()
    (english,) = telegram.texts(market["en"].chat_id)
    # The 19 other bikes: median € 1.100; 800 is 27.3 % under it.
    assert english.startswith("📉 Price drop")
    assert "💡 27 % below the median (€ 1.100, 19 comparable)" in english


def test_too_few_comparables_add_no_line(willhaben_server, telegram, settings):
    keyword = make_keyword()
    chat = make_subscription(keyword=keyword, chat=make_chat(language="en")).chat
    first = make_raw_ad(title=BIKE, price="1000", published=BASE_TIME)
    willhaben_server.set_ads([first])
    scrape(keyword)
    later = make_raw_ad(title=BIKE, price="500", published=BASE_TIME + timedelta(hours=1))
    willhaben_server.set_ads([later, first])
    scrape(keyword)
    process_queue()
    (text,) = telegram.texts(chat.chat_id)
    assert text.startswith("🆕 New ad") and "💡" not in text and "median" not in text


def test_a_link_whose_price_moved_on_since_says_nothing(settings):
    settings.LANGUAGE_CODE = "en"
    keyword = make_keyword()
    ad = make_ad(price=D(500))
    link = KeywordAd.objects.create(keyword=keyword, ad=ad, price=D(500))
    link.store_judgement(Judgement(label="deal", n=10, median=D(800), percent=D("-37.5")))
    link.save()
    now = make_notification(ad=ad, keyword=keyword, price=D(500))
    assert "💡 38 % below the median (€ 800, 10 comparable)" in render(now).plain
    earlier = make_notification(ad=ad, keyword=keyword, price=D(600), chat=now.chat)
    assert "💡" not in render(earlier).plain


@pytest.mark.parametrize(
    ("judgement", "line"),
    [
        (None, ""),
        (Judgement(label="too_few", n=3), ""),
        (
            Judgement(label="high", n=12, median=D("450"), percent=D("23.4")),
            "💡 23 % above the median (€ 450, 12 comparable)",
        ),
        (
            Judgement(label="fair", n=12, median=D("450"), percent=D("0.4")),
            "💡 at the median (€ 450, 12 comparable)",
        ),
        (
            Judgement(label="deal", n=9, median=D("27.5"), percent=D("-48"), per_m2=True),
            "💡 48 % below the median (€ 27,50/m², 9 comparable)",
        ),
    ],
)
def test_the_line_from_any_judgement(judgement, line):
    with translation.override("en"):
        assert judgement_line(judgement) == line


def test_the_line_in_german():
    judgement = Judgement(label="deal", n=14, median=D("450"), percent=D("-23"))
    with translation.override("de"):
        assert judgement_line(judgement) == "💡 23 % unter dem Median (€ 450, 14 vergleichbare)"


def test_rows_loaded_for_sending_bring_their_judgement(settings, django_assert_num_queries):
    settings.LANGUAGE_CODE = "en"
    keyword = make_keyword()
    ads = [make_ad(price=D(500)) for _ in range(3)]
    for ad in ads:
        link = KeywordAd.objects.create(keyword=keyword, ad=ad, price=D(500))
        link.store_judgement(Judgement(label="deal", n=10, median=D(800), percent=D("-37.5")))
        link.save()
    rows = [make_notification(ad=ad, keyword=keyword, price=D(500)) for ad in ads]
    loaded = Notification.objects.load_for_sending([n.pk for n in rows])
    with django_assert_num_queries(0):
        for n in loaded.values():
            assert "💡 38 % below the median (€ 800, 10 comparable)" in render(n).plain


def test_a_deal_only_chat_hears_of_deals_and_nothing_else(market, telegram):
    deals = make_subscription(
        keyword=market["keyword"],
        chat=make_chat(language="en"),
        drop_rule="deal",
        drop_value=D("20"),
    ).chat
    new_ad(market, f"{BIKE} Nr. 90", "1090")  # fair: the median
    new_ad(market, f"{BIKE} Nr. 91", "900")  # 17.8 % under: a deal, but not 20 %
    new_ad(market, BIKE, "673.59")  # 38 % under
    set_price(market["bikes"][5], "1040")  # a drop to a fair price
    scrape(market["keyword"])
    process_queue()
    (only,) = telegram.texts(deals.chat_id)
    assert only.startswith("🆕 New ad") and "€ 673,59" in only
    assert "💡 38 % below the median (€ 1.090, 22 comparable)" in only
    assert len(telegram.texts(market["en"].chat_id)) == 4


def test_a_destination_gets_the_same_judgement_lines(market, apprise_endpoint):
    family = make_destination(
        title="family", apprise_url=apprise_endpoint.url("family"), language="en"
    )
    make_subscription(keyword=market["keyword"], chat=family)
    new_ad(market, BIKE, "673.59")
    [post] = apprise_endpoint.posts
    assert "💡 39 % below the median (€ 1.095, 20 comparable)" in post["message"]
    assert "🆕 lowest price of this search in 90 days" in post["message"]
