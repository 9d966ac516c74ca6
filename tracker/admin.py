from datetime import timedelta
from decimal import Decimal

from django import forms
from django.contrib import admin, messages
from django.db.models import Count, IntegerField, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from lib.badges import badge
from lib.money import euro, parse_euro

# The machine-written tables (ads, price changes, matches, heartbeats) register themselves there.
from tracker import admin_ads  # noqa: F401
from tracker.admin_activity import KeywordActivityAdmin
from tracker.admin_filters import AlertFilter
from tracker.models import Keyword, KeywordAd

INTERVAL_MESSAGE = _("The interval must be at least 1 minute.")


def subquery_count(model, **filters):
    """A correlated COUNT per row (filters[0] names the outer row): no join blow-up, no extra query.

    COUNT(*), not COUNT(id): PostgreSQL answers it from an index on the filtered columns alone."""
    rows = model.objects.filter(**filters).order_by().values(next(iter(filters)))
    return Coalesce(
        Subquery(rows.annotate(n=Count("*")).values("n")[:1], output_field=IntegerField()), 0
    )


def short_datetime_text(moment):
    """09:24 today, else 03.12.2026 09:24 (the active language's formats)."""
    local = timezone.localtime(moment)
    same_day = local.date() == timezone.localdate()
    return date_format(local, "TIME_FORMAT" if same_day else "SHORT_DATETIME_FORMAT")


def short_datetime(moment):
    """short_datetime_text on one line."""
    if moment is None:
        return ""
    return format_html('<span class="lago-nowrap">{}</span>', short_datetime_text(moment))


class PriceField(forms.DecimalField):
    """A price shown in the one price format ("€ 2.000", not "2000.00") and read back as people
    type it ("2.000", "1.234,50", "2000")."""

    widget = forms.TextInput(attrs={"inputmode": "decimal", "size": 12})

    def prepare_value(self, value):
        return euro(value) if isinstance(value, (Decimal, int)) else value

    def to_python(self, value):
        if value in self.empty_values:
            return None
        try:
            return parse_euro(value)
        except ValueError:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid") from None


class KeywordForm(forms.ModelForm):
    class Meta:
        model = Keyword
        field_classes = {"price_min": PriceField, "price_max": PriceField}
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
            # Replaces Django's "Ensure this value is greater than or equal to 1." (from both min
            # validators).
            "interval_minutes": {"min_value": INTERVAL_MESSAGE},
        }

    def clean(self):
        """A second keyword with the same search of the same source is refused: the two could not
        be told apart, and every ad would be fetched twice."""
        data = super().clean()
        query, source = data.get("query"), data.get("source")
        if query and source:
            others = Keyword.objects.exclude(pk=self.instance.pk).same_query(source, query)
            if others:
                existing = others[0]
                url = reverse("admin:tracker_keyword_change", args=[existing.pk])
                self.add_error(
                    "query",
                    format_html(
                        gettext('This search exists already: <a href="{}">{}</a> (#{}).'),
                        url,
                        existing.display_name,
                        existing.pk,
                    ),
                )
        return data


class CoreKeywordAdmin(KeywordActivityAdmin, admin.ModelAdmin):
    """Keywords as the core knows them. Not registered here: the Keyword admin is registered once,
    by scraping (scraping/admin_keywords.py), the layer that also knows its runs, *Run now* and
    subscribers. The list fits 1366 px: few columns, each combining what belongs together (name
    with source, interval, pause, alert)."""

    form = KeywordForm
    list_display = ["keyword", "next_run", "ads_found"]
    list_display_links = ["keyword"]
    list_filter = ["source", "is_active", AlertFilter]
    search_fields = ["name", "query"]
    readonly_fields = [
        "cursor_published_at",
        "cursor_ad_id",
        "last_run_at",
        "zero_result_alert_at",
        "created_at",
        "updated_at",
        "activity",
    ]
    fieldsets = [
        (None, {"fields": ["name", "query", "source", "is_active", "interval_minutes"]}),
        (_("Filters"), {"fields": ["price_min", "price_max", "excluded_words"]}),
        (
            _("Schedule and cursor"),
            {
                "fields": [
                    "next_run_at",
                    "last_run_at",
                    "cursor_published_at",
                    "cursor_ad_id",
                    "zero_result_alert_at",
                ]
            },
        ),
        (_("Activity"), {"fields": ["activity"]}),
        (_("Record"), {"fields": ["created_at", "updated_at"], "classes": ["collapse"]}),
    ]
    actions = ["pause", "resume", "reset_cursor"]

    def get_queryset(self, request):
        # Correlated COUNT(*) subqueries, each an index-only range of keywordad_found_idx (keyword,
        # found_at): no JOIN of the keyword rows with their ads, and only the rows of the page shown
        # are counted.
        day_ago = timezone.now() - timedelta(hours=24)
        return (
            super()
            .get_queryset(request)
            .annotate(
                n_ads=subquery_count(KeywordAd, keyword=OuterRef("pk")),
                n_ads_24h=subquery_count(KeywordAd, keyword=OuterRef("pk"), found_at__gte=day_ago),
            )
        )

    @admin.display(description=_("keyword"), ordering="name")
    def keyword(self, obj):
        """The name (long ones wrap), then id, source, interval and pause in grey, then an open
        alert. The id is what the bot's `/subscribe <id>` takes."""
        details = [
            f"#{obj.pk}",
            obj.source,
            _("every %(minutes)s min") % {"minutes": obj.interval_minutes},
        ]
        if not obj.is_active:
            details.append(str(_("paused")))
        return format_html(
            '<span class="lago-kw-name">{}</span><br><span class="lago-muted">{}</span>{}',
            obj.display_name,
            " · ".join(details),
            self.alert(obj),
        )

    @admin.display(description=_("next run"), ordering="next_run_at")
    def next_run(self, obj):
        if not obj.is_active:
            return format_html('<span class="lago-muted">{}</span>', _("paused"))
        if obj.next_run_at is not None and obj.next_run_at < timezone.now():
            # A past time alone reads like a stale page; say that the keyword waits for a run.
            return format_html(
                '<span class="lago-nowrap">{}</span>',
                _("overdue since %(time)s") % {"time": short_datetime_text(obj.next_run_at)},
            )
        return short_datetime(obj.next_run_at)

    @admin.display(description=_("ads"), ordering="n_ads")
    def ads_found(self, obj):
        """Ads found in all (a link to them in the ad list) and in the last 24 h."""
        url = reverse("admin:tracker_ad_changelist") + f"?keywords__id__exact={obj.pk}"
        recent = _("+%(count)s in 24 h") % {"count": obj.n_ads_24h}
        return format_html(
            '<a href="{}">{}</a><br><span class="lago-muted lago-nowrap">{}</span>',
            url,
            obj.n_ads,
            recent,
        )

    def alert(self, obj):
        if obj.zero_result_alert_at is None:
            return ""
        since = date_format(timezone.localtime(obj.zero_result_alert_at), "SHORT_DATE_FORMAT")
        return format_html(
            "<br>{}", badge("failed", _("zero results since %(date)s") % {"date": since})
        )

    @admin.action(description=_("Pause (stop scheduling)"), permissions=["change"])
    def pause(self, request, queryset):
        done = queryset.pause()
        self.message_user(
            request, ngettext("%(n)d keyword paused.", "%(n)d keywords paused.", done) % {"n": done}
        )

    @admin.action(description=_("Resume (due now)"), permissions=["change"])
    def resume(self, request, queryset):
        done = queryset.resume()
        self.message_user(
            request,
            ngettext("%(n)d keyword resumed.", "%(n)d keywords resumed.", done) % {"n": done},
        )

    @admin.action(
        description=_("Reset cursor (next run pages through all results)…"), permissions=["change"]
    )
    def reset_cursor(self, request, queryset):
        # Like Django's delete confirmation: the first POST shows the page, the second (with
        # "confirm") acts.
        if request.POST.get("confirm") == "yes":
            done = queryset.reset_cursor()
            text = ngettext(
                "Cursor reset for %(n)d keyword.", "Cursor reset for %(n)d keywords.", done
            ) % {"n": done}
            self.message_user(request, text, messages.SUCCESS)
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": _("Reset the cursor?"),
            "keywords": queryset,
            "opts": self.model._meta,
            "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/tracker/keyword/reset_cursor.html", context)
