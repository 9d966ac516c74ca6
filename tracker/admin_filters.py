"""Changelist filters that Django's field filters cannot express."""

from datetime import datetime, time
from decimal import Decimal

from django.contrib import admin
from django.db.models import Exists, OuterRef
from django.utils import timezone

from tracker.models import PriceChange


class AlertFilter(admin.SimpleListFilter):
    title = "open alert"
    parameter_name = "alert"

    def lookups(self, request, model_admin):
        return [("yes", "zero-result alert open"), ("no", "no alert")]

    def queryset(self, request, queryset):
        if self.value() in ("yes", "no"):
            return queryset.filter(zero_result_alert_at__isnull=self.value() == "no")
        return queryset


class GoneFilter(admin.SimpleListFilter):
    title = "listing"
    parameter_name = "gone"

    def lookups(self, request, model_admin):
        return [("yes", "gone (sold or removed)"), ("no", "still listed")]

    def queryset(self, request, queryset):
        if self.value() in ("yes", "no"):
            return queryset.filter(gone_at__isnull=self.value() == "no")
        return queryset


# (slug, label, lower bound inclusive, upper bound exclusive); None = open end.
PRICE_BUCKETS = [
    ("lt100", "under € 100", None, Decimal(100)),
    ("100-500", "€ 100 – 500", Decimal(100), Decimal(500)),
    ("500-1000", "€ 500 – 1.000", Decimal(500), Decimal(1000)),
    ("gte1000", "€ 1.000 and more", Decimal(1000), None),
]


class PriceRangeFilter(admin.SimpleListFilter):
    title = "price"
    parameter_name = "price"

    def lookups(self, request, model_admin):
        return [(slug, label) for slug, label, _, _ in PRICE_BUCKETS] + [("none", "on request")]

    def queryset(self, request, queryset):
        if self.value() == "none":
            return queryset.filter(price__isnull=True)
        for slug, _, lo, hi in PRICE_BUCKETS:
            if self.value() == slug:
                if lo is not None:
                    queryset = queryset.filter(price__gte=lo)
                return queryset.filter(price__lt=hi) if hi is not None else queryset
        return queryset


def start_of_today():
    """Midnight in the operator's time zone (TIME_ZONE, Europe/Vienna by default)."""
    today = timezone.localdate()
    return timezone.make_aware(datetime.combine(today, time.min))


class NewTodayFilter(admin.SimpleListFilter):
    title = "first seen"
    parameter_name = "new"

    def lookups(self, request, model_admin):
        return [("today", "today")]

    def queryset(self, request, queryset):
        if self.value() == "today":
            # Uses ad_first_seen_idx.
            return queryset.filter(first_seen_at__gte=start_of_today())
        return queryset


class DroppedInPriceFilter(admin.SimpleListFilter):
    title = "price dropped"
    parameter_name = "dropped"

    def lookups(self, request, model_admin):
        return [("yes", "dropped at least once")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            drops = PriceChange.objects.drops().filter(ad=OuterRef("pk"))
            return queryset.filter(Exists(drops))
        return queryset
