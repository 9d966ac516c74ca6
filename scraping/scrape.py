"""Scrape one keyword end to end: pages from its source, ingest, cursor.

`scrape_keyword` never raises for a marketplace failure: it returns an
`Outcome` that `ScrapeRun.finish()` records. The cursor only moves after every
page of a successful run is committed, so a failed run is simply repeated.
"""

import logging
from dataclasses import dataclass, field

from django.conf import settings
from django.db.models import Q

from scraping.counts import RunCounts
from scraping.errors import SourceError, body_excerpt
from scraping.ingest import ingest_page
from scraping.models import ScrapeRun
from scraping.sources import UnknownSource, get_handler
from tracker.models import Ad, Keyword

logger = logging.getLogger(__name__)


@dataclass
class Outcome:
    status: ScrapeRun.Status = ScrapeRun.Status.DONE
    error: str = ""
    detail: str = ""
    counts: RunCounts = field(default_factory=RunCounts)

    @property
    def ok(self):
        return self.status == ScrapeRun.Status.DONE


def scrape_keyword(keyword, run=None, max_pages=None, dry_run=False, on_page=None, sweep=None):
    """Scrape `keyword` now and return its Outcome; with `run`, also finish that ScrapeRun.

    `dry_run` fetches and parses but writes nothing (no ads, no cursor, no run).
    `on_page(page, result)` is called after each page is stored, with its IngestResult
    (None in a dry run): the `scrape` command's progress and table.
    `sweep` (default: the run's kind) reads past the cursor, up to SCRAPE_SWEEP_MAX_PAGES
    pages of the source's largest size; ads first seen there that were published before
    the cursor are linked quietly (DESIGN "Sweeps"), price moves notify as usual.
    """
    if sweep is None:
        sweep = run is not None and run.kind == ScrapeRun.Kind.SWEEP
    default_pages = settings.SCRAPE_SWEEP_MAX_PAGES if sweep else settings.SCRAPE_MAX_PAGES
    outcome = _scrape(keyword, max_pages or default_pages, dry_run, on_page, sweep)
    if run is not None and not dry_run:
        run.finish(outcome)
    return outcome


def _scrape(keyword, max_pages, dry_run, on_page, sweep=False):
    cursor = (
        (keyword.cursor_published_at, keyword.cursor_ad_id) if keyword.cursor_published_at else None
    )
    # The first run records the backlog quietly: nobody wants 60 "new" messages for old ads.
    notify = settings.NOTIFY_ON_FIRST_RUN or keyword.has_been_scraped()
    outcome = Outcome()
    counts = outcome.counts
    keys, seen = [], set()
    try:
        handler = get_handler(keyword.source)()
        last_page = None
        for page in handler.fetch_pages(
            keyword.query,
            cursor=None if sweep else cursor,
            max_pages=max_pages,
            price_min=keyword.price_min,
            price_max=keyword.price_max,
            rows=handler.max_rows if sweep else None,
        ):
            last_page = page
            counts.pages += 1
            _note_bad_ads(outcome, keyword, page)
            result = (
                None
                if dry_run
                else ingest_page(
                    keyword,
                    page.ads,
                    source=keyword.source,
                    notify=notify,
                    quiet_before=cursor if sweep else None,
                )
            )
            if result is None:
                counts.ads_seen += len(page.ads)
            else:
                counts.add(result.counts)
                seen |= result.ad_pks
            # Top ads are old ads placed above the newest: they never move the cursor.
            keys += [ad.sort_key for ad in page.ads if ad.published_at and not ad.is_top]
            if on_page is not None:
                on_page(page, result)
    except UnknownSource as exc:
        return _failed(outcome, keyword, ScrapeRun.Status.FAILED, "unknown_source", str(exc))
    except SourceError as exc:
        status = ScrapeRun.Status.BANNED if exc.banned else ScrapeRun.Status.FAILED
        return _failed(outcome, keyword, status, exc.slug, exc.detail)
    except Exception as exc:  # a bug must end the run as failed, not kill the worker
        logger.exception("keyword %s: scrape crashed", keyword.pk)
        return _failed(outcome, keyword, ScrapeRun.Status.FAILED, "internal_error", repr(exc))
    _note_coverage_gap(counts, keyword, None if sweep else cursor, last_page, max_pages)
    if not dry_run and keys:
        advance_cursor(keyword, max(keys))
    if sweep and not dry_run and last_page is not None and last_page.is_last:
        # Only a sweep that reached the end of the result set knows what is missing.
        counts.extra["gone"] = Ad.objects.mark_gone(keyword, seen)
    return outcome


def _note_bad_ads(outcome, keyword, page):
    """Ads the parser skipped: counted in counters.bad_ads, the first one's reason in the run's
    detail."""
    bad = page.extra.get("bad_ads") or []
    if not bad:
        return
    counts = outcome.counts
    counts.extra["bad_ads"] = counts.extra.get("bad_ads", 0) + len(bad)
    logger.warning(
        "keyword %s: page %d: skipped %d ad(s) that cannot be stored, e.g. %s",
        keyword.pk,
        page.number,
        len(bad),
        bad[0],
    )
    if not outcome.detail:
        outcome.detail = body_excerpt(f"skipped ad(s) that cannot be stored, e.g. {bad[0]}")


def _note_coverage_gap(counts, keyword, cursor, last_page, max_pages):
    hit_cap = (
        last_page is not None
        and counts.pages >= max_pages
        and not (last_page.reached_cursor or last_page.is_last)
    )
    # On the first run there is no cursor to reach: stopping at the cap is expected.
    if hit_cap and cursor is not None:
        counts.extra["coverage_gap"] = 1
        logger.warning(
            "keyword %s: page cap %d reached before the cursor; ads may have been missed",
            keyword.pk,
            max_pages,
        )


def _failed(outcome, keyword, status, slug, detail):
    logger.warning(
        "keyword %s (%s): scrape %s: %s: %s", keyword.pk, keyword.source, status, slug, detail[:200]
    )
    outcome.status, outcome.error, outcome.detail = status, slug, detail
    return outcome


def advance_cursor(keyword, newest):
    """Move the cursor forward to `newest` (published_at, external id); never backwards."""
    published_at, ad_id = newest
    older = Q(cursor_published_at__isnull=True) | Q(cursor_published_at__lt=published_at)
    same = Q(cursor_published_at=published_at, cursor_ad_id__lt=ad_id)
    Keyword.objects.filter(Q(pk=keyword.pk) & (older | same)).update(
        cursor_published_at=published_at, cursor_ad_id=ad_id
    )
    keyword.refresh_from_db(fields=["cursor_published_at", "cursor_ad_id"])
