"""Scrape runs in the admin: read-only, filterable, readable detail; "Run now" claims like the
tick."""

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from scraping.claims import claim_keyword_now
from scraping.models import ScrapeRun
from tests.factories import make_keyword

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


@pytest.fixture
def run():
    started = timezone.now() - dt.timedelta(seconds=90)
    return ScrapeRun.objects.create(
        keyword=make_keyword(query="lego"),
        source="willhaben",
        status="failed",
        error="parse_error",
        started_at=started,
        finished_at=started + dt.timedelta(seconds=12.5),
        detail='{"page": 2, "reason": "<unexpected>"}',
        counters={"http_429": 1},
    )


def test_detail_page_is_read_only_with_pretty_json(admin_client, run):
    html = admin_client.get(
        reverse("admin:scraping_scraperun_change", args=[run.pk])
    ).content.decode()
    assert (
        '<pre class="lago-pre">{\n  &quot;page&quot;: 2,\n'
        "  &quot;reason&quot;: &quot;&lt;unexpected&gt;&quot;\n}</pre>"
    ) in html
    assert "12.5 s" in html
    assert 'name="_save"' not in html


def test_post_to_change_is_refused(admin_client, run):
    response = admin_client.post(
        reverse("admin:scraping_scraperun_change", args=[run.pk]), {"status": "done"}
    )
    assert response.status_code == 403


@pytest.mark.parametrize(
    "params", [{"status__exact": "failed"}, {"error": "parse_error"}, {"source": "willhaben"}]
)
def test_filters(admin_client, run, params):
    ScrapeRun.objects.create(keyword=make_keyword(), source="other", status="done")
    rows = (
        admin_client.get(reverse("admin:scraping_scraperun_changelist"), params)
        .context["cl"]
        .result_list
    )
    assert [r.pk for r in rows] == [run.pk]


def test_list_shows_badge_and_duration(admin_client, run):
    html = admin_client.get(reverse("admin:scraping_scraperun_changelist")).content.decode()
    assert '<span class="lago-badge lago-red">failed</span>' in html and "12.5 s" in html


def test_claim_now_moves_the_window_and_starts_a_run():
    kw = make_keyword(next_run_at=timezone.now() - dt.timedelta(minutes=1), interval_minutes=30)
    run, skip = claim_keyword_now(kw)
    assert skip is None and run.status == ScrapeRun.Status.RUNNING
    kw.refresh_from_db()
    assert kw.next_run_at > timezone.now() + dt.timedelta(minutes=29)


def test_claim_now_with_unknown_source_is_a_recorded_skip():
    kw = make_keyword(source="gone")
    run, skip = claim_keyword_now(kw)
    assert run is None and skip.reason == "unknown_source"
    assert ScrapeRun.objects.get(keyword=kw).status == ScrapeRun.Status.SKIPPED
