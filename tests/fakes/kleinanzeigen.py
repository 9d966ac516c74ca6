"""A fake kleinanzeigen.de search: real HTTP on 127.0.0.1 in a background thread, HTML pages.

    server = FakeKleinanzeigen().start()
    server.cards = make_cards(60)             # regular cards, newest first
    server.top_cards = [make_card(top=True)]  # placed on top of every page, as the site does
    server.cards_for_words["fahrrad"] = [...] # a search of its own result list
    server.mode = "challenge"                 # "ok" | "challenge" | "garbage"
    server.fail_next(status=429, times=1)
    server.base_url, server.requests, server.search_requests()
    server.stop()

Like the site it answers `/s-[segments/]<words>/k0[c..][l..]`, 25 regular cards a page, page N
with the segment `seite:N`, a "no results" page for a search that finds nothing.
"""

import re
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

from tests.fakes.kleinanzeigen_factory import CHALLENGE_PAGE, empty_page, result_page

PAGE_SIZE = 25
CODE_RE = re.compile(r"(k0)?(c\d+)?(l\d+)?(r\d+)?")


@dataclass
class Request:
    path: str
    headers: dict

    @property
    def page(self):
        match = re.search(r"[/-]seite:(\d+)/", self.path)
        return int(match.group(1)) if match else 1

    @property
    def words(self):
        segments = self.path[len("/s-") :].split("/")
        return segments[-2] if len(segments) > 1 and segments[-1].startswith("k0") else ""


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, fake, *args, **kw):
        self.fake = fake
        super().__init__(*args, **kw)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        fake = self.server.fake
        path = unquote(urlsplit(self.path).path)
        request = Request(path, {k.lower(): v for k, v in self.headers.items()})
        with fake.lock:
            fake.requests.append(request)
            failure = fake._failures.pop(0) if fake._failures else None
        if not path.startswith("/s-") or not CODE_RE.fullmatch(path.rsplit("/", 1)[-1]):
            return self._send(404, b"<html><body>Seite nicht gefunden</body></html>")
        if failure is not None:
            return self._send(failure, b"<html><body>Fehler</body></html>")
        if fake.mode == "challenge":
            return self._send(200, CHALLENGE_PAGE)
        if fake.mode == "garbage":
            return self._send(200, b"<html><body><p>Wartungsarbeiten</p></body></html>")
        self._send(200, fake.page(request))

    def _send(self, status, body):
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class FakeKleinanzeigen:
    def __init__(self):
        self.lock = threading.Lock()
        self.cards = []
        self.top_cards = []
        self.cards_for_words = {}
        self.mode = "ok"
        self.requests = []
        self._failures = []
        self._httpd = None

    def start(self):
        self._httpd = _Server(self, ("127.0.0.1", 0), _Handler)
        threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def stop(self):
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    @property
    def base_url(self):
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def fail_next(self, status=503, times=1):
        with self.lock:
            self._failures += [status] * times

    def search_requests(self):
        return [r for r in self.requests if r.path.startswith("/s-")]

    @staticmethod
    def path_segments(request):
        return request.path[len("/s-") :].split("/")

    def page(self, request):
        cards = self.cards_for_words.get(request.words, self.cards)
        if not cards and not self.top_cards:
            return empty_page(request.words)
        number = request.page
        chunk = cards[(number - 1) * PAGE_SIZE : number * PAGE_SIZE]
        more = number * PAGE_SIZE < len(cards)
        # The site's own link: the path with `seite:N+1` before the words.
        segments = [s for s in self.path_segments(request) if not s.startswith("seite:")]
        segments.insert(
            len(segments) - 2 if request.words else len(segments) - 1, f"seite:{number + 1}"
        )
        next_path = "/s-" + "/".join(segments) if more else None
        return result_page(
            self.top_cards + chunk,
            page=number,
            total=len(cards),
            next_path=next_path,
            words=request.words,
        )
