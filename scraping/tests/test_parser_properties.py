"""Property: whatever willhaben answers, the parser returns a Page or raises its one error type.

Random JSON, and factory-built search results with one part mutated (a key dropped,
a value replaced by another JSON value), go through `parse_body` + `build_page`.
Anything but a Page or a SourceError (ParseError, the challenge FetchError of an HTML
page is not reachable from JSON) would crash a run as `internal_error`.
"""

import copy
import json

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from scraping.errors import ParseError
from scraping.sources.base import Page
from scraping.sources.willhaben import build_page, next_link_pin, parse_body
from tests.fakes.willhaben_factory import make_raw_ads, search_result

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=20,
)
PROPERTY = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def parse(content):
    try:
        result = parse_body(content)
        page = build_page(result, number=1, rows=30, cursor=None, body=content)
        next_link_pin(result)
    except ParseError:  # the one error a bad body may raise
        return None
    assert isinstance(page, Page)
    return page


def _paths(node, prefix=()):
    """Every (path) inside a JSON document, containers included."""
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _paths(value, (*prefix, i))


def _base():
    return search_result(make_raw_ads(3), rows_found=3, rows_requested=30, page=1, path="x")


BASE_PATHS = [p for p in _paths(_base()) if p]


@PROPERTY
@given(json_values)
def test_random_json_gives_a_page_or_a_parse_error(value):
    parse(json.dumps(value).encode())


@PROPERTY
@given(st.binary(max_size=200))
def test_random_bytes_give_a_page_or_a_parse_error(raw):
    if raw.lstrip()[:1] == b"<":
        # HTML is the challenge path (a FetchError by design), covered in test_willhaben_parsing
        return
    parse(raw)


@PROPERTY
@given(st.sampled_from(BASE_PATHS), st.one_of(st.just("<drop>"), json_values))
@example(("advertSummaryList", "advertSummary", 0, "attributes", "attribute", 0), None)
@example(("advertSummaryList", "advertSummary", 0, "attributes", "attribute", 0, "values"), "x")
@example(("advertSummaryList", "advertSummary"), {"a": 1})
@example(
    ("advertSummaryList", "advertSummary", 0, "advertImageList", "advertImage"), [1]
)  # found by this test: AttributeError
@example(("pagingLinksList", "contextLink"), [1])
@example(("pagingLinksList", "contextLink", 0, "relativePath"), 5)
def test_a_mutated_search_result_gives_a_page_or_a_parse_error(path, replacement):
    doc = copy.deepcopy(_base())
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    if replacement == "<drop>":
        del parent[path[-1]]
    else:
        parent[path[-1]] = replacement
    parse(json.dumps(doc).encode())
    parse(json.dumps({"props": {"pageProps": {"searchResult": doc}}}).encode())


@example({"props": []})
@example({"props": {"pageProps": 3}})
@given(json_values)
@PROPERTY
def test_a_mangled_next_data_wrapper_gives_a_parse_error(value):
    parse(json.dumps({"props": value}).encode())
