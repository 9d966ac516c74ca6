"""The German admin and bot have no English or raw-number leftovers: app headings, the keyword
page's labels, badges and counts, prices in the one price format, durations in the locale."""

import datetime as dt
from decimal import Decimal

import pytest
from django.apps import apps
from django.urls import reverse
from django.utils import timezone, translation

from lib.money import parse_euro
from notifications.bot.durations import describe
from scraping.models import ScrapeRun
from tests.factories import keyword_form, make_ad, make_keyword, make_notification
from tracker.models import Keyword, KeywordAd

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "label,german",
    [
        ("tracker", "Suchen und Anzeigen"),
        ("notifications", "Benachrichtigungen"),
        ("scraping", "Abfragen"),
        ("operations", "Betrieb"),
        ("django_q", "Aufgabenwarteschlange"),
    ],
)
def test_app_headings_are_german(admin_client, label, german):
    with translation.override("de-at"):
        assert str(apps.get_app_config(label).verbose_name) == german
    if label != "operations":  # no models, so no admin page of its own
        html = admin_client.get(reverse("admin:app_list", args=[label])).content.decode()
        assert german in html


def test_keyword_page_speaks_german(admin_client):
    keyword = make_keyword(query="lego")
    started = timezone.now() - dt.timedelta(minutes=5)
    for status in ("done", "banned"):
        ScrapeRun.objects.create(keyword=keyword, source="willhaben", status=status)
    KeywordAd.objects.create(keyword=keyword, ad=make_ad(), found_at=started)
    html = admin_client.get(
        reverse("admin:tracker_keyword_change", args=[keyword.pk])
    ).content.decode()
    assert ">Source:<" not in html and ">Quelle:<" in html
    assert ">done<" not in html and ">banned<" not in html
    assert ">fertig<" in html or ">erledigt<" in html
    assert "1 Anzeige: in der Anzeigenliste zeigen" in html


def test_keyword_form_errors_are_german(admin_client):
    add = reverse("admin:tracker_keyword_add")
    html = admin_client.post(add, keyword_form(source="nowhere")).content.decode()
    assert "Unbekannte Quelle nowhere" in html and "Unknown source" not in html
    html = admin_client.post(add, keyword_form(price_max="-1")).content.decode()
    assert "Ein Preis kann nicht negativ sein." in html


def test_keyword_prices_in_the_one_price_format(admin_client):
    keyword = make_keyword(query="rennrad", price_max=Decimal("2000.00"))
    change = reverse("admin:tracker_keyword_change", args=[keyword.pk])
    html = admin_client.get(change).content.decode()
    assert 'value="€ 2.000"' in html and "2000.00" not in html
    response = admin_client.post(
        change, keyword_form(query="rennrad", price_min="1.234,50", price_max="€ 2.500")
    )
    assert response.status_code == 302
    keyword = Keyword.objects.get(pk=keyword.pk)
    assert (keyword.price_min, keyword.price_max) == (Decimal("1234.50"), Decimal("2500"))


def test_a_price_that_is_no_amount_is_refused(admin_client):
    html = admin_client.post(
        reverse("admin:tracker_keyword_add"), keyword_form(price_max="zweitausend")
    ).content.decode()
    assert "Bitte eine Zahl eingeben." in html
    assert not Keyword.objects.exists()


@pytest.mark.parametrize(
    "text,amount",
    [
        ("€ 2.000", Decimal("2000")),
        ("2.000", Decimal("2000")),
        ("1.234,50", Decimal("1234.50")),
        ("2000.00", Decimal("2000")),
        ("12.5", Decimal("12.5")),
        ("-5", Decimal("-5")),
    ],
)
def test_parse_euro_reads_austrian_notation(text, amount):
    assert parse_euro(text) == amount


@pytest.mark.parametrize("text", ["", "zwei", "1.23.4", "1.2345", "2,000,00", "--5"])
def test_parse_euro_refuses_what_is_no_amount(text):
    with pytest.raises(ValueError):
        parse_euro(text)


def test_notification_list_shows_prices_with_euro(admin_client):
    make_notification(ad=make_ad(price=Decimal("1700")), price=Decimal("1700"))
    html = admin_client.get(reverse("admin:notifications_notification_changelist")).content.decode()
    assert "€ 1.700" in html and "1700,00" not in html


def test_run_duration_in_german_notation(admin_client):
    started = timezone.now() - dt.timedelta(seconds=30)
    run = ScrapeRun.objects.create(
        keyword=make_keyword(),
        source="willhaben",
        status="done",
        started_at=started,
        finished_at=started + dt.timedelta(seconds=0.4),
    )
    html = admin_client.get(reverse("admin:scraping_scraperun_changelist")).content.decode()
    assert "0,4 s" in html and "0.4 s" not in html
    html = admin_client.get(
        reverse("admin:scraping_scraperun_change", args=[run.pk])
    ).content.decode()
    assert "0,4 s" in html


@pytest.mark.parametrize(
    "delta,german",
    [
        (dt.timedelta(minutes=30), "30 Min."),
        (dt.timedelta(hours=1), "1 Std."),
        (dt.timedelta(minutes=90), "1 Std. 30 Min."),
        (dt.timedelta(days=1), "1 Tag"),
        (dt.timedelta(days=9), "1 Woche 2 Tage"),
    ],
)
def test_bot_durations_in_german(delta, german):
    with translation.override("de"):
        assert describe(delta) == german
