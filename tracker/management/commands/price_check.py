"""Is this a good price for what a keyword finds? The judgement of a price against its comparables.

    manage.py price_check 12 673.59                       # keyword id
    manage.py price_check "rennrad" 673,59 --title "Specialized Rennrad Carbon 56"
    manage.py price_check 12 1400 --area 100              # a flat: judged per m²
    manage.py price_check 12 673.59 --json                # last line: one JSON object

The keyword is an id, a keyword's name, or its search words (case and spacing ignored). The
judgement is the one messages carry (tracker.price_judgement): nothing is written. With --json the
last line holds n, median, mad, z, percent, percentile and label (numbers, or null when too few).
"""

import json
from decimal import Decimal, InvalidOperation

from django.core.management.base import BaseCommand, CommandError

from lib.money import euro
from lib.printable import printable
from tracker.models import Keyword
from tracker.price_judgement import PriceLabel, judge_price


class Command(BaseCommand):
    help = "Judge a price against the ads a keyword found lately (median, MAD, z, label)."

    def add_arguments(self, parser):
        parser.add_argument("keyword", help="a keyword id, name or search words")
        parser.add_argument("price", help="the price in euro: 673.59 or 673,59")
        parser.add_argument("--title", default="", help="the ad's title: narrows to similar ads")
        parser.add_argument("--area", default=None, help="living area in m²: compare per m²")
        parser.add_argument(
            "--json", action="store_true", dest="as_json", help="end with one JSON object"
        )

    def handle(self, keyword, price, title, area, as_json, verbosity, **options):
        kw = find_keyword(keyword)
        amount = parse_amount(price, "price")
        size = parse_amount(area, "--area") if area is not None else None
        judgement = judge_price(kw, amount, title, area=size)
        if verbosity > 0 or not as_json:
            self._describe(kw, amount, judgement)
        if as_json:
            self.stdout.write(_json_line(judgement))

    def _describe(self, kw, amount, judgement):
        out = self.stdout.write
        out(f"Keyword {kw.pk}: {printable(kw.display_name)}")
        unit = "/m²" if judgement.per_m2 else ""
        which = "similar titles" if judgement.narrowed else "all of the keyword's ads"
        out(f"Comparables: {judgement.n} ({which}{', per m²' if judgement.per_m2 else ''})")
        if judgement.label == PriceLabel.TOO_FEW:
            out(self.style.WARNING(f"Too few to compare ({judgement.n}); nothing to judge."))
            return
        out(f"Median: {euro(judgement.median)}{unit}, MAD {euro(judgement.mad)}{unit}")
        out(
            f"{euro(amount)}: {judgement.percent:+} % against the median, z {judgement.z:+.2f}, "
            f"{judgement.percentile:.0f} % of comparables are cheaper"
            + (" (the lowest)" if judgement.lowest else "")
        )
        style = self.style.SUCCESS if judgement.label == PriceLabel.DEAL else self.style.NOTICE
        out(style(f"Label: {judgement.label} ({PriceLabel(judgement.label).label})"))


def find_keyword(target):
    """The keyword `target` names (id, name, or search words), or CommandError saying why not."""
    target = target.strip()
    if target.isdigit():
        try:
            return Keyword.objects.get(pk=int(target))
        except Keyword.DoesNotExist:
            raise CommandError(f"no keyword with id {target}") from None
    found = list(Keyword.objects.filter(name__iexact=target)) or Keyword.objects.with_query(target)
    if not found:
        raise CommandError(f"no keyword named or searching {printable(target)!r}")
    if len(found) > 1:
        ids = ", ".join(str(kw.pk) for kw in found)
        raise CommandError(f"{printable(target)!r} is more than one keyword ({ids}): give the id")
    return found[0]


def parse_amount(text, name):
    """A positive Decimal from "673.59" or "673,59", or CommandError."""
    try:
        value = Decimal(text.strip().replace(",", "."))
    except (InvalidOperation, AttributeError):
        raise CommandError(f"{name} {printable(str(text))!r} is not a number") from None
    if not value.is_finite() or value <= 0:
        raise CommandError(f"{name} must be above 0, not {printable(str(text))!r}")
    return value


def _json_line(judgement):
    def number(value):
        return None if value is None else float(value)

    return json.dumps(
        {
            "n": judgement.n,
            "median": number(judgement.median),
            "mad": number(judgement.mad),
            "z": judgement.z,
            "percent": number(judgement.percent),
            "percentile": judgement.percentile,
            "label": judgement.label,
            "lowest": judgement.lowest,
            "narrowed": judgement.narrowed,
            "per_m2": judgement.per_m2,
        }
    )
