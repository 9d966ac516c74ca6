"""The source registry: slug -> (label, handler import path).

Adding a marketplace is a new module in this package and one line here.
Handlers are imported lazily so that settings and migrations never pull in
HTTP code.
"""

from django.utils.module_loading import import_string

SOURCES = {
    "willhaben": ("willhaben.at", "scraping.sources.willhaben.WillhabenSource"),
}


class UnknownSource(LookupError):
    """No handler is registered for a source slug."""

    def __init__(self, slug):
        super().__init__(f"unknown source {slug!r}; known: {', '.join(sorted(SOURCES))}")
        self.slug = slug


def slugs():
    return list(SOURCES)


def choices():
    """Field choices for `Keyword.source` (a callable, so adding a source needs no migration)."""
    return [(slug, label) for slug, (label, _path) in SOURCES.items()]


def get_handler(slug):
    """The handler class for `slug`; raises UnknownSource when there is none."""
    try:
        _label, path = SOURCES[slug]
    except KeyError:
        raise UnknownSource(slug) from None
    try:
        return import_string(path)
    except ImportError as exc:
        raise UnknownSource(slug) from exc
