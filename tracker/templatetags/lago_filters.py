"""Changelist filters with hundreds of choices (the keyword filter), rendered in one pass."""

from django import template
from django.utils.encoding import iri_to_uri
from django.utils.html import format_html_join
from django.utils.safestring import mark_safe

register = template.Library()

SELECTED = mark_safe(' class="selected"')


@register.filter
def choice_links(choices):
    """The <li> links of admin/filter.html, without a template loop per choice (300 keywords: 300 loops)."""
    return format_html_join(
        "",
        '<li{}><a href="{}">{}</a></li>',
        ((SELECTED if c["selected"] else "", iri_to_uri(c["query_string"]), c["display"]) for c in choices),
    )
