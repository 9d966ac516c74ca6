"""Hostile responses: a gzip bomb, a peer dripping bytes, JSON nested past the recursion limit."""

import pytest

from scraping import http
from scraping.models import ScrapeRun
from scraping.scrape import scrape_keyword
from tests.factories import make_keyword

pytestmark = pytest.mark.django_db


def _run(keyword):
    run = ScrapeRun.objects.create(keyword=keyword, source="willhaben")
    scrape_keyword(keyword, run)
    run.refresh_from_db()
    return run


def test_a_gzip_bomb_fails_the_run_as_too_large(willhaben_server, settings):
    settings.SCRAPE_MAX_RESPONSE_BYTES = 1_000_000
    willhaben_server.gzip_bomb(64_000_000)
    assert len(willhaben_server.bomb) < 200_000
    run = _run(make_keyword(query="x"))
    assert (run.status, run.error) == ("failed", "too_large")
    assert "SCRAPE_MAX_RESPONSE_BYTES" in run.detail
    assert len(willhaben_server.search_requests()) == 1  # not retried: it would be as big again


def test_a_body_at_the_cap_is_read(willhaben_server, settings):
    settings.SCRAPE_MAX_RESPONSE_BYTES = 4_000
    willhaben_server.gzip_bomb(4_000)
    response = http.fetch(
        willhaben_server.base_url + "/webapi/iad/search/atz/seo/x", headers={"x-wh-client": "t"}
    )
    assert response.content == bytes(4_000) and "content-encoding" not in response.headers


def test_a_dripping_peer_ends_within_the_time_budget(willhaben_server, settings):
    # Each byte comes well within the read timeout: only a deadline for the whole request stops it.
    willhaben_server.mode = "drip"
    willhaben_server.drip_s, willhaben_server.drip_bytes = 0.1, 80
    settings.HTTP_RETRIES = 0
    with http.time_budget(1.0):
        outcome = scrape_keyword(make_keyword(query="x"))
    # The whole drip (8 s, spaces) would be read and fail as a parse error: a timeout means the
    # deadline cut it.
    assert (outcome.status, outcome.error) == ("failed", "timeout")


def test_a_dripping_peer_without_a_budget_ends_by_scrape_time_budget(willhaben_server, settings):
    willhaben_server.mode = "drip"
    willhaben_server.drip_s, willhaben_server.drip_bytes = 0.1, 80
    settings.HTTP_RETRIES = 0
    settings.SCRAPE_TIME_BUDGET_S = 1
    outcome = scrape_keyword(make_keyword(query="x"))
    assert (outcome.status, outcome.error) == ("failed", "timeout")


def test_deeply_nested_json_is_a_parse_error(willhaben_server):
    willhaben_server.mode = "deep_json"
    run = _run(make_keyword(query="x"))
    assert (run.status, run.error) == ("failed", "parse_error")
