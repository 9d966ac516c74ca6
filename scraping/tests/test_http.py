"""The shared client against a real local server: pooling, retries, Retry-After, gaps."""

import time

import pytest

from scraping import http
from scraping.errors import FetchError
from tests.fakes.willhaben import SEARCH_PREFIX
from tests.fakes.willhaben_factory import make_raw_ads

HEADERS = {"x-wh-client": "test"}


@pytest.fixture
def search_url(willhaben_server):
    willhaben_server.set_ads(make_raw_ads(3))
    return willhaben_server.base_url + SEARCH_PREFIX + "kaufen-und-verkaufen/marktplatz"


def test_one_client_per_process():
    assert http.get_client() is http.get_client()


def test_many_requests_share_one_connection(willhaben_server, search_url):
    for _ in range(20):
        http.fetch(search_url, params={"keyword": "x"}, headers=HEADERS)
    assert len(willhaben_server.requests) == 20
    assert willhaben_server.connections == 1


def test_5xx_is_retried_then_succeeds(willhaben_server, search_url):
    willhaben_server.fail_next(status=503, times=2)
    assert http.fetch(search_url, headers=HEADERS).status_code == 200
    assert len(willhaben_server.requests) == 3


def test_5xx_gives_up_after_bounded_retries(willhaben_server, search_url, settings):
    settings.HTTP_RETRIES = 2
    willhaben_server.fail_next(status=502, times=10)
    with pytest.raises(FetchError) as info:
        http.fetch(search_url, headers=HEADERS)
    assert info.value.slug == "http_5xx" and not info.value.banned
    assert len(willhaben_server.requests) == 3


def test_429_waits_for_retry_after(willhaben_server, search_url, fetch_waits):
    willhaben_server.fail_next(status=429, times=1, retry_after=7)
    assert http.fetch(search_url, headers=HEADERS).status_code == 200
    assert fetch_waits == [7.0]
    assert len(willhaben_server.requests) == 2


def test_429_with_a_too_long_retry_after_is_a_ban(willhaben_server, search_url, settings):
    settings.HTTP_RETRY_AFTER_MAX_S = 5
    willhaben_server.fail_next(status=429, times=1, retry_after=3600)
    with pytest.raises(FetchError) as info:
        http.fetch(search_url, headers=HEADERS)
    assert info.value.banned and info.value.slug == "http_429"
    assert len(willhaben_server.requests) == 1


def test_403_is_a_ban_without_retry(willhaben_server, search_url):
    willhaben_server.fail_next(status=403, times=5)
    with pytest.raises(FetchError) as info:
        http.fetch(search_url, headers=HEADERS)
    assert info.value.banned and info.value.status == 403
    assert len(willhaben_server.requests) == 1


def test_missing_client_header_is_a_permanent_400(willhaben_server, search_url):
    with pytest.raises(FetchError) as info:
        http.fetch(search_url)
    assert info.value.slug == "http_400" and not info.value.transient
    assert len(willhaben_server.requests) == 1


def test_timeout_is_retried_then_reported(willhaben_server, search_url, settings):
    settings.HTTP_TIMEOUT = 0.2
    settings.HTTP_RETRIES = 1
    willhaben_server.latency_s = 0.5
    with pytest.raises(FetchError) as info:
        http.fetch(search_url, headers=HEADERS)
    assert info.value.slug == "timeout" and info.value.transient
    assert len(willhaben_server.requests) == 2


def test_requests_to_one_host_keep_the_minimum_gap(willhaben_server, search_url, settings):
    settings.SCRAPE_MIN_REQUEST_GAP_MS = 150
    started = time.monotonic()
    for _ in range(4):
        http.fetch(search_url, headers=HEADERS)
    assert time.monotonic() - started >= 0.45


def test_retry_after_parses_seconds_and_dates():
    assert http.parse_retry_after("7") == 7.0
    assert http.parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
    assert http.parse_retry_after("soon") is None
