"""The real source registry covers every value the keyword form offers for Keyword.source."""

import inspect

import pytest

from scraping.admin_keywords import KeywordForm
from scraping.sources import UnknownSource, get_handler, registry
from scraping.sources.base import Source


def test_every_keyword_source_choice_resolves_to_a_handler():
    field = KeywordForm.base_fields["source"]
    values = [value for value, _label in field.choices]
    # The choices come from the registry: name the expected sources, or a lost line goes unnoticed.
    assert values == ["willhaben"]
    for value in values:
        handler = get_handler(value)
        assert issubclass(handler, Source), f"{value}: {handler!r} is not a source handler"


@pytest.mark.parametrize("slug", list(registry.SOURCES))
def test_every_registered_source_implements_the_contract(slug):
    handler = get_handler(slug)
    missing = [
        name
        for name in Source.CONTRACT
        if not callable(getattr(handler, name, None)) or _abstract(getattr(handler, name))
    ]
    assert missing == [], f"{slug} lacks {missing}"


def _abstract(method):
    """A method left as the base's NotImplementedError stub."""
    base = getattr(Source, method.__name__)
    return method is base and "raise NotImplementedError" in inspect.getsource(base)


def test_a_source_without_a_contract_method_is_found():
    class Partial(Source):
        def fetch_pages(self, query, **kwargs):
            return iter(())

    missing = [name for name in Source.CONTRACT if _abstract(getattr(Partial, name))]
    assert missing == ["validate_query", "parse"]


def test_the_registry_holds_both_marketplaces_and_offers_the_enabled_ones(settings):
    # Name them: a lost registry line would otherwise go unnoticed.
    assert list(registry.SOURCES) == ["willhaben", "kleinanzeigen"]
    settings.SCRAPE_SOURCES = ["kleinanzeigen"]
    assert registry.choices() == [("kleinanzeigen", "kleinanzeigen.de")]


def test_every_registry_line_points_at_an_importable_handler():
    for slug in registry.SOURCES:
        assert get_handler(slug) is not None


def test_unknown_slug_raises_one_clear_error():
    with pytest.raises(
        UnknownSource, match="unknown source 'nope'; known: kleinanzeigen, willhaben"
    ):
        get_handler("nope")
