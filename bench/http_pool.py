"""Mean per-request latency of the product's HTTP client (scraping/http.py), pooled vs a new client
per request.

    /work/main/.venv/bin/python bench/http_pool.py        # N = 200 requests each way

Both sides call the product's own functions: *pooled* is `scraping.http.fetch()` on the
shared client (`get_client()`, pool limits from settings), *per call* is the same `fetch()`
with `close_client()` after every request, so each request builds a new client and opens
a new connection. The host gap (SCRAPE_MIN_REQUEST_GAP_MS) and SCRAPE_PROXY_URL are off here:
the bench times the requests, not the politeness delay.

The server is the fake willhaben (ThreadingHTTPServer, Nagle off) wrapped in TLS with a
throwaway CA from trustme. The product's clients verify against the default trust store;
here every client it builds gets one SSLContext that trusts the throwaway CA instead (the
only thing replaced), so both sides share it and the difference is what a pool saves: the
TCP connect and the TLS handshake.
"""

import json
import ssl
import statistics
import time
from unittest import mock

from common import setup_django

N = 200


def _tls():
    import trustme

    ca = trustme.CA()
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(server_ctx)
    client_ctx = ssl.create_default_context()
    ca.configure_trust(client_ctx)
    return server_ctx, client_ctx


def _timed(get):
    times = []
    for _ in range(N):
        started = time.perf_counter()
        response = get()
        times.append(time.perf_counter() - started)
        assert response.status_code == 200, response.status_code
    return statistics.mean(times) * 1000


def _trusting(client_ctx):
    """Every httpx client built meanwhile verifies with `client_ctx` (the bench CA) instead of
    certifi's bundle."""
    import httpx._transports.default as transport

    def create_ssl_context(verify=True, cert=None, trust_env=True):
        assert verify is True and cert is None, (
            "scraping.http now configures TLS itself: revisit this bench"
        )
        return client_ctx

    return mock.patch.object(transport, "create_ssl_context", create_ssl_context)


def main():
    setup_django(SCRAPE_MIN_REQUEST_GAP_MS=0, SCRAPE_PROXY_URL="")
    from scraping import http
    from tests.fakes.willhaben import FakeWillhaben

    server_ctx, client_ctx = _tls()
    server = FakeWillhaben(ssl_context=server_ctx).start()
    url = server.base_url + "/ping"

    def per_call():
        try:
            return http.fetch(url)
        finally:
            http.close_client()

    try:
        with _trusting(client_ctx):
            http.close_client()
            server.reset_counters()
            http.fetch(url)  # warm-up: the pool's first connection is not what we measure
            pooled = _timed(lambda: http.fetch(url))
            pooled_connections = server.connections
            http.close_client()

            server.reset_counters()
            per_call_ms = _timed(per_call)
            per_call_connections = server.connections
    finally:
        http.close_client()
        server.stop()
    print(f"pooled: {pooled:.3f} ms/request, {N} requests over {pooled_connections} connection(s)")
    print(
        f"per call: {per_call_ms:.3f} ms/request, {N} requests over {per_call_connections} "
        "connections"
    )
    reduction = 100 * (per_call_ms - pooled) / per_call_ms
    result = {
        "bench": "http_pool",
        "pooled_ms": round(pooled, 3),
        "per_call_ms": round(per_call_ms, 3),
    }
    result["reduction_pct"] = round(reduction, 1)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
