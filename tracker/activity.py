"""Per-day figures of one keyword for its admin page: ads found and price drops."""

from django.db import models
from django.db.models import Count, F
from django.db.models.functions import TruncDate


def _per_day(rows, moment):
    """{local date: rows} from one grouped query (dates in TIME_ZONE)."""
    grouped = (
        rows.order_by()
        .annotate(day=TruncDate(moment))
        .values("day")
        .annotate(n=Count("pk"))
        .order_by()
    )
    return {row["day"]: row["n"] for row in grouped}


class KeywordAdQuerySet(models.QuerySet):
    def found_per_day(self, keyword, since):
        """{date: ads `keyword` found that day} since `since` (keywordad_found_idx)."""
        return _per_day(self.filter(keyword=keyword, found_at__gte=since), "found_at")


class DropsPerDayQuerySet(models.QuerySet):
    """Mixed into tracker.models.PriceChangeQuerySet."""

    def drops_per_day(self, keyword, since):
        """{date: price drops of ads `keyword` has found} since `since`, by when they were seen.

        Reached through keywordad_unique (keyword, ad), then pricechange_ad_idx (ad, seen_at).
        """
        drops = self.filter(
            ad__matches__keyword=keyword, seen_at__gte=since, new_price__lt=F("old_price")
        )
        return _per_day(drops, "seen_at")
