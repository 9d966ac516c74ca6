"""Scrape one keyword now and show what was found.

    manage.py scrape 12                       # keyword id: stored, notified, recorded as a ScrapeRun
    manage.py scrape "rtx 3080" --dry-run     # plain words or a pasted willhaben URL
    manage.py scrape 12 --pages 3 --dry-run   # fetch and parse only, write nothing

A query that is not a saved keyword is always a dry run: ads need a keyword to belong to.
"""

from django.core.management.base import BaseCommand, CommandError
from django.db import IntegrityError

from scraping.models import ScrapeRun
from scraping.scrape import scrape_keyword
from tracker.ingest import Status
from tracker.models import Ad, Keyword


class Command(BaseCommand):
    help = "Scrape one keyword (id) or an ad-hoc query / willhaben URL now, and list the ads found."

    def add_arguments(self, parser):
        parser.add_argument("target", help='a keyword id, or "search words", or a willhaben search URL')
        parser.add_argument("--pages", type=int, default=None, help="page cap for this run (default SCRAPE_MAX_PAGES)")
        parser.add_argument("--dry-run", action="store_true", help="fetch and parse, write nothing")

    def handle(self, target, pages, dry_run, verbosity, **options):
        if pages is not None and pages < 1:
            raise CommandError("--pages must be at least 1")
        keyword = self._keyword(target)
        dry_run = dry_run or keyword.pk is None
        run = None if dry_run else self._start_run(keyword)
        outcome = scrape_keyword(keyword, run, max_pages=pages, dry_run=dry_run, on_page=self._progress(verbosity))
        rows = _preview(outcome.rows, keyword.source) if dry_run else outcome.rows
        if verbosity >= 1:
            self._table(rows)
        if not outcome.ok:
            raise CommandError(f"{outcome.status}: {outcome.error}: {outcome.detail[:300]}")
        mode = "dry run, nothing written" if dry_run else f"run {run.pk}"
        summary = f"{outcome.pages} page(s), {outcome.ads_seen} ads, {outcome.ads_new} new, {outcome.price_drops} price drops ({mode})"
        self.stdout.write(self.style.SUCCESS(summary))
        if outcome.counters.get("coverage_gap"):
            self.stdout.write(self.style.WARNING("page cap reached before the cursor: raise SCRAPE_MAX_PAGES or shorten the interval"))

    def _keyword(self, target):
        if target.isdigit():
            try:
                return Keyword.objects.get(pk=int(target))
            except Keyword.DoesNotExist:
                raise CommandError(f"no keyword with id {target}") from None
        return Keyword(query=target, source="willhaben")

    def _start_run(self, keyword):
        try:
            return ScrapeRun.objects.create(keyword=keyword, source=keyword.source)
        except IntegrityError:
            raise CommandError(f"keyword {keyword.pk} is being scraped right now; try again later") from None

    def _progress(self, verbosity):
        def show(page):
            if verbosity >= 1:
                self.stdout.write(f"page {page.number}: {len(page.ads)} ads (of {page.rows_found} found)")

        return show

    def _table(self, rows):
        for ad, status in rows:
            price = "on request" if ad.price is None else f"{ad.price} {ad.currency}"
            self.stdout.write(f"{status:<10} {ad.external_id:>12} {price:>14}  {ad.title[:70]}")


def _preview(rows, source):
    """Statuses for a dry run, judged against the stored ads (nothing is written)."""
    stored = dict(Ad.objects.filter(source=source, external_id__in=[ad.external_id for ad, _ in rows]).values_list("external_id", "price"))
    preview = []
    for ad, _ in rows:
        old = stored.get(ad.external_id, "missing")
        if old == "missing":
            status = Status.NEW
        elif old is not None and ad.price is not None and ad.price < old:
            status = Status.PRICE_DROP
        else:
            status = Status.KNOWN
        preview.append((ad, status))
    return preview
