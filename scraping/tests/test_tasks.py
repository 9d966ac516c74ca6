"""The scrape task records every outcome on its run and is safe to deliver twice."""

import pytest
from django.utils import timezone

from scraping.claims import claim_due_keywords
from scraping.models import ScrapeRun
from scraping.tasks import run_scrape
from tests.factories import make_keyword
from tests.fakes.willhaben_factory import make_raw_ads
from tracker.models import Ad, Keyword

pytestmark = pytest.mark.django_db


@pytest.fixture
def claimed(settings):
    settings.SCHEDULER_JITTER_S = 0
    make_keyword(query="lamp")
    [run] = claim_due_keywords()
    return run


def test_a_claimed_run_scrapes_and_finishes_done(willhaben_server, claimed):
    willhaben_server.set_ads(make_raw_ads(12))
    assert run_scrape(claimed.pk) == "done"
    claimed.refresh_from_db()
    assert (claimed.status, claimed.ads_seen, claimed.pages_fetched) == ("done", 12, 1)
    assert claimed.finished_at is not None
    assert Ad.objects.count() == 12
    assert Keyword.objects.get().last_run_at is not None


def test_a_redelivered_task_does_nothing(willhaben_server, claimed):
    willhaben_server.set_ads(make_raw_ads(3))
    run_scrape(claimed.pk)
    requests_after_first = len(willhaben_server.search_requests())
    assert run_scrape(claimed.pk) is None
    assert len(willhaben_server.search_requests()) == requests_after_first
    assert ScrapeRun.objects.count() == 1


def test_a_task_for_a_deleted_run_does_nothing():
    assert run_scrape(123456) is None


def test_a_marketplace_failure_is_recorded_and_does_not_raise(willhaben_server, claimed):
    willhaben_server.mode = "garbage"
    assert run_scrape(claimed.pk) == "failed"
    claimed.refresh_from_db()
    assert claimed.error == "parse_error"
    assert claimed.detail
    assert Keyword.objects.get().cursor_published_at is None


def test_a_blocked_scrape_is_banned(willhaben_server, claimed):
    willhaben_server.mode = "html_challenge"
    assert run_scrape(claimed.pk) == "banned"


def test_a_run_reaped_meanwhile_is_not_scraped(willhaben_server, claimed):
    claimed.close(ScrapeRun.Status.FAILED, "zombie", now=timezone.now())
    assert run_scrape(claimed.pk) is None
    assert willhaben_server.search_requests() == []


def test_retries_that_would_outlast_the_time_budget_end_the_run_with_the_real_error(
    willhaben_server, claimed, settings, fetch_waits
):
    """django-q2 kills a task at Q_TIMEOUT_S; the scrape must end first and say why."""
    settings.SCRAPE_TIME_BUDGET_S = 2
    settings.HTTP_BACKOFF_BASE_S = settings.HTTP_BACKOFF_MAX_S = (
        30  # one retry wait alone would pass the budget
    )
    willhaben_server.fail_next(status=503, times=10)
    assert run_scrape(claimed.pk) == "failed"
    assert fetch_waits == []  # the scrape gave up instead of waiting past its budget
    claimed.refresh_from_db()
    assert claimed.error == "http_5xx" and "time budget" in claimed.detail
    assert len(willhaben_server.search_requests()) == 1


def test_a_request_that_hangs_is_cut_at_the_end_of_the_time_budget(
    willhaben_server, claimed, settings
):
    settings.SCRAPE_TIME_BUDGET_S = 1
    settings.HTTP_TIMEOUT = 30
    willhaben_server.set_ads(make_raw_ads(3))
    willhaben_server.hang_page(1, 10)
    assert run_scrape(claimed.pk) == "failed"
    claimed.refresh_from_db()
    # HTTP_TIMEOUT (30 s) would outlast the hang, which then answers: only the budget cuts it.
    assert claimed.error == "timeout"


def test_the_time_budget_must_fit_in_the_task_timeout(settings):
    from operations.checks import check_scrape_time_budget

    assert check_scrape_time_budget() == []
    settings.SCRAPE_TIME_BUDGET_S = settings.Q_CLUSTER["timeout"]
    assert [e.id for e in check_scrape_time_budget()] == ["lago.E006"]
