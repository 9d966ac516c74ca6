"""Changelists of the big tables (scrape runs, notifications, ads): cheap to count and to render.

At six months a page of 100 rows took 0.6–1.3 s while its SQL took under 50 ms
(bench/history.py): the time went into rendering the rows, about 6 ms a row on the
shared 2-core machine. So: 50 rows a page (half the rendering), and Django's
per-row action checkbox, a form widget rendered through the template engine, is
written directly. The estimated-count paginator replaces the COUNT(*) per page
on PostgreSQL. No facet counts (one COUNT per filter choice over millions of rows),
each row's link carries the list's filters without Django's resolve() per row, and
the rows' cells come from lib.admin_rows (each column looked up once per page).
"""

from urllib.parse import quote as url_quote

from django.contrib import admin
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.admin.utils import quote as admin_quote
from django.contrib.admin.views.main import ChangeList
from django.urls import reverse
from django.utils.html import format_html
from django.utils.http import RFC3986_SUBDELIMS
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _

from lib.paginator import EstimatedCountPaginator

PK_SLOT = "lago-pk-slot"


def defer_related(model, relation, keep):
    """`relation__<column>` for each column of the related model but its pk and `keep`: for a
    list that shows the related row by its name (select_related loads every column otherwise)."""
    related = model._meta.get_field(relation).related_model
    return [
        f"{relation}__{f.name}"
        for f in related._meta.concrete_fields
        if not f.primary_key and f.name not in keep
    ]


class BigChangeList(ChangeList):
    """Row links from one reverse() with the list's filters appended once: Django reverses each
    row's URL, then parses and resolve()s it to merge the filters (`?_changelist_filters=…`).
    The URLs are the same. The rows skip the columns `list_defer` names."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Read by items_for_result only (the page's own links use the view's context).
        self.row_query, self.preserved_filters = self.preserved_filters, ""
        self.change_url = reverse(
            f"admin:{self.opts.app_label}_{self.opts.model_name}_change",
            args=(PK_SLOT,),
            current_app=self.model_admin.admin_site.name,
        )

    def url_for_result(self, result):
        # Quoted as reverse() quotes an argument.
        pk = url_quote(
            str(admin_quote(getattr(result, self.pk_attname))), safe=RFC3986_SUBDELIMS + "/~:@"
        )
        url = self.change_url.replace(PK_SLOT, pk, 1)
        return f"{url}?{self.row_query}" if self.row_query else url

    def get_results(self, request):
        super().get_results(request)
        self.model_admin.prepare_page(self.result_list)

    def apply_select_related(self, qs):
        qs = super().apply_select_related(qs)
        return qs.defer(*self.model_admin.list_defer) if self.model_admin.list_defer else qs


class BigTableAdmin(admin.ModelAdmin):
    list_per_page = 50
    show_full_result_count = False
    show_facets = admin.ShowFacets.NEVER
    paginator = EstimatedCountPaginator
    # Its rows from lib.admin_rows (the same cells, looked up once per column).
    change_list_template = "admin/lago_big_change_list.html"
    # Columns the list does not show (BigChangeList), e.g. defer_related(Model, "fk",
    # keep={"name"}).
    list_defer = ()

    def get_changelist(self, request, **kwargs):
        return BigChangeList

    def prepare_page(self, rows):
        """Reads what the page's columns need of other tables, once for the page's `rows`
        (evaluating them), where a prefetch would build a queryset and instances per row."""

    @admin.display(description=mark_safe('<input type="checkbox" id="action-toggle">'))
    def action_checkbox(self, obj):
        """The same input as Django's (name, value, class, aria-label), without a form widget's template."""
        return format_html(
            '<input type="checkbox" name="{}" value="{}" class="action-select" aria-label="{}">',
            ACTION_CHECKBOX_NAME,
            obj.pk,
            _("Select this object for an action - {}").format(obj),
        )
