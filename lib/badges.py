"""Coloured status badges for the admin (styles in static/tracker/admin.css)."""

from django.utils.html import format_html

# Status value → colour class; anything unknown is grey.
COLOURS = {
    "ok": "green",
    "done": "green",
    "sent": "green",
    "active": "green",
    "running": "blue",
    "pending": "blue",
    "failed": "red",
    "banned": "red",
    "dead": "red",
    "blocked": "red",
    "unhealthy": "red",
    "skipped": "amber",
    "paused": "amber",
}


def badge(status, label=None):
    return format_html(
        '<span class="lago-badge lago-{}">{}</span>', COLOURS.get(status, "grey"), label or status
    )
