"""The real source registry covers every value the keyword form offers for Keyword.source."""

import pytest

from scraping.admin_keywords import KeywordForm
from scraping.sources import UnknownSource, get_handler, registry


def test_every_keyword_source_choice_resolves_to_a_handler():
    field = KeywordForm.base_fields["source"]
    values = [value for value, _label in field.choices]
    # The choices come from the registry: name the expected sources, or a lost line goes unnoticed.
    assert values == ["willhaben"]
    for value in values:
        handler = get_handler(value)
        assert hasattr(handler, "fetch_pages"), f"{value}: {handler!r} is not a source handler"


def test_every_registry_line_points_at_an_importable_handler():
    for slug in registry.SOURCES:
        assert get_handler(slug) is not None


def test_unknown_slug_raises_one_clear_error():
    with pytest.raises(UnknownSource, match="unknown source 'nope'; known: willhaben"):
        get_handler("nope")
