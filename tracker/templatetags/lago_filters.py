"""Changelist filters with hundreds of choices (the keyword filter), rendered in one pass."""

from django import template
from django.utils.encoding import iri_to_uri
from django.utils.html import conditional_escape, escape
from django.utils.safestring import mark_safe

register = template.Library()


@register.filter
def choice_links(choices):
    """The <li> links of admin/filter.html, without a template loop per choice (300 keywords: 300 loops)."""
    links = []
    for choice in choices:
        selected = ' class="selected"' if choice["selected"] else ""
        href, label = escape(iri_to_uri(choice["query_string"])), conditional_escape(choice["display"])
        links.append(f'<li{selected}><a href="{href}">{label}</a></li>')
    return mark_safe("".join(links))  # noqa: S308 (every link and label is escaped)
