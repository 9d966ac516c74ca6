"""The one HTTP client of this process, and a polite GET on top of it.

Every request to a marketplace goes through `fetch()`: one lazily created
`httpx.Client` (a keep-alive pool, so repeated requests skip the TCP and TLS
handshakes), a minimum gap between requests to one host, bounded retries with
jittered exponential backoff, and Retry-After on 429. Failures come out as
`FetchError`, a `SourceError` (scraping.errors) that says whether the peer is blocking us.

Settings are read when they are used (tests change them per test); the client
is rebuilt when an HTTP_* setting changes.
"""

import atexit
import contextvars
import logging
import random
import threading
import time
import zlib
from contextlib import contextmanager
from email.utils import parsedate_to_datetime

import httpx
from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils import timezone

from scraping.errors import FetchError

logger = logging.getLogger(__name__)

_client = None
_client_lock = threading.Lock()
# host -> monotonic time of the last request start; guarded by _gap_lock.
_last_request_at = {}
_gap_lock = threading.Lock()
# monotonic time by which every fetch() must be over (see time_budget), or None.
_deadline = contextvars.ContextVar("fetch_deadline", default=None)
# Headers of the wire body that no longer describe a body we have decoded and buffered.
BODY_HEADERS = {"content-encoding", "content-length", "transfer-encoding"}
INFLATE_STEP = 1024 * 1024
# Every wait of fetch() (retry backoff, Retry-After, the per-host gap) goes through this, so a
# test can record the waits instead of sleeping them.
sleep = time.sleep


def get_client():
    """The shared client, created on first use."""
    global _client
    with _client_lock:
        if _client is None or _client.is_closed:
            _client = _build_client()
        return _client


def _build_client():
    limits = httpx.Limits(
        max_connections=settings.HTTP_MAX_CONNECTIONS,
        max_keepalive_connections=settings.HTTP_MAX_KEEPALIVE_CONNECTIONS,
        keepalive_expiry=settings.HTTP_KEEPALIVE_EXPIRY,
    )
    # trust_env=False: the proxy comes from our own SCRAPE_PROXY_URL setting only,
    # so what README documents is what happens.
    return httpx.Client(
        limits=limits,
        timeout=httpx.Timeout(settings.HTTP_TIMEOUT),
        proxy=settings.SCRAPE_PROXY_URL or None,
        trust_env=False,
        # gzip only: it is what _decoded_chunks inflates a bounded step at a time.
        headers={"User-Agent": settings.HTTP_USER_AGENT, "Accept-Encoding": "gzip"},
    )


def close_client():
    """Close the pool (process exit, or a settings change in tests)."""
    global _client
    with _client_lock:
        if _client is not None:
            _client.close()
        _client = None


atexit.register(close_client)


@receiver(setting_changed)
def _rebuild_on_setting_change(setting, **kwargs):
    if setting.startswith("HTTP_"):
        close_client()


@contextmanager
def time_budget(seconds):
    """Every fetch() inside is over within `seconds`: requests are cut short and retries
    that would not fit are given up, with the last failure as the error. A scrape task
    must end before django-q2 kills it (Q_TIMEOUT_S), or its run only ends as a zombie."""
    token = _deadline.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _deadline.reset(token)


def _time_left():
    deadline = _deadline.get()
    return None if deadline is None else deadline - time.monotonic()


def fetch(url, *, params=None, headers=None, min_gap_ms=0):
    """GET `url` politely; return the 2xx response or raise FetchError.

    `min_gap_ms`: a source's own request gap, where it asks for more than SCRAPE_MIN_REQUEST_GAP_MS.
    """
    attempts = 1 + max(0, settings.HTTP_RETRIES)
    for attempt in range(attempts):
        response, error = _try_once(url, params, headers, min_gap_ms)
        if error is None:
            return response
        if not error.transient or attempt == attempts - 1:
            raise error
        delay = _retry_delay(attempt, error, response)
        if delay is None:
            raise error
        left = _time_left()
        if left is not None and delay >= left:
            error.args = (
                f"{error} (no retry: the scrape's time budget ends in {max(left, 0):.1f}s)",
            )
            raise error
        logger.warning(
            "GET %s failed (%s), retry %d in %.2fs",
            httpx.URL(url).path,
            error.slug,
            attempt + 1,
            delay,
        )
        sleep(delay)
    raise AssertionError("unreachable")


def _try_once(url, params, headers, min_gap_ms=0):
    """One request: (response, None) on 2xx, else (response or None, FetchError)."""
    try:
        response = _get_once(url, params, headers, min_gap_ms)
    except FetchError as error:  # too_large
        return None, error
    except httpx.TimeoutException as exc:
        return None, FetchError("timeout", f"timed out: {exc!r}", transient=True)
    except httpx.TransportError as exc:
        return None, FetchError("connect_error", f"transport error: {exc!r}", transient=True)
    except httpx.DecodingError as exc:
        return None, FetchError("decode_error", f"undecodable body: {exc!r}")
    if response.is_success:
        return response, None
    return response, _error_for(response)


def _get_once(url, params, headers, min_gap_ms=0):
    _wait_for_host_gap(httpx.URL(url).host, min_gap_ms)
    left = _time_left()
    if left is not None and left <= 0:
        raise httpx.TimeoutException("the scrape's time budget is used up")
    timeout = settings.HTTP_TIMEOUT if left is None else min(settings.HTTP_TIMEOUT, left)
    # The timeouts above are per read: a peer dripping bytes meets each one. The whole
    # request also ends by this deadline (within the scrape's budget when there is one).
    deadline = time.monotonic() + (settings.SCRAPE_TIME_BUDGET_S if left is None else left)
    client = get_client()
    request = client.build_request("GET", url, params=params, headers=headers, timeout=timeout)
    response = client.send(request, stream=True)
    try:
        body = _read_capped(response, deadline)
    finally:
        response.close()
    # The body is decoded already: the copy must not claim an encoding.
    kept = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in BODY_HEADERS]
    return httpx.Response(response.status_code, headers=kept, content=body, request=request)


def _read_capped(response, deadline):
    """The decoded body, at most SCRAPE_MAX_RESPONSE_BYTES, read by `deadline` (monotonic)."""
    cap = settings.SCRAPE_MAX_RESPONSE_BYTES
    body = bytearray()
    for chunk in _decoded_chunks(response):
        body += chunk
        if len(body) > cap:
            # Counted after decompression: a small gzip body can inflate a thousandfold.
            raise FetchError(
                "too_large",
                f"response body over {cap} bytes (SCRAPE_MAX_RESPONSE_BYTES)",
                status=response.status_code,
            )
        if time.monotonic() > deadline:
            raise httpx.ReadTimeout(
                f"response not complete by the request's deadline ({len(body)} bytes read)"
            )
    return bytes(body)


def _decoded_chunks(response):
    """The body as it arrives (no re-chunking: the deadline is checked per network read), gzip
    (what we ask for) inflated INFLATE_STEP bytes at a time, so a bomb is stopped at the cap
    instead of inflating a whole network read (64 KiB -> 64 MB) at once.
    Other encodings, which a server should not send unasked, go through httpx's own decoders."""
    encoding = response.headers.get("content-encoding", "").strip().lower()
    if encoding in ("", "identity"):
        yield from response.iter_raw()
        return
    if encoding != "gzip":
        yield from response.iter_bytes()
        return
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        for data in response.iter_raw():
            while data and not inflater.eof:
                yield inflater.decompress(data, INFLATE_STEP)
                data = inflater.unconsumed_tail
        yield inflater.flush()
    except zlib.error as exc:
        raise httpx.DecodingError(f"bad gzip body: {exc}") from None


def _error_for(response):
    status = response.status_code
    body = response.content[:500]
    if status == 429:
        return FetchError(
            "http_429",
            "429 Too Many Requests",
            status=status,
            banned=True,
            transient=True,
            body=body,
        )
    if status == 403:
        # A 403 from willhaben is a block; hammering it again only makes it longer.
        return FetchError("http_403", "403 Forbidden", status=status, banned=True, body=body)
    if status >= 500:
        return FetchError("http_5xx", f"HTTP {status}", status=status, transient=True, body=body)
    return FetchError(f"http_{status}", f"HTTP {status}", status=status, body=body)


def _retry_delay(attempt, error, response):
    """Seconds to wait before the next try, or None to give up now."""
    if error.status == 429 and response is not None:
        retry_after = parse_retry_after(response.headers.get("Retry-After"))
        if retry_after is not None:
            return retry_after if retry_after <= settings.HTTP_RETRY_AFTER_MAX_S else None
    backoff = min(settings.HTTP_BACKOFF_MAX_S, settings.HTTP_BACKOFF_BASE_S * 2**attempt)
    # Full jitter keeps several workers that failed together from retrying together.
    return backoff * random.uniform(0.5, 1.0)  # noqa: S311 - not cryptographic


def parse_retry_after(value):
    """Seconds from a Retry-After header (delta-seconds or HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - timezone.now()).total_seconds())


def _wait_for_host_gap(host, min_gap_ms=0):
    """Sleep so that requests to one host start at least SCRAPE_MIN_REQUEST_GAP_MS (or the
    source's larger `min_gap_ms`) apart."""
    gap = max(settings.SCRAPE_MIN_REQUEST_GAP_MS, min_gap_ms) / 1000
    with _gap_lock:
        now = time.monotonic()
        start = max(now, _last_request_at.get(host, 0.0) + gap)
        # Reserve the slot before sleeping so concurrent threads queue up behind it.
        _last_request_at[host] = start
    if start > now:
        sleep(start - now)
