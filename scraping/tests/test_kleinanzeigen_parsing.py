"""Reading Kleinanzeigen: the recorded search page, the card values, the queries."""

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from scraping.errors import BadQuery, FetchError, ParseError
from scraping.sources.fit import BadAd
from scraping.sources.kleinanzeigen import KleinanzeigenSource, build_query, parse_page
from scraping.sources.kleinanzeigen_values import BERLIN, place, price, published
from tests.fakes.kleinanzeigen_factory import (
    CHALLENGE_PAGE,
    empty_page,
    make_card,
    make_cards,
    result_page,
)
from tests.paths import kleinanzeigen_fixture

NOW = datetime(2026, 7, 23, 10, 0, tzinfo=UTC)  # 12:00 in Berlin

# (id, title start, price) of the recorded page's cards, in page order.
RECORDED = [
    ("3383513117", "16 Neubauwohnungen in Kroatien", Decimal("241668")),
    ("3219439455", "Möbeltransport Umzüge Lastentaxi", None),
    ("3375067711", "Charmante und sanierte Altbauwohnung", Decimal("1224")),
    ("3334570757", "Charmantes Altbauflair", Decimal("215000")),
    ("2885401205", "Saniert und Provisionsfrei", Decimal("219900")),
    ("3387390010", "6 Neubauwohnungen in Kroatien", Decimal("168900")),
    ("3274342532", "Exklusive Dachgeschosswohnung", Decimal("349000")),
    ("3388159828", "Ruhige, zuverlässige Studentin", None),
    ("3274342739", "Über den Dächern Düsseltals", Decimal("739000")),
    ("3373997926", "Großzügiges Penthouse", Decimal("1190000")),
    ("3372882103", "Hochwertige Maisonettewohnung", Decimal("559000")),
    ("3332970463", "Urbanes Wohngefühl", Decimal("440000")),
    ("3360275856", "Top Kapitalanlage!", Decimal("595000")),
    ("3388148510", "***Exklusive Maisionettenwohnung", Decimal("2500")),
    ("3329982293", "Objekt Nr. 493", Decimal("264000")),
    ("3302818644", "3 Zimmer Wohnung mit Wohnküche", Decimal("1030")),
    ("3385025499", "**Exklusives Mehrfamilienhaus", Decimal("1250000")),
    ("3306869000", "Gepflegtes Mehrfamilienhaus", Decimal("5950000")),
    ("3306346983", "Harmonische 4-Zimmer-Wohnung", Decimal("1950")),
    ("3388135939", "Sanierte Altbauwohnung 2 Zimmer", Decimal("1050")),
    ("3167587918", "Einzigartiges Einfamilienhaus", Decimal("1200000")),
    ("3383938642", "Moderne Eigentumswohnung", Decimal("199000")),
    ("3370230512", "Leben am Rheinufer", Decimal("650000")),
    ("3300253319", "Gepflegtes Dreifamilienhaus", Decimal("980000")),
    ("3318487196", "Charme der 30er-Jahre", Decimal("230000")),
    ("3388134054", "2 Zimmer Dachgeschosswohnung", Decimal("575")),
    ("3318271760", "Zentrale 3-Zimmer-Wohnung", Decimal("179000")),
]


@pytest.fixture
def recorded():
    return parse_page(kleinanzeigen_fixture().read_bytes(), number=1, now=NOW)


def test_the_recorded_page_parses_to_all_27_cards(recorded):
    assert [a.external_id for a in recorded.ads] == [i for i, _t, _p in RECORDED]
    assert [a.price for a in recorded.ads] == [p for _i, _t, p in RECORDED]
    for ad, (_i, title, _p) in zip(recorded.ads, RECORDED, strict=True):
        assert ad.title.startswith(title)
    assert recorded.extra.get("bad_ads") is None
    assert (recorded.rows_found, recorded.is_last) == (1231, False)


def test_the_recorded_page_gives_absolute_urls_places_images_and_top_ads(recorded):
    first, regular = recorded.ads[0], recorded.ads[2]
    assert regular.url == (
        "https://www.kleinanzeigen.de/s-anzeige/"
        "charmante-und-sanierte-altbauwohnung-mit-viel-licht/3375067711-203-2081"
    )
    assert (regular.postcode, regular.location) == ("40479", "Pempelfort")
    assert regular.image_url.startswith("https://img.kleinanzeigen.de/api/v1/prod-ads/images/d3/")
    assert [a.is_top for a in recorded.ads] == [True, True] + [False] * 25
    assert (first.postcode, first.location) == ("40212", "Stadtmitte")
    # "50226 Frechen + 200 km · Kommt zu dir (ca. 5 km)": the service radius is not the place.
    assert (recorded.ads[1].postcode, recorded.ads[1].location) == ("50226", "Frechen")
    assert recorded.ads[1].negotiable and recorded.ads[1].price is None


@pytest.mark.parametrize(
    "text, amount, negotiable, old",
    [
        ("1.224 €", Decimal("1224"), False, None),
        ("569 € VB", Decimal("569"), True, None),
        ("VB", None, True, None),
        ("Zu verschenken", Decimal("0"), False, None),
        ("", None, False, None),
        ("285.000 € 319.000 €", Decimal("285000"), False, Decimal("319000")),
        ("12,50 €", Decimal("12.50"), False, None),
    ],
)
def test_prices_as_the_site_prints_them(text, amount, negotiable, old):
    value = price(text)
    assert (value.amount, value.negotiable, value.old_amount) == (amount, negotiable, old)


def test_a_price_text_that_is_no_price_is_a_bad_ad():
    with pytest.raises(BadAd, match="is not a price"):
        price("auf Anfrage bitte")


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Heute, 14:05", datetime(2026, 7, 23, 14, 5, tzinfo=BERLIN)),
        ("Gestern, 09:12", datetime(2026, 7, 22, 9, 12, tzinfo=BERLIN)),
        ("Gestern", datetime(2026, 7, 22, 0, 0, tzinfo=BERLIN)),
        ("21.07.2026", datetime(2026, 7, 21, 0, 0, tzinfo=BERLIN)),
        ("", None),
    ],
)
def test_dates_are_read_in_berlin_time(text, expected):
    assert published(text, NOW) == expected


def test_today_is_berlins_day_not_utcs():
    # 23:30 UTC on the 22nd is already the 23rd in Berlin.
    late = datetime(2026, 7, 22, 23, 30, tzinfo=UTC)
    assert published("Heute, 01:10", late) == datetime(2026, 7, 23, 1, 10, tzinfo=BERLIN)


def test_place_drops_the_distance():
    assert place(" 40229 Eller (ca. 5 km) ") == ("40229", "Eller")
    assert place("Berlin") == ("", "Berlin")


def test_one_unreadable_card_is_skipped_and_counted_not_the_page():
    cards = [*make_cards(2), make_card(price="ganz billig"), make_card(date="irgendwann")]
    page = parse_page(result_page(cards), number=1, now=NOW)
    assert len(page.ads) == 2
    assert len(page.extra["bad_ads"]) == 2
    assert "is not a price" in page.extra["bad_ads"][0]


def test_a_card_without_an_id_is_skipped():
    broken = make_card(raw='<li><article class="aditem" data-href="/s-anzeige/x/1"></article></li>')
    page = parse_page(result_page([*make_cards(1), broken]), number=1, now=NOW)
    assert len(page.ads) == 1 and len(page.extra["bad_ads"]) == 1


def test_an_empty_result_page_is_zero_ads():
    page = parse_page(empty_page(), number=1, now=NOW)
    assert (page.ads, page.is_last) == ([], True)


def test_a_protection_page_is_banned():
    with pytest.raises(FetchError) as caught:
        parse_page(CHALLENGE_PAGE, number=1, now=NOW)
    assert caught.value.banned and caught.value.slug == "challenge"


def test_a_page_with_neither_cards_nor_no_results_text_is_a_parse_error():
    with pytest.raises(ParseError, match="neither result cards"):
        parse_page(b"<html><body><p>Wartungsarbeiten</p></body></html>", number=1, now=NOW)


def test_top_ads_never_stop_paging_at_the_cursor():
    cursor = (datetime(2026, 7, 23, 11, 0, tzinfo=BERLIN), "1")
    old_top = make_card(top=True, date="01.01.2026")
    page = parse_page(
        result_page([old_top, *make_cards(3, hour=13)]), number=1, now=NOW, cursor=cursor
    )
    assert not page.reached_cursor
    page = parse_page(
        result_page([old_top, *make_cards(3, hour=10)]), number=1, now=NOW, cursor=cursor
    )
    assert page.reached_cursor


@pytest.mark.parametrize(
    "query, path",
    [
        ("wohnung", "/s-wohnung/k0"),
        ("  rtx 3080 ", "/s-rtx-3080/k0"),
        ("küche preis:1", "/s-k%C3%BCche-preis-1/k0"),
        (
            "https://www.kleinanzeigen.de/s-immobilien/duesseldorf/anzeige:angebote/seite:2/wohnung/k0c195l2068r5",
            "/s-immobilien/duesseldorf/anzeige:angebote/wohnung/k0c195l2068",
        ),
        (
            "https://www.kleinanzeigen.de/s-duesseldorf/preis::1500/sortierung:preis/wohnung/k0l2068",
            "/s-duesseldorf/preis::1500/wohnung/k0l2068",
        ),
        ("https://www.kleinanzeigen.de/s-wohnung-mieten/c203", "/s-wohnung-mieten/c203"),
    ],
)
def test_queries_become_search_paths(query, path):
    assert build_query(query).path() == path


def test_page_two_and_the_price_range_are_path_segments():
    search = build_query("wohnung").narrowed(Decimal("100.5"), Decimal("900.2"))
    assert search.path(2) == "/s-preis:100:901/seite:2/wohnung/k0"


@pytest.mark.parametrize(
    "url, message",
    [
        ("https://www.willhaben.at/iad/s-wohnung/k0", "not a kleinanzeigen.de URL"),
        ("https://www.kleinanzeigen.de/s-anzeige/x/3375067711-203-2081", "not a search page"),
        ("https://www.kleinanzeigen.de/m-meine-anzeigen.html", "not a search page"),
        ("https://www.kleinanzeigen.de/s-zimmer:3/wohnung/k0", "a filter Lago cannot keep"),
        ("https://www.kleinanzeigen.de/s-wohnung/xyz", "must end in a search code"),
    ],
)
def test_only_search_pages_are_accepted(url, message):
    with pytest.raises(BadQuery, match=message):
        KleinanzeigenSource().validate_query(url)


def test_names_read_like_the_search():
    source = KleinanzeigenSource()
    url = "https://www.kleinanzeigen.de/s-duesseldorf/preis::1500/wohnung/k0l2068r10"
    assert source.describe(url) == "wohnung · Duesseldorf · bis € 1.500"
    assert source.describe("e-bike", price_max=Decimal(1000)) == "e-bike · bis € 1.000"
    # The keyword's bound narrows the URL's.
    assert source.describe(url, price_max=Decimal(900)) == "wohnung · Duesseldorf · bis € 900"
