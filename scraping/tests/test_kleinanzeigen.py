"""Kleinanzeigen end to end over real HTTP: the fake site, the scrape task, ingest, the admin
form."""

from datetime import datetime
from decimal import Decimal
from io import StringIO

import pytest
import time_machine
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from notifications.messages import render
from notifications.models import Notification
from scraping.claims import claim_due_keywords
from scraping.models import ScrapeRun
from scraping.scrape import scrape_keyword
from scraping.sources import registry
from scraping.sources.kleinanzeigen_values import BERLIN
from scraping.tasks import run_scrape
from tests.factories import keyword_form, make_chat, make_keyword, make_subscription
from tests.fakes.kleinanzeigen_factory import make_card, make_cards
from tests.fakes.willhaben_factory import make_raw_ads
from tracker.models import Ad, Keyword, PriceChange

pytestmark = pytest.mark.django_db

# Noon in Berlin: the fake's cards say "Heute, 23:59" and down, read on this day.
NOON = "2026-07-23T10:00:00Z"
DUESSELDORF = "https://www.kleinanzeigen.de/s-duesseldorf/preis::1500/wohnung/k0l2068r10"


@pytest.fixture(autouse=True)
def _clock():
    with time_machine.travel(NOON, tick=True):
        yield


def kleinanzeigen_keyword(**kw):
    return make_keyword(query="wohnung", source="kleinanzeigen", interval_minutes=10, **kw)


def test_a_keyword_stores_the_page_and_a_second_run_records_nothing_new(kleinanzeigen_server):
    kleinanzeigen_server.cards = make_cards(5)
    keyword = kleinanzeigen_keyword()
    first = scrape_keyword(keyword)
    assert (first.status, first.counts.ads_seen, first.counts.ads_new) == ("done", 5, 5)
    assert Ad.objects.filter(source="kleinanzeigen").count() == 5
    assert kleinanzeigen_server.search_requests()[0].path == "/s-wohnung/k0"
    keyword.refresh_from_db()
    second = scrape_keyword(keyword)
    assert (second.status, second.counts.ads_seen, second.counts.ads_new) == ("done", 5, 0)
    assert second.counts.price_changes == 0
    assert Ad.objects.count() == 5


def test_a_reduced_card_records_its_old_price_and_the_first_message_says_so(
    kleinanzeigen_server, settings
):
    settings.NOTIFY_ON_FIRST_RUN = True
    card = make_card(price="285.000 €", old_price="319.000 €")
    kleinanzeigen_server.cards = [card]
    keyword = kleinanzeigen_keyword()
    sub = make_subscription(keyword=keyword)
    scrape_keyword(keyword)
    ad = Ad.objects.get(external_id=card.ad_id)
    assert ad.price == Decimal("285000")
    change = PriceChange.objects.get(ad=ad)
    assert (change.old_price, change.new_price) == (Decimal("319000"), Decimal("285000"))
    note = Notification.objects.get(chat=sub.chat, ad=ad)
    assert (note.kind, note.old_price) == ("new", Decimal("319000"))
    text = render(note).plain
    assert "vorher € 319.000 → jetzt € 285.000" in text
    assert "🔎 wohnung · kleinanzeigen.de" in text


def test_a_later_drop_of_a_known_ad_is_a_price_drop(kleinanzeigen_server):
    card = make_card(price="1.224 €")
    kleinanzeigen_server.cards = [card]
    keyword = kleinanzeigen_keyword()
    scrape_keyword(keyword)
    card.price, card.old_price = "1.100 €", "1.224 €"
    keyword.refresh_from_db()
    outcome = scrape_keyword(keyword)
    assert (outcome.counts.price_drops, outcome.counts.price_changes) == (1, 1)
    assert PriceChange.objects.get().old_price == Decimal("1224")


def test_a_top_ad_neither_moves_the_cursor_nor_stops_pagination(kleinanzeigen_server, settings):
    settings.SCRAPE_MAX_PAGES = 3
    kleinanzeigen_server.cards = make_cards(60, hour=21)  # 21:59 down to 21:00
    # A top ad on every page, shown with a later date than every regular ad.
    kleinanzeigen_server.top_cards = [make_card(top=True, date="Heute, 23:59")]
    keyword = kleinanzeigen_keyword()
    scrape_keyword(keyword)
    keyword.refresh_from_db()
    assert keyword.cursor_published_at == datetime(2026, 7, 23, 21, 59, tzinfo=BERLIN)
    # 30 new ads above the known ones: page 1 holds 25 of them, page 2 the other 5.
    kleinanzeigen_server.cards = make_cards(30, hour=22) + kleinanzeigen_server.cards
    kleinanzeigen_server.requests.clear()
    outcome = scrape_keyword(keyword)
    assert [r.page for r in kleinanzeigen_server.search_requests()] == [1, 2]
    assert outcome.counts.ads_new == 30


def test_pagination_stops_at_the_page_cap(kleinanzeigen_server, settings):
    settings.SCRAPE_MAX_PAGES = 2
    kleinanzeigen_server.cards = make_cards(80)
    outcome = scrape_keyword(kleinanzeigen_keyword())
    assert outcome.counts.pages == 2
    assert [r.path for r in kleinanzeigen_server.search_requests()] == [
        "/s-wohnung/k0",
        "/s-seite:2/wohnung/k0",
    ]


def test_a_sweep_reads_to_the_last_page_and_marks_unseen_ads_gone(kleinanzeigen_server, settings):
    settings.SCRAPE_SWEEP_MAX_PAGES = 5
    settings.SCRAPE_MAX_PAGES = 3
    kleinanzeigen_server.cards = make_cards(60)
    keyword = kleinanzeigen_keyword()
    scrape_keyword(keyword)
    kleinanzeigen_server.cards = kleinanzeigen_server.cards[:55]  # five ads sold meanwhile
    kleinanzeigen_server.requests.clear()
    keyword.refresh_from_db()
    outcome = scrape_keyword(keyword, sweep=True)
    assert [r.page for r in kleinanzeigen_server.search_requests()] == [1, 2, 3]
    assert outcome.counts.extra["gone"] == 5


def test_an_empty_result_page_is_done_with_zero_ads(kleinanzeigen_server):
    outcome = scrape_keyword(kleinanzeigen_keyword())
    assert (outcome.status, outcome.counts.ads_seen, outcome.counts.pages) == ("done", 0, 1)


def test_a_protection_page_is_banned_with_one_admin_alert(kleinanzeigen_server, settings):
    settings.SCHEDULER_JITTER_S = 0
    admin = make_chat(is_admin=True)
    kleinanzeigen_server.mode = "challenge"
    kleinanzeigen_keyword()
    [run] = claim_due_keywords()
    assert run_scrape(run.pk) == "banned"
    run.refresh_from_db()
    assert (run.status, run.error, run.source) == ("banned", "challenge", "kleinanzeigen")
    alerts = Notification.objects.filter(chat=admin, kind=Notification.Kind.ALERT)
    assert alerts.count() == 1


@pytest.mark.parametrize("status", [403, 429])
def test_403_and_429_are_banned(kleinanzeigen_server, settings, status):
    settings.HTTP_RETRIES = 0
    kleinanzeigen_server.fail_next(status=status)
    outcome = scrape_keyword(kleinanzeigen_keyword())
    assert (outcome.status, outcome.error) == ("banned", f"http_{status}")


def test_a_page_that_is_no_result_page_fails_as_parse_error(kleinanzeigen_server):
    kleinanzeigen_server.mode = "garbage"
    outcome = scrape_keyword(kleinanzeigen_keyword())
    assert (outcome.status, outcome.error) == ("failed", "parse_error")


def test_the_scrape_command_and_the_claims_run_both_sources_side_by_side(
    kleinanzeigen_server, willhaben_server, settings
):
    settings.SCHEDULER_JITTER_S = 0
    kleinanzeigen_server.cards = make_cards(4)
    willhaben_server.set_ads(make_raw_ads(3, newest=timezone.now()))
    ka = kleinanzeigen_keyword()
    wh = make_keyword(query="lampe", source="willhaben")
    runs = claim_due_keywords()
    assert {run.source for run in runs} == {"kleinanzeigen", "willhaben"}
    for run in runs:
        assert run_scrape(run.pk) == "done"
    assert Ad.objects.filter(source="kleinanzeigen").count() == 4
    assert Ad.objects.filter(source="willhaben").count() == 3
    call_command("scrape", str(ka.pk), verbosity=0)
    call_command("scrape", str(wh.pk), verbosity=0)
    assert ScrapeRun.objects.filter(keyword=ka, status="done").count() == 2
    assert ScrapeRun.objects.filter(keyword=wh, status="done").count() == 2
    out = StringIO()
    call_command("scrape", "wohnung", "--source", "kleinanzeigen", stdout=out)
    assert "1 page(s), 4 ads" in out.getvalue()


ADD = reverse("admin:tracker_keyword_add")


def _post(client, **changes):
    data = keyword_form(query="wohnung", source="kleinanzeigen", interval_minutes="10")
    return client.post(ADD, {**data, **changes})


def test_the_form_refuses_an_interval_below_the_sources_minimum(
    kleinanzeigen_server, admin_client, english
):
    response = _post(admin_client, interval_minutes="5")
    assert "allows an interval of 10 minutes or more" in response.content.decode()
    assert not Keyword.objects.exists()


def test_a_pasted_urls_price_filter_fills_the_keywords_price_fields(
    kleinanzeigen_server, admin_client
):
    response = _post(admin_client, query=DUESSELDORF)
    assert response.status_code == 302
    keyword = Keyword.objects.get()
    assert keyword.name == "wohnung · Duesseldorf · bis € 1.500"
    # The URL's price filter is in the keyword's own fields: shown, and applied by Lago too.
    assert (keyword.price_min, keyword.price_max) == (None, Decimal("1500"))


def test_the_form_refuses_a_url_that_is_no_search(kleinanzeigen_server, admin_client, english):
    response = _post(admin_client, query="https://www.kleinanzeigen.de/s-anzeige/x/33-203-2081")
    assert "cannot search this: not a search page" in response.content.decode()
    assert not Keyword.objects.exists()


def test_only_enabled_sources_are_offered(settings, admin_client, english):
    settings.SCRAPE_SOURCES = ["willhaben"]
    assert [slug for slug, _label in registry.choices()] == ["willhaben"]
    response = _post(admin_client)
    assert (
        "Unknown source kleinanzeigen: choose one the registry knows and SCRAPE_SOURCES enables "
        "(willhaben)." in response.content.decode()
    )
    settings.SCRAPE_SOURCES = ["willhaben", "kleinanzeigen"]
    assert [slug for slug, _label in registry.choices()] == ["willhaben", "kleinanzeigen"]
    # Filters show every registered source, enabled or not.
    assert [slug for slug, _label in registry.all_choices()] == ["willhaben", "kleinanzeigen"]
