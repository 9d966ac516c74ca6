"""The machine-written tables in the admin: ads (with price history and relists), price changes,
keyword matches and heartbeats. Operators look and may delete, never add or edit."""

from django.contrib import admin
from django.db.models import Exists, OuterRef, Prefetch, Q, Subquery
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format, number_format
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy as _

from lib.big_tables import BigTableAdmin
from lib.money import euro, format_price
from tracker.admin_activity import AdRelistAdmin
from tracker.admin_filters import (
    AdSourceFilter,
    DroppedInPriceFilter,
    GoneFilter,
    KeywordFilter,
    NewTodayFilter,
    PriceRangeFilter,
)
from tracker.charts import ad_price_points, price_chart_svg
from tracker.models import Ad, Heartbeat, KeywordAd, PriceChange
from tracker.price_judgement import PriceLabel
from tracker.relists import earlier_listings

# Joins a value to its unit in a table cell (see judgement_text).
NBSP = "\u00a0"


class MatchedFilter(admin.SimpleListFilter):
    """By default only ads a keyword matched: ads its own filters (price, excluded words) left out
    are stored too, and would otherwise fill the list with no keyword. One EXISTS per row on
    KeywordAd's ad index."""

    title = _("keyword match")
    parameter_name = "matched"

    def lookups(self, request, model_admin):
        return [("no", _("not matched")), ("all", _("all ads"))]

    def choices(self, changelist):
        # The default (no parameter) is "matched", not Django's "All".
        yield {
            "selected": self.value() is None,
            "query_string": changelist.get_query_string(remove=[self.parameter_name]),
            "display": _("matched a keyword"),
        }
        for lookup, title in self.lookup_choices:
            yield {
                "selected": self.value() == lookup,
                "query_string": changelist.get_query_string({self.parameter_name: lookup}),
                "display": title,
            }

    def queryset(self, request, queryset):
        matched = Exists(KeywordAd.objects.filter(ad=OuterRef("pk")))
        if self.value() == "all":
            return queryset
        if self.value() == "no":
            return queryset.filter(~matched)
        return queryset.filter(matched)


class JudgementFilter(admin.SimpleListFilter):
    """Ads some keyword judged so (tracker.price_judgement): "deals" first. A semi-join on the
    judged links (keywordad_judged_idx), not an EXISTS per ad."""

    title = _("price judgement")
    parameter_name = "judgement"

    def lookups(self, request, model_admin):
        return [
            (PriceLabel.DEAL, _("deals")),
            (PriceLabel.SUSPICIOUS, PriceLabel.SUSPICIOUS.label),
            (PriceLabel.FAIR, PriceLabel.FAIR.label),
            (PriceLabel.HIGH, PriceLabel.HIGH.label),
        ]

    def queryset(self, request, queryset):
        if self.value() not in {value for value, _label in self.lookup_choices}:
            return queryset
        judged = KeywordAd.objects.filter(price_label=self.value()).values("ad_id")
        return queryset.filter(pk__in=judged)


def judgement_text(link):
    """A link's judgement for the admin: "deal −38.5 % (median € 1.095, 20 comparables)"; "" when
    none was made, the label alone when there were too few. Each value is joined to its unit by
    no-break spaces: a narrow column wraps between the words, never inside "−38,5 %"."""
    if not link.price_label:
        return ""
    label = PriceLabel(link.price_label).label
    if link.price_median is None or link.price_percent is None:
        return str(label)
    median = euro(link.price_median) + ("/m²" if link.price_per_m2 else "")
    sign = "+" if link.price_percent >= 0 else "−"
    return _("%(label)s %(percent)s (median %(median)s, %(count)s comparables)") % {
        "label": label,
        "percent": f"{sign}{number_format(abs(link.price_percent), 1)}{NBSP}%",
        "median": median.replace(" ", NBSP),
        "count": link.price_n,
    }


class PriceChangeColumns:
    """Old and new price in the one price format (lib.money.format_price)."""

    @admin.display(description=_("old price"), ordering="old_price")
    def old_price_shown(self, obj):
        return format_price(obj.old_price)

    @admin.display(description=_("new price"), ordering="new_price")
    def new_price_shown(self, obj):
        return format_price(obj.new_price)


class PriceChangeInline(PriceChangeColumns, admin.TabularInline):
    model = PriceChange
    extra = 0
    can_delete = False
    fields = readonly_fields = ["old_price_shown", "new_price_shown", "seen_at"]
    verbose_name_plural = _("price changes")

    def has_add_permission(self, request, obj=None):
        return False


class MachineWrittenAdmin(BigTableAdmin):
    """Rows the scraper writes: operators look and may delete, never add or edit."""

    list_per_page = 50

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


def _image(url, css):
    """The marketplace's image, lazy and without our address as referrer; only an http(s) URL
    (a scraped `javascript:` or `data:` URL is not ours to load)."""
    if not url.lower().startswith(("https://", "http://")):
        return ""
    return format_html(
        '<img src="{}" class="{}" alt="" loading="lazy" referrerpolicy="no-referrer">', url, css
    )


@admin.register(Ad)
class AdAdmin(AdRelistAdmin, MachineWrittenAdmin):
    list_display = [
        "thumbnail",
        "title_link",
        "price_change",
        "location",
        "published_at",
        "keyword_names",
        "judgement",
    ]
    list_display_links = None
    list_filter = [
        MatchedFilter,
        JudgementFilter,
        ("keywords", KeywordFilter),
        AdSourceFilter,
        PriceRangeFilter,
        NewTodayFilter,
        DroppedInPriceFilter,
        GoneFilter,
    ]
    # Searched by get_search_results below (title words; a number may also be an id).
    search_fields = ["title"]
    readonly_fields = [
        "image",
        "keyword_links",
        "price_history",
        "earlier_listing",
        "possible_relist_of",
        "later_relists",
        "price_shown",
        *[f.name for f in Ad._meta.fields if f.name != "id"],
    ]
    fieldsets = [
        (
            None,
            {
                "fields": [
                    "title",
                    "url",
                    "price_shown",
                    "currency",
                    "location",
                    "postcode",
                    "image",
                    "image_url",
                    "keyword_links",
                ]
            },
        ),
        (_("Price history"), {"fields": ["price_history"]}),
        (
            _("Listing"),
            {"fields": ["gone_at", "earlier_listing", "possible_relist_of", "later_relists"]},
        ),
        (
            _("Record"),
            {"fields": ["source", "external_id", "published_at", "first_seen_at", "last_seen_at"]},
        ),
    ]
    inlines = [PriceChangeInline]

    def get_queryset(self, request):
        first = PriceChange.objects.filter(ad=OuterRef("pk")).order_by("seen_at", "id")
        # The keyword names and price judgements of a page's ads in one query, oldest keyword
        # first.
        matches = (
            KeywordAd.objects.select_related("keyword")
            .only("ad_id", "keyword__name", "keyword__query", *KeywordAd.JUDGEMENT_FIELDS)
            .order_by("keyword_id")
        )
        return (
            super()
            .get_queryset(request)
            # No Exists(…) beside it: PostgreSQL ran that as a hashed subplan over every price
            # change (0.6 s at 200,000); without changes first_price is NULL, which says the same.
            .annotate(first_price=Subquery(first.values("old_price")[:1]))
            .prefetch_related(Prefetch("matches", queryset=matches, to_attr="listed_matches"))
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
        return _image(obj.image_url, "lago-thumb")

    @admin.display(description=_("image"))
    def image(self, obj):
        return _image(obj.image_url, "lago-image") or "—"

    @admin.display(description=_("title"), ordering="title")
    def title_link(self, obj):
        return format_html(
            '<a href="{}" target="_blank" rel="noopener noreferrer">{}</a> '
            '<a href="{}" class="lago-muted">{}</a>',
            obj.url,
            obj.title,
            f"{obj.pk}/change/",
            _("details"),
        )

    @admin.display(description=_("price"))
    def price_shown(self, obj):
        """The one price format (€ 1.236,50, zu verschenken, Preis auf Anfrage), not the raw
        decimal."""
        return format_price(obj.price)

    @admin.display(description=_("price"), ordering="price")
    def price_change(self, obj):
        if obj.price is None:
            return format_html('<span class="lago-muted">{}</span>', format_price(None))
        if obj.first_price is None or obj.first_price == obj.price:
            return format_price(obj.price)
        delta = obj.price - obj.first_price
        css, sign = ("lago-down", "−") if delta < 0 else ("lago-up", "+")
        return format_html(
            '{} <span class="{}">{}{}</span>', format_price(obj.price), css, sign, euro(abs(delta))
        )

    @admin.display(description=_("keywords"))
    def keyword_names(self, obj):
        return ", ".join(match.keyword.display_name for match in obj.listed_matches)

    @admin.display(description=_("price judgement"))
    def judgement(self, obj):
        """Each keyword's judgement of the ad's price (usually one keyword)."""
        texts = [judgement_text(m) for m in obj.listed_matches if m.price_label]
        return format_html_join(mark_safe("<br>"), "{}", ((t,) for t in texts)) or "—"

    @admin.display(description=_("keywords"))
    def keyword_links(self, obj):
        """The keywords that found this ad, each linked to its page, with the day it did and its
        judgement of the ad's price."""
        matches = obj.matches.select_related("keyword").order_by("keyword_id") if obj.pk else []
        if not matches:
            return "—"
        return format_html_join(
            mark_safe("<br>"),
            '<a href="{}">#{} {}</a> <span class="lago-muted">{}</span> {}',
            (
                (
                    reverse("admin:tracker_keyword_change", args=[m.keyword_id]),
                    m.keyword_id,
                    m.keyword.display_name,
                    date_format(timezone.localtime(m.found_at), "SHORT_DATE_FORMAT"),
                    judgement_text(m),
                )
                for m in matches
            ),
        )

    @admin.display(description=_("possible relist of"))
    def possible_relist_of(self, obj):
        """Matches not linked because a seller is unknown (tracker.relists): for the operator to
        judge, never followed by the chart or the messages."""
        candidates = Ad.objects.possible_earlier_listings(obj)
        if not candidates:
            return "—"
        return format_html_join(
            mark_safe("<br>"), "{}", ((self._listing_link(ad),) for ad in candidates)
        )

    @admin.display(description=_("chart"))
    def price_history(self, obj):
        if obj.pk is None:
            return ""
        # A relist's chart starts with the listings it relists (tracker.relists).
        now = timezone.now()
        points = [
            p
            for ad in [*earlier_listings(obj), obj]
            for p in ad_price_points(ad, list(ad.price_changes.all()), now)
        ]
        title = _("Price history of %(title)s") % {"title": obj.title}
        return mark_safe(price_chart_svg(points, title=title))  # noqa: S308 (every text in it is escaped)


@admin.register(PriceChange)
class PriceChangeAdmin(PriceChangeColumns, MachineWrittenAdmin):
    # Rendering the rows is most of the page (bench/README.md, history.py).
    list_per_page = 25
    list_display = ["ad", "old_price_shown", "new_price_shown", "seen_at"]
    list_select_related = ["ad"]
    search_fields = ["ad__title", "ad__external_id"]
    fields = readonly_fields = ["ad", "old_price_shown", "new_price_shown", "seen_at"]
    # No date_hierarchy: its drill-down reads the dates of every row.


@admin.register(KeywordAd)
class KeywordAdAdmin(MachineWrittenAdmin):
    list_display = ["keyword", "ad", "found_at", "judgement"]
    list_select_related = ["keyword", "ad"]
    list_filter = [("keyword", KeywordFilter), "price_label"]
    search_fields = ["ad__title", "keyword__query"]
    readonly_fields = ["keyword", "ad", "found_at", "judgement"]

    @admin.display(description=_("price judgement"), ordering="price_label")
    def judgement(self, obj):
        return judgement_text(obj) or "—"


@admin.register(Heartbeat)
class HeartbeatAdmin(admin.ModelAdmin):
    list_display = ["name", "last_seen_at", "detail"]
    readonly_fields = ["name", "last_seen_at", "detail"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
