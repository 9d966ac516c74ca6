"""The Keyword admin, registered here once: tracker's CoreKeywordAdmin plus what this layer knows
(last run, *Run now*, subscribers, the source's own query validation).

The keyword's own page (Run now button, last runs, ads found) is scraping.admin_keyword_page.
"""

from decimal import Decimal

from django import forms
from django.contrib import admin
from django.db.models import OuterRef, Subquery
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy as _

from lib.badges import badge
from notifications.admin import KeywordSubscriptionInline
from notifications.admin_destinations import KeywordDestinationInline
from notifications.models import Subscription
from scraping.admin_filters import SourceFilter
from scraping.admin_keyword_page import KeywordPageMixin
from scraping.errors import BadQuery
from scraping.models import ScrapeRun
from scraping.sources import registry
from tracker import admin as tracker_admin
from tracker.models import Keyword


class LastStatusFilter(admin.SimpleListFilter):
    """Needs the `last_status` annotation (KeywordAdmin.get_queryset)."""

    title = _("last run status")
    parameter_name = "last_status"

    def lookups(self, request, model_admin):
        return [*ScrapeRun.Status.choices, ("never", _("never ran"))]

    def queryset(self, request, queryset):
        if self.value() == "never":
            return queryset.filter(last_status__isnull=True)
        if self.value():
            return queryset.filter(last_status=self.value())
        return queryset


class KeywordForm(tracker_admin.KeywordForm):
    source = forms.ChoiceField(
        label=Keyword._meta.get_field("source").verbose_name,
        choices=registry.choices,
        initial="willhaben",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Read per form: SCRAPE_SOURCES decides which of the registry's sources are offered.
        self.fields["source"].error_messages["invalid_choice"] = _(
            "Unknown source %(value)s: choose one the registry knows and SCRAPE_SOURCES enables "
            "(%(sources)s)."
        ) % {"value": "%(value)s", "sources": ", ".join(registry.enabled())}

    def _price(self, name):
        value = self.cleaned_data.get(name)
        if value is not None and value < 0:
            raise forms.ValidationError(_("A price cannot be negative."))
        return value

    def clean_price_min(self):
        return self._price("price_min")

    def clean_price_max(self):
        return self._price("price_max")

    def clean(self):
        """The source's own query check (a URL of another site, a non-search page) and its
        shortest interval fail here, not at the first run."""
        data = super().clean()
        query, source = data.get("query"), data.get("source")
        if not source:
            return data
        handler = registry.get_handler(source)()
        interval = data.get("interval_minutes")
        # Below 1 the model's own message says it (this one would hide it).
        if interval is not None and 1 <= interval < handler.min_interval_minutes:
            self.add_error(
                "interval_minutes",
                _("The %(source)s source allows an interval of %(minutes)s minutes or more.")
                % {"source": registry.label(source), "minutes": handler.min_interval_minutes},
            )
        if query:
            try:
                handler.validate_query(
                    query, price_min=data.get("price_min"), price_max=data.get("price_max")
                )
            except BadQuery as exc:
                self.add_error(
                    "query",
                    _("The %(source)s source cannot search this: %(error)s.")
                    % {"source": source, "error": exc},
                )
            else:
                self._fill_prices_from_query(data, handler.query_price_range(query))
        return data

    def _fill_prices_from_query(self, data, bounds):
        """A pasted URL's price filter goes into empty price fields: shown, and applied by Lago."""
        for name, bound in zip(("price_min", "price_max"), bounds, strict=True):
            if bound is not None and data.get(name) is None and name not in self.errors:
                data[name] = Decimal(bound)


@admin.register(Keyword)
class KeywordAdmin(KeywordPageMixin, tracker_admin.CoreKeywordAdmin):
    form = KeywordForm
    list_display = ["keyword", "last_run", "next_run", "ads_found", "subscribers"]
    list_filter = [SourceFilter, "is_active", LastStatusFilter, tracker_admin.AlertFilter]
    inlines = [KeywordSubscriptionInline, KeywordDestinationInline]
    actions = ["run_now", *tracker_admin.CoreKeywordAdmin.actions]
    # The add form asks for what an operator decides: the search, its filters and interval. The
    # schedule (a new keyword is due at the next tick), cursor, alerts, activity and record are
    # the scheduler's and show on the change page.
    add_fieldsets = [
        (None, {"fields": ["name", "query", "source", "is_active", "interval_minutes"]}),
        (_("Filters"), {"fields": ["price_min", "price_max", "excluded_words"]}),
    ]

    def get_fieldsets(self, request, obj=None):
        if obj is None:
            return self.add_fieldsets
        fieldsets = super().get_fieldsets(request, obj)
        if not self._url_filters(obj):
            return fieldsets
        # A pasted URL's other filters, named under the price fields they stand beside.
        return [
            (title, {**options, "fields": [*options["fields"], "url_filters"]})
            if "price_max" in options["fields"]
            else (title, options)
            for title, options in fieldsets
        ]

    def get_readonly_fields(self, request, obj=None):
        return [*super().get_readonly_fields(request, obj), "url_filters"]

    def _url_filters(self, obj):
        if obj.source not in registry.SOURCES:  # a keyword of a source since removed
            return []
        return registry.get_handler(obj.source)().url_filters(obj.query)

    @admin.display(description=_("filters from the URL"))
    def url_filters(self, obj):
        """Sent to the marketplace as the URL has them (Lago's own filters are the fields above)."""
        return format_html_join(mark_safe("<br>"), "{}", ((f,) for f in self._url_filters(obj)))

    def get_queryset(self, request):
        latest = ScrapeRun.objects.filter(keyword=OuterRef("pk")).order_by("-started_at", "-id")
        return (
            super()
            .get_queryset(request)
            .annotate(
                last_status=Subquery(latest.values("status")[:1]),
                last_started_at=Subquery(latest.values("started_at")[:1]),
                last_ads_seen=Subquery(latest.values("ads_seen")[:1]),
                last_ads_new=Subquery(latest.values("ads_new")[:1]),
                last_run_error=Subquery(latest.values("error")[:1]),
                n_subscribers=tracker_admin.subquery_count(Subscription, keyword=OuterRef("pk")),
            )
        )

    @admin.display(description=_("last run"), ordering="last_started_at")
    def last_run(self, obj):
        """Status badge, start time, then its error or the ads seen / new."""
        if obj.last_status is None:
            return format_html('<span class="lago-muted">{}</span>', _("never"))
        label = (
            ScrapeRun.Status(obj.last_status).label
            if obj.last_status in ScrapeRun.Status.values
            else obj.last_status
        )
        counts = obj.last_run_error or _("%(seen)s seen / %(new)s new") % {
            "seen": obj.last_ads_seen,
            "new": obj.last_ads_new,
        }
        return format_html(
            '{}<br>{}<br><span class="lago-muted">{}</span>',
            badge(obj.last_status, label),
            tracker_admin.short_datetime(obj.last_started_at),
            counts,
        )

    def save_model(self, request, obj, form, change):
        obj.fill_default_name(registry.get_handler(obj.source)().describe)
        super().save_model(request, obj, form, change)

    @admin.display(description=_("subscribers"), ordering="n_subscribers")
    def subscribers(self, obj):
        return obj.n_subscribers

    @admin.action(description=_("Run now (enqueue a scrape)"), permissions=["change"])
    def run_now(self, request, queryset):
        for keyword in queryset:
            self.start_run(request, keyword)
