from datetime import timedelta

from django import forms
from django.contrib import admin, messages
from django.db.models import Count, IntegerField, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from lib.admin_lists import BigTableAdmin
from lib.badges import badge
from lib.money import euro, format_price
from lib.paginator import EstimatedCountPaginator
from tracker.admin_filters import AlertFilter, DroppedInPriceFilter, GoneFilter, NewTodayFilter, PriceRangeFilter
from tracker.charts import ad_price_points, price_chart_svg
from tracker.models import Ad, Heartbeat, Keyword, KeywordAd, PriceChange

INTERVAL_MESSAGE = "The interval must be at least 1 minute."


def subquery_count(model, **filters):
    """A correlated COUNT per row (filters[0] names the outer row): no join blow-up, no extra query."""
    rows = model.objects.filter(**filters).order_by().values(next(iter(filters)))
    return Coalesce(Subquery(rows.annotate(n=Count("pk")).values("n")[:1], output_field=IntegerField()), 0)


class PriceChangeColumns:
    """Old and new price in the one price format (lib.money.format_price)."""

    @admin.display(description="old price", ordering="old_price")
    def old_price_shown(self, obj):
        return format_price(obj.old_price)

    @admin.display(description="new price", ordering="new_price")
    def new_price_shown(self, obj):
        return format_price(obj.new_price)


class PriceChangeInline(PriceChangeColumns, admin.TabularInline):
    model = PriceChange
    extra = 0
    can_delete = False
    fields = readonly_fields = ["old_price_shown", "new_price_shown", "seen_at"]
    verbose_name_plural = "price changes"

    def has_add_permission(self, request, obj=None):
        return False


class KeywordForm(forms.ModelForm):
    class Meta:
        model = Keyword
        fields = [
            "name",
            "query",
            "source",
            "is_active",
            "interval_minutes",
            "price_min",
            "price_max",
            "excluded_words",
            "next_run_at",
        ]
        error_messages = {
            # Replaces Django's "Ensure this value is greater than or equal to 1." (from both min validators).
            "interval_minutes": {"min_value": INTERVAL_MESSAGE},
        }


@admin.register(Keyword)
class KeywordAdmin(admin.ModelAdmin):
    """Keywords as the core knows them; scraping.admin extends it with runs, *Run now* and subscribers."""

    form = KeywordForm
    list_display = ["query", "source", "interval", "is_active", "next_run_at", "ads_total", "ads_found_24h", "alert"]
    list_display_links = ["query"]
    list_filter = ["source", "is_active", AlertFilter]
    search_fields = ["name", "query"]
    readonly_fields = ["cursor_published_at", "cursor_ad_id", "last_run_at", "zero_result_alert_at", "created_at", "updated_at"]
    fieldsets = [
        (None, {"fields": ["name", "query", "source", "is_active", "interval_minutes"]}),
        ("Filters", {"fields": ["price_min", "price_max", "excluded_words"]}),
        (
            "Schedule and cursor",
            {"fields": ["next_run_at", "last_run_at", "cursor_published_at", "cursor_ad_id", "zero_result_alert_at"]},
        ),
        ("Record", {"fields": ["created_at", "updated_at"], "classes": ["collapse"]}),
    ]
    actions = ["pause", "resume", "reset_cursor"]

    def get_queryset(self, request):
        day_ago = timezone.now() - timedelta(hours=24)
        return (
            super()
            .get_queryset(request)
            .annotate(
                n_ads=subquery_count(KeywordAd, keyword=OuterRef("pk")),
                n_ads_24h=subquery_count(KeywordAd, keyword=OuterRef("pk"), found_at__gte=day_ago),
            )
        )

    @admin.display(description="interval", ordering="interval_minutes")
    def interval(self, obj):
        return f"{obj.interval_minutes} min"

    @admin.display(description="ads", ordering="n_ads")
    def ads_total(self, obj):
        return obj.n_ads

    @admin.display(description="ads 24 h", ordering="n_ads_24h")
    def ads_found_24h(self, obj):
        return obj.n_ads_24h

    @admin.display(description="open alert", ordering="zero_result_alert_at")
    def alert(self, obj):
        if obj.zero_result_alert_at is None:
            return ""
        return badge("failed", f"zero results since {date_format(timezone.localtime(obj.zero_result_alert_at), 'SHORT_DATE_FORMAT')}")

    @admin.action(description="Pause (stop scheduling)", permissions=["change"])
    def pause(self, request, queryset):
        done = queryset.pause()
        self.message_user(request, f"{done} keyword(s) paused.")

    @admin.action(description="Resume (due now)", permissions=["change"])
    def resume(self, request, queryset):
        done = queryset.resume()
        self.message_user(request, f"{done} keyword(s) resumed.")

    @admin.action(description="Reset cursor (next run pages through all results)…", permissions=["change"])
    def reset_cursor(self, request, queryset):
        # Like Django's delete confirmation: the first POST shows the page, the second (with "confirm") acts.
        if request.POST.get("confirm") == "yes":
            done = queryset.reset_cursor()
            self.message_user(request, f"Cursor reset for {done} keyword(s).", messages.SUCCESS)
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": "Reset the cursor?",
            "keywords": queryset,
            "opts": self.model._meta,
            "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/tracker/keyword/reset_cursor.html", context)


class MachineWrittenAdmin(admin.ModelAdmin):
    """Rows the scraper writes: operators look and may delete, never add or edit."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class AdSourceFilter(admin.SimpleListFilter):
    """The keywords' sources (a few hundred rows), not a field filter's SELECT DISTINCT over every ad."""

    title = "source"
    parameter_name = "source"

    def lookups(self, request, model_admin):
        # The chosen one too: a filter without choices is not applied (and an ad may outlive its keyword).
        sources = set(Keyword.objects.order_by().values_list("source", flat=True).distinct()) | {self.value()} - {None}
        return [(s, s) for s in sorted(sources)]

    def queryset(self, request, queryset):
        return queryset.filter(source=self.value()) if self.value() else queryset


@admin.register(Ad)
class AdAdmin(BigTableAdmin, MachineWrittenAdmin):
    list_display = ["thumbnail", "title_link", "price_change", "location", "published_at", "keyword_names"]
    list_display_links = None
    list_filter = [
        ("keywords", admin.RelatedFieldListFilter),
        AdSourceFilter,
        PriceRangeFilter,
        NewTodayFilter,
        DroppedInPriceFilter,
        GoneFilter,
    ]
    # Searched by get_search_results below (title words; a number may also be an id).
    search_fields = ["title"]
    readonly_fields = ["price_history", *[f.name for f in Ad._meta.fields if f.name != "id"]]
    fieldsets = [
        (None, {"fields": ["title", "url", "price", "currency", "location", "postcode", "image_url"]}),
        ("Price history", {"fields": ["price_history"]}),
        ("Record", {"fields": ["source", "external_id", "published_at", "first_seen_at", "last_seen_at", "gone_at"]}),
    ]
    inlines = [PriceChangeInline]

    def get_queryset(self, request):
        first = PriceChange.objects.filter(ad=OuterRef("pk")).order_by("seen_at", "id")
        return (
            super()
            .get_queryset(request)
            # No Exists(…) beside it: PostgreSQL ran that as a hashed subplan over every price change
            # (0.6 s at 200,000); without changes first_price is NULL, which says the same.
            .annotate(first_price=Subquery(first.values("old_price")[:1]))
            .prefetch_related("keywords")
        )

    def get_search_results(self, request, queryset, search_term):
        """Every word in the title (`icontains`: the trigram index ad_title_trgm_idx serves it on
        PostgreSQL); a number may also be our id or the marketplace's. No `iexact` on external_id
        as Django's "=external_id" would write: UPPER(external_id) has no index, and one
        unindexed branch of the OR turns the search into a scan of every ad."""
        for term in search_term.split():
            match = Q(title__icontains=term)
            if term.isascii() and term.isdigit() and len(term) <= 18:
                match |= Q(pk=int(term)) | Q(external_id=term)
            queryset = queryset.filter(match)
        return queryset, False

    @admin.display(description="")
    def thumbnail(self, obj):
        if not obj.image_url:
            return ""
        return format_html('<img src="{}" class="lago-thumb" alt="" loading="lazy" referrerpolicy="no-referrer">', obj.image_url)

    @admin.display(description="title", ordering="title")
    def title_link(self, obj):
        return format_html(
            '<a href="{}" target="_blank" rel="noopener noreferrer">{}</a> <a href="{}" class="lago-muted">details</a>',
            obj.url,
            obj.title,
            f"{obj.pk}/change/",
        )

    @admin.display(description="price", ordering="price")
    def price_change(self, obj):
        if obj.price is None:
            return format_html('<span class="lago-muted">{}</span>', format_price(None))
        if obj.first_price is None or obj.first_price == obj.price:
            return format_price(obj.price)
        delta = obj.price - obj.first_price
        css, sign = ("lago-down", "−") if delta < 0 else ("lago-up", "+")
        return format_html('{} <span class="{}">{}{}</span>', format_price(obj.price), css, sign, euro(abs(delta)))

    @admin.display(description="keywords")
    def keyword_names(self, obj):
        return ", ".join(k.display_name for k in obj.keywords.all())

    @admin.display(description="chart")
    def price_history(self, obj):
        if obj.pk is None:
            return ""
        points = ad_price_points(obj, list(obj.price_changes.all()), timezone.now())
        return mark_safe(price_chart_svg(points, title=f"Price history of {obj.title}"))  # noqa: S308 (every text in it is escaped)


@admin.register(PriceChange)
class PriceChangeAdmin(PriceChangeColumns, MachineWrittenAdmin):
    list_display = ["ad", "old_price_shown", "new_price_shown", "seen_at"]
    list_select_related = ["ad"]
    search_fields = ["ad__title", "ad__external_id"]
    fields = readonly_fields = ["ad", "old_price_shown", "new_price_shown", "seen_at"]
    # No date_hierarchy: its drill-down reads the dates of every row.
    show_full_result_count = False
    paginator = EstimatedCountPaginator


@admin.register(KeywordAd)
class KeywordAdAdmin(MachineWrittenAdmin):
    list_display = ["keyword", "ad", "found_at"]
    list_select_related = ["keyword", "ad"]
    list_filter = ["keyword"]
    search_fields = ["ad__title", "keyword__query"]
    readonly_fields = ["keyword", "ad", "found_at"]
    show_full_result_count = False


@admin.register(Heartbeat)
class HeartbeatAdmin(admin.ModelAdmin):
    list_display = ["name", "last_seen_at", "detail"]
    readonly_fields = ["name", "last_seen_at", "detail"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
