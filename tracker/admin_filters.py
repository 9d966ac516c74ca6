"""Changelist filters that Django's field filters cannot express."""

from datetime import datetime, time
from decimal import Decimal

from django.contrib import admin
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from tracker.models import Keyword, PriceChange


class AlertFilter(admin.SimpleListFilter):
    title = _("open alert")
    parameter_name = "alert"

    def lookups(self, request, model_admin):
        return [("yes", _("failing or zero-result alert open")), ("no", _("no alert"))]

    def queryset(self, request, queryset):
        alert = Q(zero_result_alert_at__isnull=False) | Q(failing_alert_at__isnull=False)
        if self.value() == "yes":
            return queryset.filter(alert)
        if self.value() == "no":
            return queryset.exclude(alert)
        return queryset


class GoneFilter(admin.SimpleListFilter):
    title = _("listing")
    parameter_name = "gone"

    def lookups(self, request, model_admin):
        return [("yes", _("gone (sold or removed)")), ("no", _("still listed"))]

    def queryset(self, request, queryset):
        if self.value() in ("yes", "no"):
            return queryset.filter(gone_at__isnull=self.value() == "no")
        return queryset


# (slug, label, lower bound inclusive, upper bound exclusive); None = open end.
PRICE_BUCKETS = [
    ("lt100", _("under € 100"), None, Decimal(100)),
    ("100-500", "€ 100 – 500", Decimal(100), Decimal(500)),
    ("500-1000", "€ 500 – 1.000", Decimal(500), Decimal(1000)),
    ("gte1000", _("€ 1.000 and more"), Decimal(1000), None),
]


class PriceRangeFilter(admin.SimpleListFilter):
    title = _("price")
    parameter_name = "price"

    def lookups(self, request, model_admin):
        return [(slug, label) for slug, label, _lo, _hi in PRICE_BUCKETS] + [
            ("none", _("on request"))
        ]

    def queryset(self, request, queryset):
        if self.value() == "none":
            return queryset.filter(price__isnull=True)
        for slug, _label, lo, hi in PRICE_BUCKETS:
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
    title = _("first seen")
    parameter_name = "new"

    def lookups(self, request, model_admin):
        return [("today", _("today"))]

    def queryset(self, request, queryset):
        if self.value() == "today":
            # Uses ad_first_seen_idx.
            return queryset.filter(first_seen_at__gte=start_of_today())
        return queryset


class DroppedInPriceFilter(admin.SimpleListFilter):
    title = _("price dropped")
    parameter_name = "dropped"

    def lookups(self, request, model_admin):
        return [("yes", _("dropped at least once"))]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            drops = PriceChange.objects.drops().filter(ad=OuterRef("pk"))
            return queryset.filter(Exists(drops))
        return queryset


class AdSourceFilter(admin.SimpleListFilter):
    """The keywords' sources (a few hundred rows), not a field filter's SELECT DISTINCT over every
    ad."""

    title = _("source")
    parameter_name = "source"

    def lookups(self, request, model_admin):
        # The chosen one too: a filter without choices is not applied (and an ad may outlive its
        # keyword).
        sources = set(Keyword.objects.order_by().values_list("source", flat=True).distinct()) | {
            self.value()
        } - {None}
        return [(s, s) for s in sorted(sources)]

    def queryset(self, request, queryset):
        return queryset.filter(source=self.value()) if self.value() else queryset


class KeywordFilter(admin.RelatedFieldListFilter):
    """The keywords (a few hundred), read as id, name and query: not every column of every
    keyword as Django's related filter loads them (a dozen timestamps each). Their links are
    built from one query string and rendered in one pass (templates/admin/lago_long_filter.html):
    at 300 keywords the filter was a third of the scrape-run list's time."""

    template = "admin/lago_long_filter.html"

    def field_choices(self, field, request, model_admin):
        keywords = Keyword.objects.all()
        ordering = self.field_admin_ordering(field, request, model_admin)
        if ordering:
            keywords = keywords.order_by(*ordering)
        return [
            (pk, name or query) for pk, name, query in keywords.values_list("pk", "name", "query")
        ]

    def choices(self, changelist):
        """Django's choices, each keyword's link from one shared query string (Django builds,
        filters and sorts every parameter again for each of them)."""
        django_choices = super().choices(changelist)
        everything = next(django_choices)
        yield everything
        if changelist.add_facets:
            yield from django_choices
            return
        query = everything["query_string"]
        prefix = f"{query}&" if query != "?" else query
        chosen = set(self.lookup_val or ())
        for pk, label in self.lookup_choices:
            yield {
                "selected": str(pk) in chosen,
                "query_string": f"{prefix}{self.lookup_kwarg}={pk}",
                "display": label,
            }
        if self.include_empty_choice:
            yield {
                "selected": bool(self.lookup_val_isnull),
                "query_string": changelist.get_query_string(
                    {self.lookup_kwarg_isnull: "True"}, [self.lookup_kwarg]
                ),
                "display": self.empty_value_display,
            }
