"""The source registry: slug -> (label, handler import path).

Adding a marketplace is a new module in this package and one line here.
Handlers are imported lazily so that settings and migrations never pull in
HTTP code. A source is offered for new keywords only when SCRAPE_SOURCES names it (opt-in: each
marketplace has its own terms); runs of every registered source still work and are filtered.
"""

from django.conf import settings
from django.utils.module_loading import import_string

from lib import marketplaces

SOURCES = {
    "willhaben": ("willhaben.at", "scraping.sources.willhaben.WillhabenSource"),
    "kleinanzeigen": ("kleinanzeigen.de", "scraping.sources.kleinanzeigen.KleinanzeigenSource"),
}

for _slug, (_label, _path) in SOURCES.items():
    marketplaces.register(_slug, _label)


class UnknownSource(LookupError):
    """No handler is registered for a source slug."""

    def __init__(self, slug):
        super().__init__(f"unknown source {slug!r}; known: {', '.join(sorted(SOURCES))}")
        self.slug = slug


def slugs():
    return list(SOURCES)


def enabled():
    """The slugs SCRAPE_SOURCES enables, in registry order (unknown names are left out)."""
    return [slug for slug in SOURCES if slug in settings.SCRAPE_SOURCES]


def choices():
    """Field choices for `Keyword.source`: the enabled sources (a callable, so adding a source
    needs no migration)."""
    return [(slug, SOURCES[slug][0]) for slug in enabled()]


def all_choices():
    """Every registered source: admin filters, which also show runs of a source disabled since."""
    return [(slug, label) for slug, (label, _path) in SOURCES.items()]


def label(slug):
    return marketplaces.label(slug)


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
