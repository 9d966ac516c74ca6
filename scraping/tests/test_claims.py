"""Claiming due keywords: each window runs once or leaves a skip row with a reason."""

from datetime import timedelta

import pytest
from django.utils import timezone

from scraping.claims import _start_runs, claim_due_keywords
from scraping.models import ScrapeRun
from tests.factories import make_keyword
from tracker.models import Keyword

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_jitter(settings):
    settings.SCHEDULER_JITTER_S = 0


def test_a_due_keyword_is_claimed_with_a_running_run_and_its_next_window():
    kw = make_keyword(interval_minutes=7)
    now = timezone.now()
    runs = claim_due_keywords(now)
    assert [r.keyword_id for r in runs] == [kw.pk]
    assert runs[0].status == ScrapeRun.Status.RUNNING
    kw.refresh_from_db()
    assert kw.next_run_at == now + timedelta(minutes=7)


def test_a_claimed_keyword_is_not_due_again_within_its_interval():
    make_keyword()
    now = timezone.now()
    assert len(claim_due_keywords(now)) == 1
    assert claim_due_keywords(now + timedelta(minutes=1)) == []


def test_inactive_and_future_keywords_are_not_claimed():
    make_keyword(is_active=False)
    make_keyword(next_run_at=timezone.now() + timedelta(minutes=3))
    assert claim_due_keywords() == []
    assert ScrapeRun.objects.count() == 0


def test_jitter_only_moves_windows_earlier_within_its_bound(settings):
    settings.SCHEDULER_JITTER_S = 30
    kws = [make_keyword(interval_minutes=5) for _ in range(20)]
    now = timezone.now()
    claim_due_keywords(now)
    offsets = {(Keyword.objects.get(pk=k.pk).next_run_at - now).total_seconds() for k in kws}
    assert all(270 <= o <= 300 for o in offsets)
    assert len(offsets) > 1


def test_still_running_keyword_is_skipped_as_already_running_and_stays_due():
    kw = make_keyword()
    ScrapeRun.objects.create(keyword=kw, source=kw.source)
    before = Keyword.objects.get(pk=kw.pk).next_run_at
    assert claim_due_keywords() == []
    skip = ScrapeRun.objects.get(status="skipped")
    assert (skip.error, skip.counters) == ("already_running", {"skips": 1})
    assert Keyword.objects.get(pk=kw.pk).next_run_at == before


def test_unknown_source_is_skipped_and_stays_due():
    kw = make_keyword(source="no-such-market")
    assert claim_due_keywords() == []
    skip = ScrapeRun.objects.get()
    assert (skip.status, skip.error) == ("skipped", "unknown_source")
    assert "no-such-market" in skip.detail
    assert Keyword.objects.get(pk=kw.pk).next_run_at == kw.next_run_at


def test_identical_skips_collapse_into_one_row():
    make_keyword(source="no-such-market")
    start = timezone.now()
    for minute in range(5):
        claim_due_keywords(start + timedelta(minutes=minute))
    skip = ScrapeRun.objects.get()
    assert skip.counters == {"skips": 5}
    assert skip.started_at == start
    assert skip.finished_at == start + timedelta(minutes=4)


def test_a_different_outcome_starts_a_new_skip_row():
    kw = make_keyword(source="no-such-market")
    now = timezone.now()
    claim_due_keywords(now)
    claim_due_keywords(now + timedelta(minutes=1))
    ScrapeRun.objects.create(
        keyword=kw, source=kw.source, status="done", started_at=now + timedelta(minutes=2)
    )
    claim_due_keywords(now + timedelta(minutes=3))
    skips = list(
        ScrapeRun.objects.filter(status="skipped")
        .order_by("started_at")
        .values_list("counters", flat=True)
    )
    assert skips == [{"skips": 2}, {"skips": 1}]


def test_claim_limit_bounds_one_tick(settings):
    settings.SCHEDULER_CLAIM_LIMIT = 3
    for _ in range(5):
        make_keyword()
    assert len(claim_due_keywords()) == 3
    assert len(claim_due_keywords()) == 2


def test_a_run_started_since_the_batch_looked_costs_only_its_own_keyword():
    """The batch INSERT meets the one-running-run index: the runs start one by one and only
    the keyword that has a running run is skipped."""
    free, busy = make_keyword(), make_keyword()
    ScrapeRun.objects.create(keyword=busy, source=busy.source)  # started after the running check
    runs = _start_runs([free, busy], timezone.now(), ScrapeRun.Kind.SCHEDULED)
    assert [run.keyword_id for run in runs] == [free.pk]
    assert ScrapeRun.objects.running().filter(keyword=free).count() == 1
    skip = ScrapeRun.objects.get(status="skipped")
    assert (skip.keyword_id, skip.error) == (busy.pk, "already_running")
