"""Intervals hold: a keyword with interval N is claimed by every N-th minute tick."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from scraping.models import ScrapeRun
from scraping.tick import tick
from tests.factories import make_keyword
from tracker.models import Keyword

pytestmark = pytest.mark.django_db

START = timezone.now().replace(second=0, microsecond=0) + timedelta(days=1)


@pytest.fixture(autouse=True)
def full_jitter(settings):
    settings.SCHEDULER_JITTER_S = 10.0


def run_ticks(delays, keywords):
    """One tick a minute, each `delays[i]` seconds after its scheduled minute (django-q2 hands
    the tick that minute); every claimed run finishes before the next tick. Returns, per
    keyword, the indexes of the ticks that claimed it."""
    claimed = {kw.pk: [] for kw in keywords}
    with time_machine.travel(START, tick=False) as clock:
        for i, delay in enumerate(delays):
            scheduled = START + timedelta(minutes=i)
            clock.move_to(scheduled + timedelta(seconds=delay))
            tick(scheduled_at=scheduled.isoformat())
            for run in ScrapeRun.objects.running().filter(kind=ScrapeRun.Kind.SCHEDULED):
                claimed[run.keyword_id].append(i)
                run.close(ScrapeRun.Status.DONE)
    return claimed


def test_a_one_minute_keyword_is_claimed_by_every_tick_and_a_two_minute_one_by_every_second():
    every, second = make_keyword(interval_minutes=1), make_keyword(interval_minutes=2)
    Keyword.objects.update(next_run_at=START, next_sweep_at=START + timedelta(days=1))
    claimed = run_ticks([0] * 10, [every, second])
    assert claimed[every.pk] == list(range(10))
    assert claimed[second.pk] == [0, 2, 4, 6, 8]


def test_a_tick_that_ran_late_does_not_push_its_keywords_past_the_next_tick():
    # The scheduler looks at schedules every ~30 s and the tick may wait in the queue behind
    # scrape tasks: ticks run up to a minute late, and not equally late.
    every, second = make_keyword(interval_minutes=1), make_keyword(interval_minutes=2)
    Keyword.objects.update(next_run_at=START, next_sweep_at=START + timedelta(days=1))
    delays = [45, 1, 30, 0, 59, 2, 40, 40, 0, 25]
    claimed = run_ticks(delays, [every, second])
    assert claimed[every.pk] == list(range(10))
    assert claimed[second.pk] == [0, 2, 4, 6, 8]


def test_the_interval_shown_is_the_interval_between_runs():
    kw = make_keyword(interval_minutes=3)
    Keyword.objects.update(next_run_at=START, next_sweep_at=START + timedelta(days=1))
    run_ticks([5] * 10, [kw])
    starts = list(
        ScrapeRun.objects.filter(keyword=kw)
        .order_by("started_at")
        .values_list("started_at", flat=True)
    )
    assert [later - earlier for earlier, later in zip(starts, starts[1:])] == [
        timedelta(minutes=3)
    ] * 3


def test_the_next_window_never_lies_after_the_tick_one_interval_later():
    kw = make_keyword(interval_minutes=5)
    Keyword.objects.update(next_run_at=START, next_sweep_at=START + timedelta(days=1))
    with time_machine.travel(START + timedelta(seconds=20), tick=False):
        tick(scheduled_at=START.isoformat())
    kw.refresh_from_db()
    assert (
        START + timedelta(minutes=5, seconds=-10) <= kw.next_run_at <= START + timedelta(minutes=5)
    )


def test_a_tick_without_a_scheduled_moment_measures_from_now():
    kw = make_keyword(interval_minutes=1)
    Keyword.objects.update(next_run_at=START, next_sweep_at=START + timedelta(days=1))
    with time_machine.travel(START, tick=False) as clock:
        tick()
        ScrapeRun.objects.running().get().close(ScrapeRun.Status.DONE)
        clock.move_to(START + timedelta(minutes=1))
        tick(scheduled_at="not a date")
        ScrapeRun.objects.running().get().close(ScrapeRun.Status.DONE)
        clock.move_to(START + timedelta(minutes=2))
        tick(scheduled_at=START.replace(tzinfo=None).isoformat())
    assert ScrapeRun.objects.filter(keyword=kw).count() == 3
