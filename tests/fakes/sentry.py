"""A fake Sentry/GlitchTip ingest endpoint: real HTTP on 127.0.0.1, records the envelopes it
receives.

server = FakeSentry().start()
server.dsn                 # http://publickey@127.0.0.1:PORT/1
server.envelopes           # [(headers, [(item_headers, payload), ...]), ...]
                           # (payload: a dict for JSON items)
server.events()            # the payloads of "event" items
server.raw                 # every decompressed request body (bytes), to search for leaked text
"""

import gzip
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def parse_envelope(body):
    """Sentry's envelope format: a header line, then per item a header line and a payload
    (`length` bytes, or a line)."""
    headers_line, _, rest = body.partition(b"\n")
    items = []
    while rest.strip():
        item_line, _, rest = rest.partition(b"\n")
        item_headers = json.loads(item_line)
        if "length" in item_headers:
            payload, rest = rest[: item_headers["length"]], rest[item_headers["length"] :]
            rest = rest.removeprefix(b"\n")
        else:
            payload, _, rest = rest.partition(b"\n")
        if (
            item_headers.get("content_type", "application/json") == "application/json"
            or item_headers["type"] == "event"
        ):
            payload = json.loads(payload)
        items.append((item_headers, payload))
    return json.loads(headers_line), items


class FakeSentry:
    def __init__(self, project_id=1, key="publickey"):
        self.project_id, self.key = project_id, key
        self.lock = threading.Lock()
        self.envelopes, self.raw, self.paths = [], [], []

    def start(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                with fake.lock:
                    fake.paths.append(self.path)
                    fake.raw.append(body)
                    fake.envelopes.append(parse_envelope(body))
                answer = json.dumps({"id": "0" * 32}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.dsn = f"http://{self.key}@127.0.0.1:{self.port}/{self.project_id}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        return self

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def events(self):
        with self.lock:
            return [
                payload
                for _, items in self.envelopes
                for headers, payload in items
                if headers["type"] == "event"
            ]
