"""The result table of a big changelist (lib.admin_rows), for templates/admin/lago_big_change_list.html."""

from django import template
from django.contrib.admin.templatetags.admin_list import result_headers, result_hidden_fields

from lib.admin_rows import rows

register = template.Library()


@register.inclusion_tag("admin/change_list_results.html")
def big_result_list(cl):
    """Django's result_list tag with lib.admin_rows' rows."""
    headers = list(result_headers(cl))
    return {
        "cl": cl,
        "result_hidden_fields": list(result_hidden_fields(cl)),
        "result_headers": headers,
        "num_sorted_fields": sum(1 for h in headers if h["sortable"] and h["sorted"]),
        "results": rows(cl),
    }
