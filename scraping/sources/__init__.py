"""Marketplace sources. A source is a module with a handler class; the
registry below maps the slug stored on `Keyword.source` to it."""

from scraping.sources.registry import UnknownSource, choices, get_handler, slugs

__all__ = ["UnknownSource", "choices", "get_handler", "slugs"]
