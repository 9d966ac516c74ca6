"""Mean per-request latency: one pooled httpx client vs a new client per request, over local HTTPS.

    /work/main/.venv/bin/python bench/http_pool.py        # N = 200 requests each way

The server is the fake willhaben (ThreadingHTTPServer, Nagle off) wrapped in TLS
with a throwaway CA from trustme. Both sides share one SSLContext, so the
difference is what a pool saves: the TCP connect and the TLS handshake.
"""

import json
import ssl
import statistics
import time

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


def main():
    setup_django()
    import httpx
    from django.conf import settings

    from tests.fakes.willhaben import FakeWillhaben

    server_ctx, client_ctx = _tls()
    server = FakeWillhaben(ssl_context=server_ctx).start()
    url = server.base_url + "/ping"
    limits = httpx.Limits(
        max_connections=settings.HTTP_MAX_CONNECTIONS,
        max_keepalive_connections=settings.HTTP_MAX_KEEPALIVE_CONNECTIONS,
        keepalive_expiry=settings.HTTP_KEEPALIVE_EXPIRY,
    )
    try:
        server.reset_counters()
        with httpx.Client(verify=client_ctx, limits=limits, timeout=settings.HTTP_TIMEOUT) as client:
            client.get(url)  # warm-up: the pool's first connection is not what we measure
            pooled = _timed(lambda: client.get(url))
            pooled_connections = server.connections

        def per_call():
            with httpx.Client(verify=client_ctx, timeout=settings.HTTP_TIMEOUT) as fresh:
                return fresh.get(url)

        server.reset_counters()
        per_call_ms = _timed(per_call)
        per_call_connections = server.connections
    finally:
        server.stop()
    print(f"pooled: {pooled:.3f} ms/request, {N} requests over {pooled_connections} connection(s)")
    print(f"per call: {per_call_ms:.3f} ms/request, {N} requests over {per_call_connections} connections")
    reduction = 100 * (per_call_ms - pooled) / per_call_ms
    result = {"bench": "http_pool", "pooled_ms": round(pooled, 3), "per_call_ms": round(per_call_ms, 3)}
    result["reduction_pct"] = round(reduction, 1)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
