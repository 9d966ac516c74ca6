from datetime import timedelta

import pytest
from django.utils import timezone

from scraping.claims import claim_due_keywords
from scraping.models import ScrapeRun
from scraping.tick import reap_zombies
from tests.factories import make_keyword
from tracker.models import Keyword

pytestmark = pytest.mark.django_db


def test_a_run_left_running_by_a_dead_worker_is_reaped_and_the_keyword_runs_again(settings):
    settings.SCRAPE_ZOMBIE_MINUTES = 15
    kw = make_keyword(interval_minutes=60)
    start = timezone.now()
    [run] = claim_due_keywords(start)
    assert reap_zombies(start + timedelta(minutes=14)) == 0
    later = start + timedelta(minutes=16)
    assert reap_zombies(later) == 1
    run.refresh_from_db()
    assert (run.status, run.error) == ("failed", "zombie")
    assert run.finished_at == later
    assert Keyword.objects.get(pk=kw.pk).next_run_at == later
    [again] = claim_due_keywords(later)
    assert again.keyword_id == kw.pk and again.pk != run.pk


def test_a_late_worker_cannot_overwrite_a_reaped_run():
    kw = make_keyword()
    [run] = claim_due_keywords()
    reap_zombies(timezone.now() + timedelta(hours=1))
    assert run.close(ScrapeRun.Status.DONE) is False
    run.refresh_from_db()
    assert run.error == "zombie"
    assert kw.pk == run.keyword_id
