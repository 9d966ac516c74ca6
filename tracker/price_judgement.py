"""How an ad's price stands against the other ads its keyword found: the judgement.

The comparables are chosen in tracker.comparables; the statistics are tracker.price_stats. A
judgement is computed at ingest (scraping.ingest, one load of comparables per page), kept on the
KeywordAd row and shown in messages and the admin.
"""

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from tracker import price_stats

CENT = Decimal("0.01")


class PriceLabel(models.TextChoices):
    DEAL = "deal", _("deal")
    FAIR = "fair", _("fair")
    HIGH = "high", _("high")
    TOO_FEW = "too_few", _("too few to compare")
    SUSPICIOUS = "suspicious", _("suspiciously cheap")


@dataclass(frozen=True)
class Judgement:
    label: str  # a PriceLabel value
    n: int  # how many comparables
    median: Decimal | None = None
    mad: Decimal | None = None
    z: float | None = None  # modified z-score
    percent: Decimal | None = None  # signed, against the median: -23.0 is 23 % under it
    percentile: float | None = None  # 0-100: share of comparables cheaper than this price
    lowest: bool = False  # cheaper than every comparable
    narrowed: bool = False  # comparables narrowed to similar titles
    per_m2: bool = False  # compared by price per square metre

    @property
    def is_deal(self):
        return self.label == PriceLabel.DEAL


def judge_price(keyword, price, title="", *, exclude_ad=None, area=None, now=None) -> Judgement:
    """The judgement of `price` (an ad titled `title`, of `area` m² when known) against the
    comparables of `keyword`, leaving out `exclude_ad` and its relist chain."""
    # Imported here: tracker.models imports PriceLabel from this module, comparables reads models.
    from tracker.comparables import Comparables

    return Comparables.load(keyword, now=now).judge(
        price,
        title,
        ad_id=exclude_ad.pk if exclude_ad is not None else None,
        relist_of_id=exclude_ad.relist_of_id if exclude_ad is not None else None,
        area=area,
    )


def judgement_of(value, values, *, title="", narrowed=False, per_m2=False) -> Judgement:
    """The judgement of `value` (a price, or a price per m²) among `values` (the comparables', in
    the same unit): too_few below PRICE_COMPARE_MIN, else median, MAD, z, percent, percentile
    and the label (price_stats.label)."""
    # Floats, sorted once: a page judges thousands of comparables per ad, and median, MAD (two
    # monotonic runs of deviations) and percentile then sort sorted input in one pass. The
    # answers are rounded to cents; the percent is taken against the median in cents.
    values = sorted(map(float, values))
    n = len(values)
    if value is None or value <= 0 or n < settings.PRICE_COMPARE_MIN:
        return Judgement(label=PriceLabel.TOO_FEW, n=n, narrowed=narrowed, per_m2=per_m2)
    x = float(value)
    centre = price_stats.median(values)
    spread = price_stats.mad(values, centre)
    z = price_stats.modified_z(x, centre, spread)
    median = _cents(centre)
    percent = price_stats.percent_against(_cents(value), median)
    label = price_stats.label(
        n=n,
        percent=percent,
        z=z,
        bait=price_stats.has_bait_words(title),
        min_count=settings.PRICE_COMPARE_MIN,
        deal_percent=settings.DEAL_PERCENT,
    )
    return Judgement(
        label=label,
        n=n,
        median=median,
        mad=_cents(spread),
        z=round(z, 2),
        percent=percent,
        percentile=round(price_stats.percentile(x, values), 1),
        lowest=x < values[0],
        narrowed=narrowed,
        per_m2=per_m2,
    )


def _cents(number):
    """A float or Decimal as Decimal cents, half up (a float as the decimal it prints as)."""
    exact = number if isinstance(number, Decimal) else Decimal(repr(float(number)))
    return exact.quantize(CENT, ROUND_HALF_UP)
