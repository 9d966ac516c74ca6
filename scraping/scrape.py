"""Scrape one keyword end to end: pages from its source, ingest, cursor.

`scrape_keyword` never raises for a marketplace failure: it returns an
`Outcome` that `ScrapeRun.finish()` records. The cursor only moves after every
page of a successful run is committed, so a failed run is simply repeated.
"""

import logging
from dataclasses import dataclass, field

from django.conf import settings
from django.db.models import Q

from scraping import http
from scraping.sources import UnknownSource, get_handler
from scraping.sources.base import SourceError, body_excerpt
from tracker.ingest import IngestResult, ingest_page
from tracker.models import Keyword

logger = logging.getLogger(__name__)


@dataclass
class Outcome:
    status: str  # a ScrapeRun.Status value: done, failed or banned
    error: str = ""
    detail: str = ""
    pages: int = 0
    ads_seen: int = 0
    ads_new: int = 0
    price_drops: int = 0
    counters: dict = field(default_factory=dict)
    # (ParsedAd, ingest status) in page order, for the `scrape` command's table.
    rows: list = field(default_factory=list)

    @property
    def ok(self):
        return self.status == "done"


def scrape_keyword(keyword, run=None, max_pages=None, dry_run=False, on_page=None):
    """Scrape `keyword` now and return its Outcome; with `run`, also finish that ScrapeRun.

    `dry_run` fetches and parses but writes nothing (no ads, no cursor, no run).
    `on_page(page)` is called after each page is stored (progress display).
    """
    outcome = _scrape(keyword, max_pages or settings.SCRAPE_MAX_PAGES, dry_run, on_page)
    if run is not None and not dry_run:
        run.finish(outcome)
    return outcome


def _scrape(keyword, max_pages, dry_run, on_page):
    cursor = (keyword.cursor_published_at, keyword.cursor_ad_id) if keyword.cursor_published_at else None
    # The first run records the backlog quietly: nobody wants 60 "new" messages for old ads.
    notify = settings.NOTIFY_ON_FIRST_RUN or keyword.has_been_scraped()
    outcome = Outcome(status="done")
    totals = IngestResult()
    keys = []
    try:
        handler = get_handler(keyword.source)()
        last_page = None
        for page in handler.fetch_pages(
            keyword.query, cursor=cursor, max_pages=max_pages, price_min=keyword.price_min, price_max=keyword.price_max
        ):
            last_page = page
            outcome.pages += 1
            if not dry_run:
                totals.add(ingest_page(keyword, page.ads, source=keyword.source, notify=notify))
            outcome.rows += [(ad, totals.statuses.get(ad.external_id, "")) for ad in page.ads]
            keys += [ad.sort_key for ad in page.ads if ad.published_at]
            if on_page is not None:
                on_page(page)
    except UnknownSource as exc:
        return _failed(outcome, keyword, "failed", "unknown_source", str(exc))
    except http.FetchError as exc:
        detail = f"{exc} (status {exc.status})" + (f": {body_excerpt(exc.body)}" if exc.body else "")
        return _failed(outcome, keyword, "banned" if exc.banned else "failed", exc.slug, detail)
    except SourceError as exc:
        return _failed(outcome, keyword, "failed", exc.slug, exc.detail or str(exc))
    except Exception as exc:  # a bug must end the run as failed, not kill the worker
        logger.exception("keyword %s: scrape crashed", keyword.pk)
        return _failed(outcome, keyword, "failed", "internal_error", repr(exc))
    _finish_counts(outcome, totals, keyword, cursor, last_page, max_pages)
    if not dry_run and keys:
        advance_cursor(keyword, max(keys))
    return outcome


def _finish_counts(outcome, totals, keyword, cursor, last_page, max_pages):
    outcome.ads_seen = totals.ads_seen or len(outcome.rows)
    outcome.ads_new = totals.ads_new
    outcome.price_drops = totals.price_drops
    outcome.counters = {"price_changes": totals.price_changes, "notifications": totals.notifications}
    hit_cap = last_page is not None and outcome.pages >= max_pages and not (last_page.reached_cursor or last_page.is_last)
    # On the first run there is no cursor to reach: stopping at the cap is expected.
    if hit_cap and cursor is not None:
        outcome.counters["coverage_gap"] = 1
        logger.warning("keyword %s: page cap %d reached before the cursor; ads may have been missed", keyword.pk, max_pages)


def _failed(outcome, keyword, status, slug, detail):
    logger.warning("keyword %s (%s): scrape %s: %s: %s", keyword.pk, keyword.source, status, slug, detail[:200])
    outcome.status, outcome.error, outcome.detail = status, slug, detail
    outcome.ads_seen = len(outcome.rows)
    return outcome


def advance_cursor(keyword, newest):
    """Move the cursor forward to `newest` (published_at, external id); never backwards."""
    published_at, ad_id = newest
    older = Q(cursor_published_at__isnull=True) | Q(cursor_published_at__lt=published_at)
    same = Q(cursor_published_at=published_at, cursor_ad_id__lt=ad_id)
    Keyword.objects.filter(Q(pk=keyword.pk) & (older | same)).update(cursor_published_at=published_at, cursor_ad_id=ad_id)
    keyword.refresh_from_db(fields=["cursor_published_at", "cursor_ad_id"])
