"""A fake willhaben search API: real HTTP (optionally HTTPS) on 127.0.0.1 in a background thread.

    server = FakeWillhaben().start()
    server.set_ads(make_raw_ads(60))          # newest first, like sort=1
    server.top_ads = [make_raw_ad(top=True)]  # pinned above page 1
    server.fail_next(status=503, times=2)     # or status=429, retry_after=1
    server.fail_page(2, status=503)           # every request for page 2 fails
    server.mode = "html_challenge"            # "ok" | "html_challenge" | "garbage" | "wrong_json" |
    "changed_schema" | "deep_json"
    server.gzip_bomb(size)                    # answer a gzip body that inflates to `size` zero
    bytes
    server.mode = "drip"                      # answer 1 byte every `drip_s` seconds, `drip_bytes`
    in all
    server.latency_s = 0.2
    server.hang_page(2, seconds=30)           # hold requests for page 2 (a worker stuck mid-run)
    server.ads_for_query["bike"] = [...]      # a query of its own result list
    server.result_fields["rowsFound"] = 1e400 # override fields of every search result
    server.base_url, server.requests, server.connections, server.search_requests()
    server.stop()

Like the real API it rejects requests without `x-wh-client` (400, empty body),
caps `rows` at 200, pages with `page` and pins the set with `publishedDateTo`.
`GET /ping` answers a tiny JSON body (for the HTTP benchmarks).
"""

import json
import threading
import time
import zlib
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from tests.fakes.willhaben_factory import published_ms, search_result

SEARCH_PREFIX = "/webapi/iad/search/atz/seo/"
CHALLENGE_PAGE = (
    b"<!DOCTYPE html><html><head><title>Just a moment...</title></head>"
    b"<body>Checking your browser</body></html>"
)


@dataclass
class Request:
    path: str
    params: dict
    headers: dict
    at: float = 0.0  # time.monotonic() when it arrived

    def param(self, name):
        values = self.params.get(name)
        return values[0] if values else None


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, fake, *args, **kw):
        self.fake = fake
        super().__init__(*args, **kw)

    def handle_error(self, request, client_address):
        # a client that hangs up early (a body over its cap, a deadline) is what some tests want
        pass

    def get_request(self):
        # One accepted socket = one TCP connection: what keep-alive should keep low.
        sock, addr = super().get_request()
        with self.fake.lock:
            self.fake.connections += 1
        return sock, addr


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive
    disable_nagle_algorithm = True  # else delayed ACKs add ~40 ms to every response

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        fake = self.server.fake
        split = urlsplit(self.path)
        request = Request(
            split.path,
            parse_qs(split.query),
            {k.lower(): v for k, v in self.headers.items()},
            time.monotonic(),
        )
        with fake.lock:
            fake.requests.append(request)
            hold = fake.page_hangs.get(request.param("page"), 0)
        if fake.latency_s:
            time.sleep(fake.latency_s)
        if hold and fake.released.wait(hold):
            self.close_connection = True  # the server is stopping: the client is long gone
            return None
        if split.path == "/ping":
            return self._send(200, b'{"ok": true}')
        if not split.path.startswith(SEARCH_PREFIX):
            return self._send(404, b"")
        if "x-wh-client" not in request.headers:
            return self._send(400, b"")
        failure = fake.take_failure(request)
        if failure is not None:
            status, retry_after, body = failure
            headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
            return self._send(status, body, headers=headers, content_type="text/html")
        if fake.mode == "html_challenge":
            return self._send(200, CHALLENGE_PAGE, content_type="text/html")
        if fake.mode == "garbage":
            return self._send(200, b"\x00\x01 not json at all {{{")
        if fake.mode == "wrong_json":
            return self._send(200, json.dumps({"error": "something else", "items": []}).encode())
        if fake.mode == "deep_json":
            return self._send(200, b"[" * 100_000 + b"]" * 100_000)
        if fake.mode == "gzip_bomb":
            return self._send(200, fake.bomb, headers={"Content-Encoding": "gzip"})
        if fake.mode == "drip":
            return self._drip(fake)
        if fake.mode == "changed_schema":
            # The envelope is still there, the ads inside are not what we know.
            return self._send(
                200,
                json.dumps(
                    search_result(
                        [{"id": "1", "attrs": []}],
                        rows_found=1,
                        rows_requested=30,
                        page=1,
                        path="x",
                    )
                ).encode(),
            )
        self._send(200, json.dumps(fake.search(split.path[len(SEARCH_PREFIX) :], request)).encode())

    def _drip(self, fake):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(fake.drip_bytes))
        self.end_headers()
        self.close_connection = True
        try:
            for _ in range(fake.drip_bytes):
                if fake.released.wait(fake.drip_s):
                    return
                self.wfile.write(b" ")
                self.wfile.flush()
        except OSError:
            pass  # the client gave up: that is the point

    def _send(self, status, body, headers=None, content_type="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)


class FakeWillhaben:
    def __init__(self, ssl_context=None):
        self.lock = threading.Lock()
        self.ssl_context = ssl_context
        self.ads = []
        self.top_ads = []
        self.mode = "ok"
        self.latency_s = 0.0
        self.drip_s = 1.0
        self.drip_bytes = 1_000_000
        self.bomb = b""
        self.requests = []
        self.connections = 0
        self.page_hangs = {}
        self.ads_for_query = {}
        self.result_fields = {}
        self.released = threading.Event()
        self._failures = []
        self._page_failures = {}
        self._httpd = None

    def start(self):
        self._httpd = _Server(self, ("127.0.0.1", 0), _Handler)
        if self.ssl_context is not None:
            self._httpd.socket = self.ssl_context.wrap_socket(self._httpd.socket, server_side=True)
        threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def stop(self):
        self.released.set()  # wake held requests
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    @property
    def base_url(self):
        scheme = "https" if self.ssl_context is not None else "http"
        return f"{scheme}://127.0.0.1:{self._httpd.server_address[1]}"

    # --- knobs ------------------------------------------------------------

    def set_ads(self, ads):
        """The result list; kept newest first as `sort=1` returns it."""
        self.ads = sorted(ads, key=published_ms, reverse=True)

    def gzip_bomb(self, size):
        """Answer every search with a gzip body that inflates to `size` zero bytes."""
        packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: gzip framing
        chunk = bytes(1 << 20)
        parts = [packer.compress(chunk) for _ in range(size // len(chunk))]
        self.bomb = b"".join([*parts, packer.compress(bytes(size % len(chunk))), packer.flush()])
        self.mode = "gzip_bomb"

    def fail_next(self, status=503, times=1, retry_after=None, body=b""):
        """Answer the next `times` search requests with `status` (and a Retry-After header)."""
        with self.lock:
            self._failures += [(status, retry_after, body)] * times

    def fail_page(self, page, status=503):
        """Answer every request for `page` with `status` (a failure in the middle of a run)."""
        with self.lock:
            self._page_failures[str(page)] = status

    def hang_page(self, page, seconds):
        """Hold every request for `page` this long before answering (0: stop holding)."""
        with self.lock:
            if seconds:
                self.page_hangs[str(page)] = seconds
            else:
                self.page_hangs.pop(str(page), None)

    @property
    def port(self):
        return self._httpd.server_address[1]

    def clear_page_failures(self):
        with self.lock:
            self._page_failures.clear()

    def take_failure(self, request):
        with self.lock:
            if request.param("page") in self._page_failures:
                return self._page_failures[request.param("page")], None, b""
            return self._failures.pop(0) if self._failures else None

    def reset_counters(self):
        with self.lock:
            self.requests.clear()
            self.connections = 0

    def search_requests(self):
        return [r for r in self.requests if r.path.startswith(SEARCH_PREFIX)]

    # --- the search itself --------------------------------------------------

    def search(self, path, request):
        rows = min(int(request.param("rows") or 30), 200)
        page = max(int(request.param("page") or 1), 1)
        pin = request.param("publishedDateTo")
        source = self.ads_for_query.get(request.param("keyword"), self.ads)
        ads = [a for a in source if pin is None or published_ms(a) <= int(pin)]
        chunk = ads[(page - 1) * rows : page * rows]
        if page == 1:
            chunk = self.top_ads + chunk
        more = page * rows < len(ads)
        next_pin = (pin or (published_ms(ads[0]) if ads else None)) if more else None
        result = search_result(
            chunk, rows_found=len(ads), rows_requested=rows, page=page, path=path, next_pin=next_pin
        )
        return {**result, **self.result_fields}
