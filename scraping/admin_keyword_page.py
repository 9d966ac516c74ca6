"""The keyword's own admin page: a *Run now* button, its last runs and the ads it found; on the
add and change form a *Test search* button (the first page of the query, nothing saved).

A mixin for scraping.admin_keywords.KeywordAdmin. Self-contained: two URLs (POST only), the
market chart's image URL, three read-only fields in their own fieldset, and the buttons in
templates/admin/tracker/keyword/change_form.html.
"""

import logging

from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from lib.badges import badge
from lib.money import format_price
from scraping.claims import claim_keyword_now
from scraping.error_texts import explain
from scraping.errors import BadQuery
from scraping.models import ScrapeRun
from scraping.scrape import scrape_keyword
from scraping.sources import registry
from scraping.tick import enqueue_scrape
from tracker import admin as tracker_admin
from tracker.market_report import market_report
from tracker.models import Keyword
from tracker.report_chart import HEIGHT as CHART_HEIGHT
from tracker.report_chart import WIDTH as CHART_WIDTH
from tracker.report_chart import report_chart_png

logger = logging.getLogger(__name__)

RECENT_RUNS = 10


class KeywordPageMixin:
    run_fieldset = (
        gettext_lazy("Runs and ads"),
        {"fields": ["recent_runs", "ads_found_total", "market_chart"]},
    )

    def get_fieldsets(self, request, obj=None):
        fieldsets = list(super().get_fieldsets(request, obj))
        return fieldsets if obj is None else [*fieldsets, self.run_fieldset]

    def get_readonly_fields(self, request, obj=None):
        return [
            *super().get_readonly_fields(request, obj),
            "recent_runs",
            "ads_found_total",
            "market_chart",
        ]

    def get_urls(self):
        view = self.admin_site.admin_view(self.run_now_view)
        test = self.admin_site.admin_view(self.test_search_view)
        chart = self.admin_site.admin_view(self.report_chart_view)
        return [
            path("<path:object_id>/report-chart.png", chart, name=self.url_name("report_chart")),
            path("test-search/", test, name=self.url_name("test_search")),
            path("<path:object_id>/run-now/", view, name=self.url_name("run_now")),
            *super().get_urls(),
        ]

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        extra_context = {
            **(extra_context or {}),
            "test_search_url": reverse(f"admin:{self.url_name('test_search')}"),
        }
        return super().changeform_view(request, object_id, form_url, extra_context)

    def test_search_view(self, request):
        """The keyword form's *Test search* (POST, CSRF): the first page of the form's query and
        source, shown and not stored (a dry run: no keyword, ads, cursor or run is written)."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not (self.has_add_permission(request) or self.has_change_permission(request)):
            raise PermissionDenied
        query = request.POST.get("query", "").strip()
        source = request.POST.get("source", "")
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("Test search"),
            "query": query,
            "ads": [],
            "error": "",
        }
        if source not in registry.enabled():
            context["error"] = _("Unknown source %(value)s.") % {"value": source}
        elif not query:
            context["error"] = _("Enter a query first.")
        else:
            context.update(self._first_page(query, source))
        return TemplateResponse(request, "admin/tracker/keyword/test_search.html", context)

    def _first_page(self, query, source):
        try:
            registry.get_handler(source)().validate_query(query)
        except BadQuery as exc:
            return {
                "error": _("The %(source)s source cannot search this: %(error)s.")
                % {"source": source, "error": exc}
            }
        ads = []
        keyword = Keyword(query=query, source=source)
        outcome = scrape_keyword(
            keyword,
            None,
            max_pages=1,
            dry_run=True,
            on_page=lambda page, result: ads.extend(page.ads),
        )
        shown = [(ad.title, format_price(ad.price), ad.url) for ad in ads]
        if not outcome.ok:
            logger.info("test search %r on %s failed: %s", query, source, outcome.error)
            return {"error": explain(outcome.error, source), "ads": shown}
        return {"ads": shown}

    def url_name(self, view):
        return f"{self.opts.app_label}_{self.opts.model_name}_{view}"

    def change_view(self, request, object_id, form_url="", extra_context=None):
        extra_context = extra_context or {}
        obj = self.get_object(request, unquote(object_id))
        if obj is not None and self.has_change_permission(request, obj):
            extra_context["run_now_url"] = reverse(
                f"admin:{self.url_name('run_now')}", args=[obj.pk]
            )
        return super().change_view(request, object_id, form_url, extra_context)

    def run_now_view(self, request, object_id):
        """POST (with CSRF, checked by admin_view's middleware): claim and enqueue one run, back to
        the page."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        keyword = self.get_object(request, unquote(object_id))
        if keyword is None:
            raise Http404(_("No keyword with id %(id)s.") % {"id": object_id})
        if not self.has_change_permission(request, keyword):
            raise PermissionDenied
        self.start_run(request, keyword)
        return HttpResponseRedirect(reverse(f"admin:{self.url_name('change')}", args=[keyword.pk]))

    def report_chart_view(self, request, object_id):
        """The market report's chart of the keyword, as the weekly report sends it (PNG), for
        whoever may view the keyword."""
        keyword = self.get_object(request, unquote(object_id))
        if keyword is None:
            raise Http404(_("No keyword with id %(id)s.") % {"id": object_id})
        if not self.has_view_permission(request, keyword):
            raise PermissionDenied
        response = HttpResponse(report_chart_png(market_report(keyword)), content_type="image/png")
        response["Cache-Control"] = "private, max-age=300"
        return response

    def start_run(self, request, keyword):
        """Claims a run like a scheduled one (same skip rules), enqueued after commit; tells the
        operator."""
        run, skip = claim_keyword_now(keyword)
        if run is None:
            message = _("“%(keyword)s” not started: %(reason)s (%(detail)s).")
            self.message_user(
                request,
                message
                % {
                    "keyword": keyword,
                    "reason": explain(skip.reason, keyword.source),
                    "detail": skip.detail,
                },
                messages.WARNING,
            )
            return
        transaction.on_commit(lambda: enqueue_scrape(run))
        message = _("“%(keyword)s” enqueued as scrape run %(run)s.")
        self.message_user(request, message % {"keyword": keyword, "run": run.pk}, messages.SUCCESS)

    @admin.display(description=gettext_lazy("last runs"))
    def recent_runs(self, obj):
        """The last runs (one bounded query on scraperun_keyword_idx), each linked to its run
        page."""
        if obj is None or obj.pk is None:
            return ""
        runs = list(
            ScrapeRun.objects.filter(keyword=obj).order_by("-started_at", "-id")[:RECENT_RUNS]
        )
        if not runs:
            return format_html('<span class="lago-muted">{}</span>', _("never ran"))
        head = format_html(
            "<tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th></tr>",
            _("started"),
            _("kind"),
            _("status"),
            _("ads seen / new"),
            _("error"),
        )
        rows = format_html_join(
            "",
            '<tr><td><a href="{}">{}</a></td><td>{}</td><td>{}</td>'
            "<td>{} / {}</td><td>{}</td></tr>",
            (
                (
                    reverse("admin:scraping_scraperun_change", args=[run.pk]),
                    tracker_admin.short_datetime(run.started_at),
                    run.get_kind_display(),
                    badge(run.status, run.get_status_display()),
                    run.ads_seen,
                    run.ads_new,
                    _error_words(run),
                )
                for run in runs
            ),
        )
        everything = (
            reverse("admin:scraping_scraperun_changelist") + f"?keyword__id__exact={obj.pk}"
        )
        return format_html(
            '<table class="lago-runs">{}{}</table><p><a href="{}">{}</a></p>',
            head,
            rows,
            everything,
            _("all runs of this keyword"),
        )

    @admin.display(description=gettext_lazy("ads found"))
    def ads_found_total(self, obj):
        if obj is None or obj.pk is None:
            return ""
        count = obj.matches.count()  # COUNT(*) over keywordad_found_idx
        url = reverse("admin:tracker_ad_changelist") + f"?keywords__id__exact={obj.pk}"
        return format_html(
            '<a href="{}">{}</a>',
            url,
            ngettext(
                "%(count)s ad: show it in the ad list",
                "%(count)s ads: show them in the ad list",
                count,
            )
            % {"count": count},
        )

    @admin.display(description=gettext_lazy("market, last 12 weeks"))
    def market_chart(self, obj):
        """The chart as an image the browser fetches from report_chart_view: the page stays small
        and quick, and the image answers to the keyword's view permission like the page."""
        if obj is None or obj.pk is None:
            return ""
        url = reverse(f"admin:{self.url_name('report_chart')}", args=[obj.pk])
        return format_html(
            '<img src="{}" width="{}" height="{}" alt="{}" loading="lazy">',
            url,
            CHART_WIDTH,
            CHART_HEIGHT,
            _("weekly median price with the middle half of the prices"),
        )


def _error_words(run):
    """The run's failure in words, its slug on hover; nothing for a run without one."""
    if not run.error:
        return ""
    return format_html('<span title="{}">{}</span>', run.error, explain(run.error, run.source).text)
