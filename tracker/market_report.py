"""A keyword's weekly market report: what its prices did, what came and went, the best deals.

Everything is read per keyword through its matches (keywordad_unique (keyword, ad), then the ads
by primary key; new matches through keywordad_found_idx; price moves through pricechange_ad_idx):
the live ads plus those gone inside the 12-week window, never all ads.

A week's price figures are a snapshot at the week's end: the ads live then (first seen at or before
it, not gone yet) at the price they had then. An ad's price then is the old price of its first
change after that moment, or, without a later change, its price now (the keyword's price, else the
ad's). Ads without a price or given away free do not count in the price figures.
"""

import statistics
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from django.db.models import Q
from django.utils import timezone

from tracker.models import KeywordAd, PriceChange
from tracker.price_judgement import PriceLabel

WEEK = timedelta(days=7)
WEEKS = 12  # the chart's span, and the window of "median days until an ad goes"
BEFORE_WEEKS = 4  # "now" against this many weeks ago
DEALS = 3


@dataclass(frozen=True)
class WeekPoint:
    """The live ads' prices at `end`: median and interquartile band (None without prices)."""

    end: datetime
    n: int
    median: Decimal | None = None
    p25: Decimal | None = None
    p75: Decimal | None = None


@dataclass(frozen=True)
class Deal:
    title: str
    url: str
    price: Decimal | None
    percent: Decimal | None  # signed, against the median: -23.0 is 23 % under it
    median: Decimal | None


@dataclass(frozen=True)
class MarketReport:
    keyword_id: int
    keyword_name: str
    now: datetime
    weeks: list  # WeekPoint, oldest first; the last one ends at `now`
    new_this_week: int
    gone_this_week: int
    median_days_to_go: float | None  # over the ads gone in the last WEEKS weeks
    deals: list  # Deal, best first

    @property
    def median_now(self):
        return self.weeks[-1].median

    @property
    def median_before(self):
        """The median BEFORE_WEEKS weeks ago."""
        return self.weeks[-1 - BEFORE_WEEKS].median


def quartiles(prices):
    """(25th percentile, median, 75th percentile) of `prices`, interpolated between neighbours
    (statistics' "inclusive" method, the same as numpy's default); (None, None, None) for none."""
    values = sorted(prices)
    if not values:
        return None, None, None
    if len(values) == 1:
        return values[0], values[0], values[0]
    p25, p50, p75 = statistics.quantiles(values, n=4, method="inclusive")
    return p25, p50, p75


def market_report(keyword, now=None) -> MarketReport:
    """The report of `keyword` for the week ending at `now`."""
    now = now or timezone.now()
    start = now - WEEK * (WEEKS - 1)
    gone_since = now - WEEK * WEEKS
    ads = _ads_in_window(keyword, now, gone_since)
    changes = _changes_after(ads, start)
    weeks = [_week_point(ads, changes, now - WEEK * i) for i in reversed(range(WEEKS))]
    week_start = now - WEEK
    gone = [a for a in ads.values() if a["gone_at"] is not None and a["gone_at"] <= now]
    days = [
        (a["gone_at"] - a["first_seen_at"]).total_seconds() / 86400
        for a in gone
        if a["gone_at"] > gone_since
    ]
    new = KeywordAd.objects.filter(keyword=keyword, found_at__gt=week_start, found_at__lte=now)
    return MarketReport(
        keyword_id=keyword.pk,
        keyword_name=keyword.display_name,
        now=now,
        weeks=weeks,
        new_this_week=new.count(),
        gone_this_week=sum(1 for a in gone if a["gone_at"] > week_start),
        median_days_to_go=statistics.median(days) if days else None,
        deals=best_deals(keyword),
    )


def best_deals(keyword, limit=DEALS):
    """The live ads `keyword` judged deals, furthest under the median first."""
    matches = (
        KeywordAd.objects.filter(
            keyword=keyword, price_label=PriceLabel.DEAL, ad__gone_at__isnull=True
        )
        .exclude(price_percent__isnull=True)
        .select_related("ad")
        .only("price", "price_percent", "price_median", "ad__title", "ad__url", "ad__price")
        .order_by("price_percent", "ad_id")[:limit]
    )
    return [
        Deal(
            title=m.ad.title,
            url=m.ad.url,
            price=m.price if m.price is not None else m.ad.price,
            percent=m.price_percent,
            median=m.price_median,
        )
        for m in matches
    ]


def _ads_in_window(keyword, now, gone_since):
    """{ad pk: its first seen, gone and current price} for the keyword's ads live at some moment
    of the window: first seen by `now`, and not gone before `gone_since`."""
    rows = (
        KeywordAd.objects.filter(keyword=keyword, ad__first_seen_at__lte=now)
        .filter(Q(ad__gone_at__isnull=True) | Q(ad__gone_at__gt=gone_since))
        .values_list("ad_id", "price", "ad__price", "ad__first_seen_at", "ad__gone_at")
    )
    return {
        ad_id: {
            "price": own if own is not None else ad_price,
            "first_seen_at": first_seen,
            "gone_at": gone_at,
        }
        for ad_id, own, ad_price, first_seen, gone_at in rows
    }


def _changes_after(ads, start):
    """{ad pk: [(seen at, old price)], oldest first} of the changes after `start`."""
    changes = {}
    if not ads:
        return changes
    rows = (
        PriceChange.objects.filter(ad_id__in=list(ads), seen_at__gt=start)
        .order_by("ad_id", "seen_at", "pk")
        .values_list("ad_id", "seen_at", "old_price")
    )
    for ad_id, seen_at, old_price in rows:
        changes.setdefault(ad_id, []).append((seen_at, old_price))
    return changes


def _price_at(ad_id, ad, changes, moment):
    for seen_at, old_price in changes.get(ad_id, ()):
        if seen_at > moment:
            return old_price
    return ad["price"]


def _week_point(ads, changes, end):
    prices = []
    for ad_id, ad in ads.items():
        if ad["first_seen_at"] > end or (ad["gone_at"] is not None and ad["gone_at"] <= end):
            continue
        price = _price_at(ad_id, ad, changes, end)
        if price is not None and price > 0:
            prices.append(price)
    p25, median, p75 = quartiles(prices)
    return WeekPoint(end=end, n=len(prices), median=median, p25=p25, p75=p75)
