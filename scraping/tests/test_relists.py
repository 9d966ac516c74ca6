"""Relists: an ad gone after a complete sweep, put up again under a new id (issue 17)."""

from datetime import timedelta
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from notifications.models import Notification
from notifications.sender import process_queue
from scraping.sources.base import ParsedAd
from tests.factories import make_ad, make_keyword, make_subscription
from tests.fakes.willhaben_factory import BASE_TIME, SELLER, make_raw_ad, make_raw_ads
from tracker.models import Ad, PriceChange
from tracker.relists import prices_match, title_key

pytestmark = pytest.mark.django_db

TITLE = "Fahrrad Cube Aim 29 Zoll, top Zustand!"


@pytest.fixture(autouse=True)
def english(settings):
    """The texts below are the English originals (the lead adds German at merge)."""
    settings.LANGUAGE_CODE = "en"


def scrape(*args):
    call_command("scrape", *args, stdout=StringIO())


@pytest.fixture
def gone(willhaben_server, settings, telegram):
    """A keyword with one subscriber whose ad TITLE (€ 180, 1010, listed 01.06.2025) a complete
    sweep found gone."""
    settings.SCRAPE_ROWS = 15
    settings.SCRAPE_MAX_PAGES = 1
    ads = make_raw_ads(20, price="180", newest=BASE_TIME - timedelta(hours=1))
    sold = make_raw_ad(title=TITLE, price="180", postcode="1010", published=BASE_TIME)
    willhaben_server.set_ads([sold, *ads])
    keyword = make_keyword()
    chat = make_subscription(keyword=keyword).chat
    scrape(str(keyword.pk), "--sweep")  # the first run: quiet
    willhaben_server.set_ads(ads)
    scrape(str(keyword.pk), "--sweep")
    assert list(Ad.objects.gone().values_list("external_id", flat=True)) == [sold["id"]]
    assert Notification.objects.count() == 0
    return {
        "server": willhaben_server,
        "ads": ads,
        "keyword": keyword,
        "chat": chat,
        "sold": Ad.objects.get(external_id=sold["id"]),
    }


def relist(
    gone,
    *,
    title="  fahrrad CUBE aim 29 zoll – TOP Zustand 🚲 ",
    price="150",
    postcode="1010",
    seller=SELLER,
):
    """The seller puts the ad up again under a new id; a normal run sees it, the sender sends."""
    raw = make_raw_ad(
        title=title,
        price=price,
        postcode=postcode,
        seller=seller,
        published=BASE_TIME + timedelta(hours=2),
    )
    gone["server"].set_ads([raw, *gone["ads"]])
    scrape(str(gone["keyword"].pk))
    process_queue()
    return Ad.objects.get(external_id=raw["id"])


def test_a_relist_within_the_window_is_announced_as_a_relist_with_the_earlier_price_and_date(
    gone, telegram
):
    ad = relist(gone)
    assert ad.relist_of == gone["sold"]
    (text,) = telegram.texts(gone["chat"].chat_id)
    assert "♻️ Relisted" in text and "New ad" not in text
    assert "€ 150, earlier € 180 (−17%)" in text
    assert "Listed before on 01.06.2025, gone on" in text
    # The history carries over: the relist starts where the gone ad ended.
    change = PriceChange.objects.get(ad=ad)
    assert (change.old_price, change.new_price) == (180, 150)
    assert Notification.objects.get().kind == Notification.Kind.NEW  # drop rules do not filter it


def test_a_relist_at_the_same_price_records_no_price_change(gone, telegram):
    ad = relist(gone, price="180")
    assert ad.relist_of == gone["sold"] and not PriceChange.objects.filter(ad=ad).exists()
    (text,) = telegram.texts()
    assert "♻️ Relisted" in text and "€ 180, earlier € 180" in text


@pytest.mark.parametrize(
    "change",
    [
        pytest.param({"price": "120"}, id="price-33%-lower"),
        pytest.param({"price": "240"}, id="price-33%-higher"),
        pytest.param({"price": None}, id="price-on-request"),
        pytest.param({"postcode": "1020"}, id="other-postcode"),
        pytest.param({"title": "Fahrrad Cube Aim 27 Zoll, top Zustand!"}, id="other-title"),
        pytest.param({"window": True}, id="gone-31-days-ago"),
    ],
)
def test_an_ad_that_does_not_match_is_a_plain_new_ad(gone, telegram, change):
    if change.pop("window", False):
        Ad.objects.filter(pk=gone["sold"].pk).update(gone_at=timezone.now() - timedelta(days=31))
    ad = relist(gone, **change)
    assert ad.relist_of is None and not PriceChange.objects.filter(ad=ad).exists()
    (text,) = telegram.texts()
    assert "🆕 New ad" in text and "Relisted" not in text


def test_a_copycat_of_another_seller_is_a_plain_new_ad_and_no_suggestion(gone, telegram):
    ad = relist(gone, seller="31337")
    assert ad.relist_of is None
    assert (gone["sold"].seller_id, ad.seller_id) == (SELLER, "31337")  # the pages' ORGIDs
    assert not PriceChange.objects.filter(ad=ad).exists()
    assert Ad.objects.possible_earlier_listings(ad) == []
    (text,) = telegram.texts()
    assert "🆕 New ad" in text and "Relisted" not in text


@pytest.mark.parametrize("side", ["new", "gone"])
def test_without_a_seller_on_either_side_the_match_is_only_suggested(gone, telegram, side):
    """A page that names no seller, or a gone ad stored before sellers were: not linked."""
    if side == "gone":
        Ad.objects.filter(pk=gone["sold"].pk).update(seller_id="")
    ad = relist(gone, seller=None if side == "new" else SELLER)
    assert ad.relist_of is None and not PriceChange.objects.filter(ad=ad).exists()
    assert Ad.objects.possible_earlier_listings(ad) == [gone["sold"]]
    (text,) = telegram.texts()
    assert "🆕 New ad" in text and "Relisted" not in text


def test_the_window_is_a_setting(gone, telegram, settings):
    Ad.objects.filter(pk=gone["sold"].pk).update(gone_at=timezone.now() - timedelta(days=31))
    settings.RELIST_WINDOW_DAYS = 40
    assert relist(gone).relist_of == gone["sold"]


def test_a_gone_ad_is_relisted_once(gone, telegram):
    first = relist(gone)  # € 150
    Ad.objects.filter(pk=first.pk).update(gone_at=timezone.now())
    second = relist(
        gone, price="220"
    )  # +47 % on the € 150 relist, +22 % on the € 180 original: no match
    assert first.relist_of == gone["sold"] and second.relist_of is None


def test_title_key_ignores_case_punctuation_emoji_and_spacing():
    assert (
        title_key('  Fahrrad CUBE—aim, 29"  Zoll!! 🚲')
        == title_key("fahrrad cube aim 29 zoll")
        == "fahrrad cube aim 29 zoll"
    )
    assert title_key("Straße") == title_key("STRASSE")
    assert title_key("🚲 !!") == ""


def test_prices_match_within_thirty_percent_and_on_request_only_with_on_request():
    assert prices_match(Decimal("100"), Decimal("70")) and prices_match(
        Decimal("100"), Decimal("130")
    )
    assert not prices_match(Decimal("100"), Decimal("69.99")) and not prices_match(
        Decimal("100"), Decimal("130.01")
    )
    assert prices_match(None, None)
    assert not prices_match(None, Decimal("100")) and not prices_match(Decimal("100"), None)


def test_a_page_is_matched_in_one_query(django_assert_num_queries):
    now = timezone.now()
    for n in range(50):
        make_ad(
            title=f"Gone bike {n}",
            postcode="1010",
            price=Decimal("100"),
            gone_at=now - timedelta(days=1),
            seller_id="7",
        )
    page = [
        ParsedAd(
            external_id=f"x{n}",
            title=f"gone BIKE {n}!",
            price=Decimal("110"),
            url="https://x",
            postcode="1010",
            seller_id="7",
        )
        for n in range(200)
    ]
    with django_assert_num_queries(1):
        matches = Ad.objects.match_new_ads("willhaben", page, now)
    assert len(matches) == 50 and matches["x7"].title == "Gone bike 7"
