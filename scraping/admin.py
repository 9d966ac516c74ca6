import json
import re

from django.contrib import admin
from django.utils.formats import number_format
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from lib.badges import badge
from lib.big_tables import BigTableAdmin

# Registered for their side effect: the Keyword admin over tracker's, the allow-listed Schedule
# admin.
from scraping import admin_keywords, admin_schedules  # noqa: F401
from scraping.admin_filters import SourceFilter
from scraping.error_texts import explain, plain_excerpt
from scraping.models import ScrapeRun
from tracker.admin_filters import KeywordFilter

STATUS_LABELS = dict(ScrapeRun.Status.choices)
KIND_LABELS = dict(ScrapeRun.Kind.choices)
HTML_PAGE = re.compile(r"<(!doctype|html|head|body)\b", re.IGNORECASE)


def _pretty(text):
    """JSON pretty-printed, anything else as it is."""
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        return text


@admin.register(ScrapeRun)
class ScrapeRunAdmin(BigTableAdmin):
    """Written by the scheduler and workers only: read-only here."""

    # Fits 1366 px: source, kind and error under the status; the four counts in one column.
    list_display = ["id", "keyword", "status_badge", "started_at", "duration_s", "counts"]
    list_select_related = ["keyword"]
    # No date_hierarchy and no field filter on `error`: both SELECT DISTINCT over
    # every run (millions); the date links below are plain started_at ranges.
    list_filter = [
        "status",
        "kind",
        SourceFilter,
        ("keyword", KeywordFilter),
        ("started_at", admin.DateFieldListFilter),
    ]
    search_fields = ["keyword__query", "error", "detail"]
    fields = [
        "keyword",
        "source",
        "kind",
        "status",
        "error",
        "error_explained",
        "started_at",
        "finished_at",
        "duration_s",
        "pages_fetched",
        "ads_seen",
        "ads_new",
        "price_drops",
        "detail_pretty",
        "counters_pretty",
    ]
    readonly_fields = fields

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description=_("status"), ordering="status")
    def status_badge(self, obj):
        """The badge (get_status_display() would hash every choice's lazy label, a gettext each,
        for every row), then source and kind, then the error slug."""
        return format_html(
            '{}<br><span class="lago-muted lago-nowrap">{} · {}</span>{}',
            badge(obj.status, STATUS_LABELS.get(obj.status, obj.status)),
            obj.source,
            KIND_LABELS.get(obj.kind, obj.kind),
            format_html('<br><span class="lago-muted lago-wrap">{}</span>', obj.error)
            if obj.error
            else "",
        )

    @admin.display(description=_("pages · ads seen / new / price drops"))
    def counts(self, obj):
        return f"{obj.pages_fetched} · {obj.ads_seen} / {obj.ads_new} / {obj.price_drops}"

    @admin.display(description=_("duration"))
    def duration_s(self, obj):
        if obj.duration is None:
            return _("running")
        # In the locale's notation: "0,4 s" in German.
        return f"{number_format(obj.duration.total_seconds(), decimal_pos=1)} s"

    @admin.display(description=_("what happened"))
    def error_explained(self, obj):
        if not obj.error:
            return "–"
        words = explain(obj.error, obj.source)
        return format_html(
            "{}<br>{} {}",
            words.text,
            _("What to do:"),
            words.next_step,
        )

    @admin.display(description=_("detail"))
    def detail_pretty(self, obj):
        if not obj.detail:
            return "–"
        if HTML_PAGE.search(obj.detail):  # a challenge or error page: its words, not its markup
            return format_html('<p class="lago-pre">{}</p>', plain_excerpt(obj.detail, 500))
        return format_html('<pre class="lago-pre">{}</pre>', _pretty(obj.detail))

    @admin.display(description=_("counters"))
    def counters_pretty(self, obj):
        return format_html(
            '<pre class="lago-pre">{}</pre>', json.dumps(obj.counters, indent=2, sort_keys=True)
        )
