"""Keyword admin: columns, filters, actions (run now, pause/resume, reset cursor) and validation
messages."""

import datetime as dt
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.urls import reverse
from django.utils import timezone
from django_q.models import OrmQ

from scraping.models import ScrapeRun
from tests.factories import keyword_form, make_ad, make_keyword, make_subscription
from tracker.models import Keyword, KeywordAd

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("english")]

CHANGELIST = reverse("admin:tracker_keyword_changelist")
ADD = reverse("admin:tracker_keyword_add")


def act(client, action, *keywords, **extra):
    data = {"action": action, ACTION_CHECKBOX_NAME: [k.pk for k in keywords], **extra}
    return client.post(CHANGELIST, data, follow=True)


def test_list_shows_last_run_badge_counts_and_alert(admin_client):
    kw = make_keyword(query="rtx 3080", zero_result_alert_at=timezone.now())
    ScrapeRun.objects.create(keyword=kw, source="willhaben", status="done", ads_seen=7, ads_new=2)
    KeywordAd.objects.create(keyword=kw, ad=make_ad())
    KeywordAd.objects.create(
        keyword=kw, ad=make_ad(), found_at=timezone.now() - dt.timedelta(days=2)
    )
    make_subscription(keyword=kw)
    row = admin_client.get(CHANGELIST).content.decode()
    assert '<span class="lago-badge lago-green">done</span>' in row
    assert "7 seen / 2 new" in row
    assert f'<a href="/admin/tracker/ad/?keywords__id__exact={kw.pk}">2</a>' in row
    assert "+1 in 24 h" in row
    assert '<td class="field-subscribers">1</td>' in row
    assert "zero results since" in row


def test_list_fits_a_laptop_in_five_columns(admin_client):
    """Name, source, interval, pause and alert share one column; ads found in all and in 24 h
    another (issue 18)."""
    kw = make_keyword(
        name="Mietwohnungen Wien · bis € 1.100",
        query="wohnung",
        interval_minutes=15,
        is_active=False,
    )
    ScrapeRun.objects.create(keyword=kw, source="willhaben", status="failed", error="bad_response")
    response = admin_client.get(CHANGELIST)
    assert response.context["cl"].list_display == [
        "action_checkbox",
        "keyword",
        "last_run",
        "next_run",
        "ads_found",
        "subscribers",
    ]
    row = response.content.decode()
    assert '<span class="lago-kw-name">Mietwohnungen Wien · bis € 1.100</span>' in row
    assert f"#{kw.pk} · willhaben · every 15 min · paused" in row
    assert '<span class="lago-badge lago-red">failed</span>' in row and "bad_response" in row


@pytest.mark.parametrize(
    "params,expected",
    [
        ({"last_status": "failed"}, {"failing"}),
        ({"last_status": "never"}, {"fresh"}),
        ({"alert": "yes"}, {"alerting"}),
    ],
)
def test_filters(admin_client, params, expected):
    failing = make_keyword(query="failing")
    make_keyword(query="fresh")
    make_keyword(query="alerting", zero_result_alert_at=timezone.now())
    ScrapeRun.objects.create(
        keyword=failing,
        source="willhaben",
        status="done",
        started_at=timezone.now() - dt.timedelta(hours=1),
    )
    ScrapeRun.objects.create(keyword=failing, source="willhaben", status="failed")
    ScrapeRun.objects.create(
        keyword=Keyword.objects.get(query="alerting"), source="willhaben", status="done"
    )
    response = admin_client.get(CHANGELIST, params)
    assert {k.query for k in response.context["cl"].result_list} == expected


def test_run_now_records_a_running_run_and_enqueues_it(admin_client):
    kw = make_keyword(next_run_at=timezone.now() + dt.timedelta(hours=1))
    response = act(admin_client, "run_now", kw)
    run = ScrapeRun.objects.get(keyword=kw)
    assert run.status == ScrapeRun.Status.RUNNING
    assert f"enqueued as scrape run {run.pk}" in response.content.decode()
    assert OrmQ.objects.count() == 1


def test_run_now_while_running_tells_the_operator_and_records_the_skip(admin_client):
    kw = make_keyword()
    ScrapeRun.objects.create(keyword=kw, source="willhaben")
    response = act(admin_client, "run_now", kw)
    assert "not started: the previous run of this keyword was still running" in (
        response.content.decode()
    )
    assert ScrapeRun.objects.filter(keyword=kw, status="skipped", error="already_running").exists()
    assert OrmQ.objects.count() == 0


def test_pause_and_resume(admin_client):
    kw = make_keyword(next_run_at=timezone.now() + dt.timedelta(hours=1))
    act(admin_client, "pause", kw)
    kw.refresh_from_db()
    assert not kw.is_active
    act(admin_client, "resume", kw)
    kw.refresh_from_db()
    assert kw.is_active and kw.next_run_at <= timezone.now()


def test_reset_cursor_asks_first_then_resets(admin_client):
    kw = make_keyword(query="lego 42100", cursor_published_at=timezone.now(), cursor_ad_id="123")
    confirm = act(admin_client, "reset_cursor", kw)
    assert (
        "Yes, reset the cursor" in confirm.content.decode()
        and "lego 42100" in confirm.content.decode()
    )
    kw.refresh_from_db()
    assert kw.cursor_ad_id == "123"
    done = act(admin_client, "reset_cursor", kw, confirm="yes")
    assert "Cursor reset for 1 keyword." in done.content.decode()
    kw.refresh_from_db()
    assert kw.cursor_ad_id == "" and kw.cursor_published_at is None


@pytest.mark.parametrize(
    "changes,message",
    [
        ({"interval_minutes": "0"}, "The interval must be at least 1 minute."),
        (
            {"price_min": "500", "price_max": "100"},
            "The maximum price must not be below the minimum price.",
        ),
        (
            {"source": "ebay"},
            "Unknown source ebay: choose one the registry knows and SCRAPE_SOURCES enables "
            "(willhaben).",
        ),
    ],
)
def test_add_form_explains_invalid_input(admin_client, changes, message):
    response = admin_client.post(ADD, keyword_form(**changes))
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Keyword.objects.exists()


def test_add_form_accepts_valid_input(admin_client):
    response = admin_client.post(ADD, keyword_form())
    assert response.status_code == 302
    assert Keyword.objects.get().query == "rtx 3080"


def test_a_duplicate_search_is_refused_with_a_link_to_the_existing_keyword(admin_client):
    """Same source, same query up to case and spacing: refused, naming the keyword it repeats."""
    first = make_keyword(name="Fahrrad Wien", query="fahrrad  rot")
    response = admin_client.post(ADD, keyword_form(query=" Fahrrad Rot "))
    assert response.status_code == 200
    page = response.content.decode()
    change = reverse("admin:tracker_keyword_change", args=[first.pk])
    assert f'This search exists already: <a href="{change}">Fahrrad Wien</a> (#{first.pk}).' in page
    assert Keyword.objects.count() == 1


def test_a_keyword_saved_again_is_not_its_own_duplicate(admin_client):
    kw = make_keyword(query="rtx 3080")
    change = reverse("admin:tracker_keyword_change", args=[kw.pk])
    response = admin_client.post(change, keyword_form(query="RTX 3080", name="Grafikkarte"))
    assert response.status_code == 302
    kw.refresh_from_db()
    assert (kw.query, kw.name) == ("RTX 3080", "Grafikkarte")


def test_an_overdue_next_run_says_so(admin_client, settings):
    """A next run whose time has passed reads "overdue since 18:58", not a bare past time."""
    settings.LANGUAGE_CODE = "de"
    vienna = ZoneInfo("Europe/Vienna")
    with time_machine.travel(dt.datetime(2026, 12, 4, 19, 5, tzinfo=vienna), tick=False):
        make_keyword(query="late", next_run_at=dt.datetime(2026, 12, 4, 18, 58, tzinfo=vienna))
        make_keyword(query="soon", next_run_at=dt.datetime(2026, 12, 4, 19, 10, tzinfo=vienna))
        html = admin_client.get(CHANGELIST).content.decode()
    assert "überfällig seit 18:58" in html
    assert '<span class="lago-nowrap">19:10</span>' in html
    assert "überfällig seit 19:10" not in html
