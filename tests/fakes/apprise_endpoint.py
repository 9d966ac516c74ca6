"""A local HTTP endpoint for Apprise's json:// (and form://) posts: real HTTP on 127.0.0.1,
records what it receives.

server = FakeAppriseEndpoint().start()
server.url("family")        # json://user:secret@127.0.0.1:PORT/family
server.posts                # [{"path", "auth", "title", "message", "type", …}, …]
server.fail_next(3)         # the next 3 posts answer 500 (not recorded as delivered)
server.status = 500         # every post answers 500 until set back to 200
server.hold = threading.Event()   # posts wait for it (a slow service; a crash mid-send)
server.arrived              # set when a post has arrived (before any hold)
server.held                 # posts that waited on `hold`: their sender gave up or was killed
                            # meanwhile, so they are not counted as delivered
"""

import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl


class FakeAppriseEndpoint:
    def __init__(self, user="user", password="secret"):
        self.user, self.password = user, password
        self.lock = threading.Lock()
        self.posts, self.refused, self.held = [], [], []
        self.status = 200
        self.failures_left = 0
        self.hold = None
        self.arrived = threading.Event()

    def url(self, path="hook", scheme="json"):
        return f"{scheme}://{self.user}:{self.password}@127.0.0.1:{self.port}/{path}"

    def fail_next(self, count):
        with self.lock:
            self.failures_left = count

    def messages(self):
        with self.lock:
            return [p.get("message", "") for p in self.posts]

    def start(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                fake.arrived.set()
                hold = fake.hold
                if hold is not None:
                    hold.wait(30)
                if self.headers.get("Content-Type", "").startswith("application/json"):
                    post = json.loads(body or b"{}")
                else:
                    post = dict(parse_qsl(body.decode()))
                post["path"] = self.path
                post["auth"] = _basic_auth(self.headers.get("Authorization", ""))
                with fake.lock:
                    status = fake.status
                    if fake.failures_left:
                        fake.failures_left -= 1
                        status = 500
                    if hold is not None:
                        fake.held.append(post)
                    else:
                        (fake.posts if status < 300 else fake.refused).append(post)
                answer = b"{}" if status < 300 else b"boom"
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        return self

    def stop(self):
        if self.hold is not None:
            self.hold.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def _basic_auth(header):
    kind, _, value = header.partition(" ")
    if kind.lower() != "basic":
        return None
    user, _, password = base64.b64decode(value).decode().partition(":")
    return user, password
