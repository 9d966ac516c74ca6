"""Readable marketplace names for the layers below scraping (a message names the marketplace).

Empty here: scraping's source registry registers each source's label when it is imported, so
the layers below it never import it (nor name a marketplace themselves).
"""

_labels = {}


def register(slug, label):
    _labels[slug] = label


def label(slug):
    """The marketplace's name ("kleinanzeigen.de"), or the slug when no source registered one."""
    return _labels.get(slug, slug)
