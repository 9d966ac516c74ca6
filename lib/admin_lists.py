"""Changelists of the big tables (scrape runs, notifications, ads): cheap to count and to render.

At six months a page of 100 rows took 0.6–1.3 s while its SQL took under 50 ms
(bench/history.py): the time went into rendering the rows, about 6 ms a row on the
shared 2-core machine. So: 50 rows a page (half the rendering), and Django's
per-row action checkbox, a form widget rendered through the template engine, is
written directly. The estimated-count paginator replaces the COUNT(*) per page
on PostgreSQL.
"""

from django.contrib import admin
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _

from lib.paginator import EstimatedCountPaginator


class BigTableAdmin(admin.ModelAdmin):
    list_per_page = 50
    show_full_result_count = False
    paginator = EstimatedCountPaginator

    @admin.display(description=mark_safe('<input type="checkbox" id="action-toggle">'))
    def action_checkbox(self, obj):
        """The same input as Django's (name, value, class, aria-label), without a form widget's template."""
        return format_html(
            '<input type="checkbox" name="{}" value="{}" class="action-select" aria-label="{}">',
            ACTION_CHECKBOX_NAME,
            obj.pk,
            _("Select this object for an action - {}").format(obj),
        )
