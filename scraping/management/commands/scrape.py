"""Scrape one keyword now and show what was found.

    manage.py scrape 12                       # keyword id: stored, notified, recorded as a
    ScrapeRun
    manage.py scrape "rtx 3080" --dry-run     # plain words or a pasted willhaben URL
    manage.py scrape wohnung --source kleinanzeigen   # an ad-hoc query on another marketplace
    manage.py scrape 12 --pages 3 --dry-run   # fetch and parse only, write nothing
    manage.py scrape 12 --sweep               # a deep sweep now: past the cursor, largest pages

A query that is not a saved keyword is always a dry run: ads need a keyword to belong to.
Marketplace text (titles, ids, error details) is printed with its control characters
escaped (lib.printable.printable): a title must not drive the operator's terminal.
"""

from django.core.management.base import BaseCommand, CommandError

from lib.money import format_price
from lib.printable import printable
from scraping.claims import claim_keyword_now
from scraping.ingest import passes_filters
from scraping.models import ScrapeRun
from scraping.scrape import scrape_keyword
from scraping.sources import registry
from scraping.zero_result_alerts import run_finished
from tracker.models import Ad, Keyword

NEW, KNOWN, PRICE_DROP, FILTERED = "new", "known", "price_drop", "filtered"


class Command(BaseCommand):
    help = "Scrape one keyword (id) or an ad-hoc query / search URL now, and list the ads found."

    def add_arguments(self, parser):
        parser.add_argument(
            "target", help='a keyword id, or "search words", or a search URL of --source'
        )
        parser.add_argument(
            "--source",
            choices=registry.slugs(),
            default="willhaben",
            help="the marketplace of an ad-hoc query (a keyword id brings its own)",
        )
        parser.add_argument(
            "--pages",
            type=int,
            default=None,
            help="page cap for this run (default SCRAPE_MAX_PAGES)",
        )
        parser.add_argument("--dry-run", action="store_true", help="fetch and parse, write nothing")
        parser.add_argument(
            "--sweep",
            action="store_true",
            help="a deep sweep: ignore the cursor, read up to SCRAPE_SWEEP_MAX_PAGES",
        )

    def handle(self, target, pages, dry_run, sweep, verbosity, source, **options):
        if pages is not None and pages < 1:
            raise CommandError("--pages must be at least 1")
        keyword = self._keyword(target, source)
        dry_run = dry_run or keyword.pk is None
        kind = ScrapeRun.Kind.SWEEP if sweep else ScrapeRun.Kind.MANUAL
        run = None if dry_run else self._start_run(keyword, kind)
        rows = []
        collect = self._collect(keyword, rows, verbosity)
        outcome = scrape_keyword(
            keyword, run, max_pages=pages, dry_run=dry_run, on_page=collect, sweep=sweep
        )
        if run is not None:
            run_finished(keyword)  # health state and admin alerts, as after a scheduled run
        if verbosity >= 1:
            self._table(rows)
        if not outcome.ok:
            raise CommandError(
                f"{outcome.status}: {outcome.error}: {printable(outcome.detail[:300])}"
            )
        mode = "dry run, nothing written" if dry_run else f"run {run.pk}"
        c = outcome.counts
        summary = (
            f"{c.pages} page(s), {c.ads_seen} ads, {c.ads_new} new, "
            f"{c.price_drops} price drops ({mode})"
        )
        self.stdout.write(self.style.SUCCESS(summary))
        if c.extra.get("bad_ads"):
            self.stdout.write(
                self.style.WARNING(
                    f"skipped {c.extra['bad_ads']} ad(s) that cannot be stored, e.g. "
                    f"{printable(outcome.detail[:300])}"
                )
            )
        if c.extra.get("coverage_gap"):
            self.stdout.write(
                self.style.WARNING(
                    "page cap reached before the cursor: raise SCRAPE_MAX_PAGES or shorten the "
                    "interval"
                )
            )

    def _keyword(self, target, source):
        if target.isdigit():
            try:
                return Keyword.objects.get(pk=int(target))
            except Keyword.DoesNotExist:
                raise CommandError(f"no keyword with id {target}") from None
        return Keyword(query=target, source=source)

    def _start_run(self, keyword, kind):
        """The admin's *Run now* path: the same skip rules, skip row and next window."""
        run, skip = claim_keyword_now(keyword, kind=kind)
        if run is None:
            raise CommandError(
                f"keyword {keyword.pk} not started: {skip.reason} ({skip.detail}); a skipped run "
                "is recorded"
            )
        return run

    def _collect(self, keyword, rows, verbosity):
        """on_page: progress, and each ad with its status for the table."""

        def collect(page, result):
            if verbosity >= 1:
                self.stdout.write(
                    f"page {page.number}: {len(page.ads)} ads (of {page.rows_found} found)"
                )
            rows.extend(
                _preview(page.ads, keyword.source)
                if result is None
                else _statuses(keyword, page.ads, result)
            )

        return collect

    def _table(self, rows):
        for ad, status in rows:
            self.stdout.write(
                f"{status:<10} {printable(ad.external_id):>12} {format_price(ad.price):>17}  "
                f"{printable(ad.title[:70])}"
            )


def _statuses(keyword, ads, result):
    """(ad, status) for a stored page, from its IngestResult."""

    def status(ad):
        if ad.external_id in result.new:
            return NEW
        if ad.external_id in result.dropped:
            return PRICE_DROP
        return KNOWN if passes_filters(keyword, ad) else FILTERED

    return [(ad, status(ad)) for ad in ads]


def _preview(ads, source):
    """Statuses for a dry run, judged against the stored ads (nothing is written)."""
    stored = dict(
        Ad.objects.filter(
            source=source, external_id__in=[ad.external_id for ad in ads]
        ).values_list("external_id", "price")
    )
    preview = []
    for ad in ads:
        old = stored.get(ad.external_id, "missing")
        if old == "missing":
            status = NEW
        elif old is not None and ad.price is not None and ad.price < old:
            status = PRICE_DROP
        else:
            status = KNOWN
        preview.append((ad, status))
    return preview
