"""The keyword's page: a *Run now* button (POST, CSRF, change permission), its last runs and the
ads it found."""

import datetime as dt

import pytest
from django.contrib.auth.models import Permission
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone, translation
from django_q.models import OrmQ

from scraping.models import ScrapeRun
from tests.factories import keyword_form, make_ad, make_keyword
from tests.fakes.willhaben_factory import make_raw_ads
from tracker.models import Ad, Keyword, KeywordAd

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("english")]


def page_url(kw):
    return reverse("admin:tracker_keyword_change", args=[kw.pk])


def run_now_url(kw):
    return reverse("admin:tracker_keyword_run_now", args=[kw.pk])


def test_page_has_a_run_now_button_posting_with_csrf(admin_client):
    kw = make_keyword()
    html = admin_client.get(page_url(kw)).content.decode()
    form = html[html.index('<form method="post" action="' + run_now_url(kw)) :]
    form = form[: form.index("</form>")]
    assert 'name="csrfmiddlewaretoken"' in form and "Run now" in form


def test_run_now_button_starts_a_run_and_comes_back_with_a_message(admin_client):
    kw = make_keyword(next_run_at=timezone.now() + dt.timedelta(hours=1))
    response = admin_client.post(run_now_url(kw))
    assert response.status_code == 302 and response.url == page_url(kw)
    run = ScrapeRun.objects.get(keyword=kw)
    assert run.status == ScrapeRun.Status.RUNNING
    assert OrmQ.objects.count() == 1
    assert f"enqueued as scrape run {run.pk}" in admin_client.get(response.url).content.decode()


def test_a_run_now_run_is_recorded_and_shown_as_manual(admin_client):
    kw = make_keyword(next_run_at=timezone.now() + dt.timedelta(hours=1))
    admin_client.post(run_now_url(kw))
    assert ScrapeRun.objects.get(keyword=kw).kind == ScrapeRun.Kind.MANUAL
    html = admin_client.get(page_url(kw)).content.decode()
    assert "<td>manual</td>" in html and "<td>scheduled</td>" not in html
    with translation.override("de"):
        assert str(ScrapeRun.Kind.MANUAL.label) == "manuell"


def test_run_now_button_while_running_says_why_not(admin_client):
    kw = make_keyword()
    ScrapeRun.objects.create(keyword=kw, source="willhaben")
    response = admin_client.post(run_now_url(kw), follow=True)
    assert "not started: the previous run of this keyword was still running" in (
        response.content.decode()
    )
    assert OrmQ.objects.count() == 0


def test_run_now_needs_post_and_a_csrf_token(admin_user):
    kw = make_keyword()
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin_user)
    assert client.get(run_now_url(kw)).status_code == 405
    assert client.post(run_now_url(kw)).status_code == 403
    assert not ScrapeRun.objects.exists()


def test_run_now_needs_the_change_permission(django_user_model):
    viewer = django_user_model.objects.create_user("viewer", password="x", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_keyword"))
    client = Client()
    client.force_login(viewer)
    kw = make_keyword()
    assert client.get(page_url(kw)).status_code == 200
    assert run_now_url(kw) not in client.get(page_url(kw)).content.decode()
    assert client.post(run_now_url(kw)).status_code == 403
    assert not ScrapeRun.objects.exists()


def test_page_lists_the_last_ten_runs_linked_to_their_pages(admin_client):
    kw = make_keyword()
    now = timezone.now()
    runs = [
        ScrapeRun.objects.create(
            keyword=kw,
            source="willhaben",
            status="failed",
            error=f"err_{i}",
            started_at=now - dt.timedelta(minutes=i),
            ads_seen=30,
        )
        for i in range(12)
    ]
    html = admin_client.get(page_url(kw)).content.decode()
    for run in runs[:10]:
        assert (
            reverse("admin:scraping_scraperun_change", args=[run.pk]) in html
            and f'<span title="{run.error}">unknown error “{run.error}”</span>' in html
        )
    for run in runs[10:]:
        assert f'title="{run.error}"' not in html
    assert '<span class="lago-badge lago-red">failed</span>' in html and "30 / 0" in html
    assert reverse("admin:scraping_scraperun_changelist") + f"?keyword__id__exact={kw.pk}" in html


def test_page_counts_the_ads_found_and_links_to_them(admin_client):
    kw = make_keyword()
    for _ in range(3):
        KeywordAd.objects.create(keyword=kw, ad=make_ad())
    KeywordAd.objects.create(keyword=make_keyword(), ad=make_ad())
    html = admin_client.get(page_url(kw)).content.decode()
    link = reverse("admin:tracker_ad_changelist") + f"?keywords__id__exact={kw.pk}"
    assert f'<a href="{link}">3 ads' in html
    listed = admin_client.get(link)
    assert listed.status_code == 200 and len(listed.context["cl"].result_list) == 3


def test_page_queries_do_not_grow_with_runs(admin_client):
    kw = make_keyword()

    def queries():
        with CaptureQueriesContext(connection) as ctx:
            assert admin_client.get(page_url(kw)).status_code == 200
        return len(ctx)

    ScrapeRun.objects.create(keyword=kw, source="willhaben", status="done")
    queries()  # the first request of a session also writes it
    few = queries()
    for i in range(30):
        ScrapeRun.objects.create(
            keyword=kw,
            source="willhaben",
            status="done",
            started_at=timezone.now() - dt.timedelta(hours=i + 1),
        )
    assert queries() == few


def test_add_page_has_no_run_section(admin_client):
    html = admin_client.get(reverse("admin:tracker_keyword_add")).content.decode()
    assert "last runs" not in html and "run-now" not in html


def search_url():
    return reverse("admin:tracker_keyword_test_search")


def test_test_search_shows_the_first_page_and_saves_nothing(admin_client, willhaben_server):
    willhaben_server.set_ads(make_raw_ads(40))
    add = admin_client.get(reverse("admin:tracker_keyword_add")).content.decode()
    assert f'formaction="{search_url()}"' in add and "Test search" in add
    html = admin_client.post(search_url(), keyword_form(query="rtx")).content.decode()
    assert html.count('target="_blank" rel="noopener noreferrer"') == 30  # one page
    assert "Nothing was saved" in html and "€ " in html
    assert not Keyword.objects.exists() and not Ad.objects.exists()
    assert not ScrapeRun.objects.exists()


def test_test_search_says_why_it_cannot_search(admin_client, willhaben_server):
    html = admin_client.post(
        search_url(), keyword_form(query="https://www.ebay.at/sch/i.html?_nkw=rtx")
    ).content.decode()
    assert "cannot search this: not a willhaben URL" in html
    assert admin_client.get(search_url()).status_code == 405


def test_test_search_speaks_german(admin_client, willhaben_server, settings):
    settings.LANGUAGE_CODE = "de"
    willhaben_server.set_ads(make_raw_ads(2))
    add = admin_client.get(reverse("admin:tracker_keyword_add")).content.decode()
    assert "Suche testen" in add
    html = admin_client.post(search_url(), keyword_form(query="rtx")).content.decode()
    assert "Nichts wurde gespeichert" in html


def test_test_search_explains_a_failing_source(admin_client, willhaben_server):
    willhaben_server.fail_next(503, times=20)
    html = admin_client.post(search_url(), keyword_form(query="rtx")).content.decode()
    assert 'class="errornote"' in html
    assert not ScrapeRun.objects.exists()


def shown_fields(response):
    """{field name: read-only?} of the fieldsets a keyword page shows."""
    adminform = response.context["adminform"]
    names = [name for _, options in adminform.fieldsets for name in options["fields"]]
    return {name: name in adminform.readonly_fields for name in names}


INTERNALS = {
    "next_run_at",
    "next_sweep_at",
    "last_run_at",
    "cursor_published_at",
    "cursor_ad_id",
    "zero_result_alert_at",
    "consecutive_failures",
    "last_finished_status",
    "last_error",
    "last_error_detail",
    "last_success_at",
    "failing_alert_at",
    "activity",
    "created_at",
    "updated_at",
}


def test_add_form_asks_only_for_the_operators_input(admin_client):
    response = admin_client.get(reverse("admin:tracker_keyword_add"))
    shown = shown_fields(response)
    assert set(shown) == {
        "name",
        "query",
        "source",
        "is_active",
        "interval_minutes",
        "price_min",
        "price_max",
        "excluded_words",
    }
    assert not any(shown.values())  # every one an input
    html = response.content.decode()
    assert not [name for name in INTERNALS if f'name="{name}' in html]  # no input either


def test_a_keyword_added_without_schedule_fields_is_due_at_the_next_tick(admin_client):
    before = timezone.now()
    response = admin_client.post(reverse("admin:tracker_keyword_add"), keyword_form(query="rtx"))
    assert response.status_code == 302
    keyword = Keyword.objects.get(query="rtx")
    assert keyword.next_run_at >= before and keyword.next_run_at <= timezone.now()
    assert keyword.cursor_published_at is None and keyword.cursor_ad_id == ""


def test_change_page_still_shows_schedule_and_cursor(admin_client):
    keyword = make_keyword(cursor_ad_id="123456789")
    response = admin_client.get(reverse("admin:tracker_keyword_change", args=[keyword.pk]))
    shown = shown_fields(response)
    assert shown["next_run_at"] is False  # the operator may move the next run
    for name in ["last_run_at", "cursor_published_at", "cursor_ad_id", "zero_result_alert_at"]:
        assert shown[name] is True, name
    assert {"activity", "created_at", "updated_at"} <= set(shown)
    assert "123456789" in response.content.decode()


def chart_url(kw):
    return reverse("admin:tracker_keyword_report_chart", args=[kw.pk])


def test_page_shows_the_market_chart_served_as_png(admin_client):
    kw = make_keyword()
    make_ad(price=100).matches.create(keyword=kw)
    html = admin_client.get(page_url(kw)).content.decode()
    assert f'<img src="{chart_url(kw)}" width="800" height="400"' in html
    response = admin_client.get(chart_url(kw))
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    assert response.content.startswith(b"\x89PNG\r\n\x1a\n")


def test_market_chart_needs_the_keyword_view_permission(django_user_model):
    kw = make_keyword()
    staff = django_user_model.objects.create_user("staff", password="x", is_staff=True)
    client = Client()
    client.force_login(staff)
    assert client.get(chart_url(kw)).status_code == 403
    staff.user_permissions.add(Permission.objects.get(codename="view_keyword"))
    assert client.get(chart_url(kw)).status_code == 200
