"""Claiming due keywords: every window of a keyword runs once, or leaves a skip row.

A claim moves `next_run_at` one interval ahead and creates the keyword's
`running` ScrapeRun in the same transaction. On PostgreSQL the due rows are
locked with SKIP LOCKED, so concurrent ticks split the work; elsewhere a
conditional UPDATE on the old `next_run_at` decides who won. The partial
unique index "one running run per keyword" is the last line of defence.
"""

import logging
import random
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from scraping import credentials
from scraping.models import ScrapeRun
from scraping.sources import UnknownSource, get_handler
from tracker.models import Keyword

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Skip:
    reason: str
    detail: str = ""
    # already_running and unknown_source leave the window open: the keyword
    # stays due and is looked at again next tick (the skip row collapses).
    moves_window: bool = False


def next_window(keyword, now):
    jitter = random.uniform(0, settings.SCHEDULER_JITTER_S)  # noqa: S311 (spreading load, not security)
    return now + timedelta(minutes=keyword.interval_minutes, seconds=jitter)


def skip_reason(keyword):
    """Why this keyword's window cannot run now, or None."""
    if ScrapeRun.objects.running().filter(keyword=keyword).exists():
        return Skip("already_running", "the previous run of this keyword is still running")
    try:
        handler = get_handler(keyword.source)()
    except UnknownSource as exc:
        return Skip("unknown_source", str(exc))
    unavailable = credentials.unavailable_reason(handler)
    if unavailable:
        return Skip("source_unavailable", unavailable, moves_window=True)
    return None


def claim_due_keywords(now=None, limit=None):
    """Claims due keywords and returns their new running ScrapeRuns.

    Call outside a transaction: on PostgreSQL the locks are held until the
    whole batch is claimed, and the caller enqueues the runs after commit.
    """
    now = now or timezone.now()
    limit = limit or settings.SCHEDULER_CLAIM_LIMIT
    due = Keyword.objects.due(now).order_by("next_run_at", "id")
    if connection.features.has_select_for_update_skip_locked:
        with transaction.atomic():
            runs = [_claim_locked(kw, now) for kw in due.select_for_update(skip_locked=True)[:limit]]
    else:
        runs = [_claim_conditional(kw, now) for kw in due[:limit]]
    return [run for run in runs if run is not None]


def _claim_locked(keyword, now):
    """The keyword row is locked by us: nobody else can claim it meanwhile."""
    with transaction.atomic():
        skip = skip_reason(keyword)
        if skip:
            return _skip(keyword, skip, now)
        keyword.next_run_at = next_window(keyword, now)
        keyword.save(update_fields=["next_run_at"])
        return _start_run(keyword, now)


def _claim_conditional(keyword, now):
    with transaction.atomic():
        skip = skip_reason(keyword)
        if skip:
            return _skip(keyword, skip, now)
        won = Keyword.objects.filter(pk=keyword.pk, is_active=True, next_run_at=keyword.next_run_at).update(
            next_run_at=next_window(keyword, now)
        )
        if not won:
            ScrapeRun.record_skip(keyword, "concurrent_claim", "another worker claimed this window first", now=now)
            return None
        return _start_run(keyword, now)


def _start_run(keyword, now):
    try:
        with transaction.atomic():
            return ScrapeRun.objects.create(keyword=keyword, source=keyword.source, started_at=now)
    except IntegrityError:
        # Another run became `running` between our check and insert.
        ScrapeRun.record_skip(keyword, "already_running", "a run of this keyword started concurrently", now=now)
        return None


def _skip(keyword, skip, now):
    logger.info("keyword %s skipped: %s (%s)", keyword.pk, skip.reason, skip.detail)
    if skip.moves_window:
        Keyword.objects.filter(pk=keyword.pk).update(next_run_at=next_window(keyword, now))
    ScrapeRun.record_skip(keyword, skip.reason, skip.detail, now=now)
    return None


def claim_keyword_now(keyword, now=None):
    """The operator's "Run now": one keyword, the same skip rules and run row as a scheduled claim.

    Returns (run, None) when a run started (the caller enqueues it after commit), or
    (None, Skip) when it could not, with the skip recorded like a scheduled one.
    The keyword row is locked so a concurrent tick cannot claim it meanwhile.
    """
    now = now or timezone.now()
    with transaction.atomic():
        keyword = Keyword.objects.select_for_update().get(pk=keyword.pk)
        skip = skip_reason(keyword)
        if skip:
            _skip(keyword, skip, now)
            return None, skip
        run = _start_run(keyword, now)
        if run is None:
            return None, Skip("already_running", "a run of this keyword started concurrently")
        keyword.next_run_at = next_window(keyword, now)
        keyword.save(update_fields=["next_run_at"])
        return run, None
