"""Claiming due keywords: every window of a keyword runs once, or leaves a skip row.

A claim moves `next_run_at` one interval ahead and creates the keyword's
`running` ScrapeRun in the same transaction. On PostgreSQL the due rows are
locked with SKIP LOCKED, so concurrent ticks split the work; elsewhere a
conditional UPDATE on the old `next_run_at` decides who won. The partial
unique index "one running run per keyword" is the last line of defence.

A tick's due keywords are claimed as one batch: one query finds which of them
still have a running run, one UPDATE moves all their windows, one INSERT
creates all their runs (the tick's cost does not grow per keyword).

Deep sweeps (`kind=sweep`) are claimed the same way on `next_sweep_at`, which
moves SCRAPE_SWEEP_HOURS ahead. A sweep reads page 1 too, so its claim also
moves `next_run_at`: the cursor run it would collide with is not needed.

Windows hold their interval: the next window is measured from the moment the tick was
scheduled for (`window_base`), not from when a worker got to it, and the jitter only ever
moves it earlier. So the tick one interval later always finds the keyword due, however late
either tick ran; a positive jitter would push every window past that tick and stretch a
1-minute interval to 2 minutes.
"""

import logging
import random
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import DurationField, ExpressionWrapper, F, Value
from django.db.models.functions import Random
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


# How often the tick runs (setup_schedules): the resolution of every window.
TICK_PERIOD = timedelta(minutes=1)


def window_base(now, scheduled_at=None):
    """The moment a claim measures the next windows from: the tick's scheduled moment
    (django-q2 hands it to the tick), or `now` without one. A tick that ran later than one
    period measures from one period ago, so its windows still fall due at the next tick."""
    if scheduled_at is None:
        return now
    return min(now, max(scheduled_at, now - TICK_PERIOD))


def next_window(keyword, base):
    """The keyword's next window: one interval after `base` less a jitter (also
    _next_window_sql)."""
    jitter = random.uniform(0, _jitter_s())  # noqa: S311 (spreading load, not security)
    return base + timedelta(minutes=keyword.interval_minutes, seconds=-jitter)


def _jitter_s():
    """The jitter stays inside one tick period: it may move a window earlier, never by a tick."""
    return min(settings.SCHEDULER_JITTER_S, TICK_PERIOD.total_seconds() / 2)


def next_sweep(base):
    return base + timedelta(hours=settings.SCRAPE_SWEEP_HOURS)


def _moved_windows(next_run_at, base, kind):
    """The Keyword fields a claim of `kind` moves ahead (`next_run_at`: a value or an SQL
    expression)."""
    fields = {"next_run_at": next_run_at}
    if kind == ScrapeRun.Kind.SWEEP:
        fields["next_sweep_at"] = next_sweep(base)
    return fields


def skip_reason(keyword):
    """Why this keyword's window cannot run now, or None."""
    running = ScrapeRun.objects.running().filter(keyword=keyword).exists()
    return _skip_reason(keyword, running, {})


def _skip_reason(keyword, running, sources):
    """skip_reason() from facts read once per batch: whether the keyword has a running run,
    and `sources`, a cache of each source's verdict (filled as sources are met)."""
    if running:
        return Skip("already_running", "the previous run of this keyword is still running")
    if keyword.source not in sources:
        sources[keyword.source] = _source_skip(keyword.source)
    return sources[keyword.source]


def _source_skip(slug):
    try:
        handler = get_handler(slug)()
    except UnknownSource as exc:
        return Skip("unknown_source", str(exc))
    unavailable = credentials.unavailable_reason(handler)
    if unavailable:
        return Skip("source_unavailable", unavailable, moves_window=True)
    return None


def claim_due_keywords(now=None, limit=None, base=None):
    """Claims due keywords and returns their new running ScrapeRuns.

    Call outside a transaction: on PostgreSQL the locks are held until the
    whole batch is claimed, and the caller enqueues the runs after commit.
    `base` (default `now`) is what the next windows are measured from (window_base).
    """
    now = now or timezone.now()
    due = Keyword.objects.due(now).order_by("next_run_at", "id")
    return _claim(due, "next_run_at", ScrapeRun.Kind.SCHEDULED, now, limit, base or now)


def claim_due_sweeps(now=None, limit=None, base=None):
    """Claims keywords whose deep sweep is due (first spreading new keywords' sweep times)."""
    now = now or timezone.now()
    Keyword.objects.schedule_sweeps(now)
    due = Keyword.objects.sweep_due(now).order_by("next_sweep_at", "id")
    return _claim(due, "next_sweep_at", ScrapeRun.Kind.SWEEP, now, limit, base or now)


def _claim(due, window_field, kind, now, limit, base):
    """One batch: a fixed number of queries however many keywords are due (plus a few per
    skipped keyword, and on the conditional path one UPDATE per keyword)."""
    limit = limit or settings.SCHEDULER_CLAIM_LIMIT
    locked = connection.features.has_select_for_update_skip_locked
    with transaction.atomic():
        keywords = list(due.select_for_update(skip_locked=True)[:limit] if locked else due[:limit])
        if not keywords:
            return []
        ready = _not_skipped(keywords, now, kind, base)
        if locked:
            # The rows are locked by us: nobody else can claim them meanwhile.
            _move_windows(ready, base, kind)
        else:
            ready = [keyword for keyword in ready if _won(keyword, now, window_field, kind, base)]
        return _start_runs(ready, now, kind)


def _not_skipped(keywords, now, kind, base):
    """The keywords that may run; a skip row for each of the others."""
    running = set(
        ScrapeRun.objects.running()
        .filter(keyword__in=keywords)
        .values_list("keyword_id", flat=True)
    )
    sources, ready = {}, []
    for keyword in keywords:
        skip = _skip_reason(keyword, keyword.pk in running, sources)
        if skip:
            _skip(keyword, skip, now, kind, base)
        else:
            ready.append(keyword)
    return ready


def _move_windows(keywords, base, kind):
    """Moves the keywords' windows ahead in one UPDATE, each with its own jitter."""
    if not keywords:
        return
    Keyword.objects.filter(pk__in=[keyword.pk for keyword in keywords]).update(
        **_moved_windows(_next_window_sql(base), base, kind)
    )


def _next_window_sql(base):
    """next_window() as an SQL expression: RANDOM() draws each row's jitter."""
    jitter = ExpressionWrapper(
        Random() * Value(timedelta(seconds=_jitter_s())),
        output_field=DurationField(),
    )
    return Value(base) + F("interval_minutes") * Value(timedelta(minutes=1)) - jitter


def _won(keyword, now, window_field, kind, base):
    """Without row locks a conditional UPDATE on the old window decides who claims it."""
    moved = _moved_windows(next_window(keyword, base), base, kind)
    won = Keyword.objects.filter(
        pk=keyword.pk, is_active=True, **{window_field: getattr(keyword, window_field)}
    ).update(**moved)
    if not won:
        ScrapeRun.record_skip(
            keyword,
            "concurrent_claim",
            "another worker claimed this window first",
            now=now,
            kind=kind,
        )
        return False
    for name, value in moved.items():
        setattr(keyword, name, value)
    return True


def _start_runs(keywords, now, kind):
    """The claimed keywords' running runs, in one INSERT."""
    if not keywords:
        return []
    try:
        with transaction.atomic():
            return ScrapeRun.objects.bulk_create(
                [
                    ScrapeRun(keyword=keyword, source=keyword.source, started_at=now, kind=kind)
                    for keyword in keywords
                ]
            )
    except IntegrityError:
        # A run of one of them became `running` since we looked: one by one, so only that one is
        # skipped.
        runs = [_start_run(keyword, now, kind) for keyword in keywords]
        return [run for run in runs if run is not None]


def _start_run(keyword, now, kind=ScrapeRun.Kind.SCHEDULED):
    try:
        with transaction.atomic():
            return ScrapeRun.objects.create(
                keyword=keyword, source=keyword.source, started_at=now, kind=kind
            )
    except IntegrityError:
        # Another run became `running` between our check and insert.
        ScrapeRun.record_skip(
            keyword,
            "already_running",
            "a run of this keyword started concurrently",
            now=now,
            kind=kind,
        )
        return None


def _skip(keyword, skip, now, kind=ScrapeRun.Kind.SCHEDULED, base=None):
    logger.info("keyword %s %s skipped: %s (%s)", keyword.pk, kind, skip.reason, skip.detail)
    if skip.moves_window:
        base = base or now
        fields = (
            {"next_sweep_at": next_sweep(base)}
            if kind == ScrapeRun.Kind.SWEEP
            else {"next_run_at": next_window(keyword, base)}
        )
        Keyword.objects.filter(pk=keyword.pk).update(**fields)
    ScrapeRun.record_skip(keyword, skip.reason, skip.detail, now=now, kind=kind)
    return None


def claim_keyword_now(keyword, now=None, kind=ScrapeRun.Kind.MANUAL):
    """The operator's "Run now": one keyword, the same skip rules and run row as a scheduled claim,
    recorded as a manual run (or a sweep, when `scrape --sweep` asks for one).

    Returns (run, None) when a run started (the caller enqueues it after commit), or
    (None, Skip) when it could not, with the skip recorded like a scheduled one.
    The keyword row is locked so a concurrent tick cannot claim it meanwhile.
    """
    now = now or timezone.now()
    with transaction.atomic():
        keyword = Keyword.objects.select_for_update().get(pk=keyword.pk)
        skip = skip_reason(keyword)
        if skip:
            _skip(keyword, skip, now, kind)
            return None, skip
        run = _start_run(keyword, now, kind)
        if run is None:
            return None, Skip("already_running", "a run of this keyword started concurrently")
        fields = _moved_windows(next_window(keyword, now), now, kind)
        Keyword.objects.filter(pk=keyword.pk).update(**fields)
        for name, value in fields.items():
            setattr(keyword, name, value)
        return run, None
