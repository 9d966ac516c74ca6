"""Bot API calls ignore the environment's HTTP_PROXY (the token is in their URL);
TELEGRAM_PROXY_URL is used."""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from notifications import telegram as tg
from notifications.bot.app import build_application


class RecordingProxy:
    """An HTTP proxy that records each request line and answers 502."""

    def __init__(self):
        seen = self.seen = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                seen.append(self.requestline)
                self.send_response(502)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_POST

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def env_proxy(monkeypatch):
    proxy = RecordingProxy()
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    for name in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy"):
        monkeypatch.setenv(name, proxy.url)
    yield proxy
    proxy.close()


def test_the_sender_ignores_the_environments_http_proxy(telegram, env_proxy, settings):
    settings.TELEGRAM_PROXY_URL = ""
    tg.send_message(42, "hello")
    assert env_proxy.seen == []
    assert telegram.texts(42) == ["hello"]


def test_the_bot_application_ignores_the_environments_http_proxy(telegram, env_proxy, settings):
    settings.TELEGRAM_PROXY_URL = ""
    app = build_application(db=lambda func, *args: None)
    loop = tg.asyncio.new_event_loop()
    try:
        loop.run_until_complete(app.bot.initialize())
        loop.run_until_complete(app.bot.get_updates(timeout=0))
        loop.run_until_complete(app.bot.shutdown())
    finally:
        loop.close()
    assert env_proxy.seen == []


def test_telegram_proxy_url_is_used_when_set(telegram, settings):
    proxy = RecordingProxy()
    settings.TELEGRAM_PROXY_URL = proxy.url
    try:
        with pytest.raises(tg.DeliveryError):
            tg.send_message(42, "hello")
    finally:
        proxy.close()
    assert proxy.seen and proxy.seen[0].startswith(f"POST {telegram.base_url}/bot")
    assert telegram.texts(42) == []
