"""The one redaction: the bot token, proxy passwords, credentials and bot tokens inside URLs."""

import logging

from lib.log_filters import REDACTED, redact, redact_data, redact_record

TOKEN = "123456789:AAFakeTokenForTests_abcdefghijklmnop"


def test_the_configured_token_and_proxy_passwords_are_redacted(settings):
    settings.TELEGRAM_BOT_TOKEN = TOKEN
    settings.SCRAPE_PROXY_URL = "http://scraper:p%40ss-w0rd@proxy.example:3128"
    settings.TELEGRAM_PROXY_URL = "socks5://tg:tel3gram@127.0.0.1:1080"
    text = f"token {TOKEN}; passwords p%40ss-w0rd p@ss-w0rd tel3gram"
    assert redact(text) == f"token {REDACTED}; passwords {REDACTED} {REDACTED} {REDACTED}"


def test_credentials_and_bot_tokens_in_any_url_are_redacted(settings):
    settings.TELEGRAM_BOT_TOKEN = ""
    text = (
        "GET https://api.telegram.org/bot987654321:AAAnotherBotsTokenSeenInAUrl_0123456/getMe"
        " via http://u:pw@proxy:8080/"
    )
    assert (
        redact(text)
        == f"GET https://api.telegram.org/bot{REDACTED}/getMe via http://{REDACTED}@proxy:8080/"
    )


def test_ordinary_text_is_left_alone(settings):
    settings.SCRAPE_PROXY_URL = (
        "http://user:abc@proxy.example:3128"  # too short to search for outside a URL
    )
    text = "fetched https://www.willhaben.at/iad/kaufen?page=2 at 12:30:00 in 0:00:01.5, user abc"
    assert redact(text) == text


def test_redact_data_walks_nested_values(settings):
    settings.TELEGRAM_BOT_TOKEN = TOKEN
    data = {"a": [TOKEN, ("x", TOKEN)], "n": 1, TOKEN[:5]: None}
    assert redact_data(data) == {"a": [REDACTED, ("x", REDACTED)], "n": 1, TOKEN[:5]: None}


def test_a_record_with_a_url_credential_is_frozen_redacted(settings):
    settings.TELEGRAM_BOT_TOKEN = ""
    record = logging.LogRecord(
        "x", logging.INFO, __file__, 1, "proxy %s", ("http://u:secretpw@h:1",), None
    )
    redact_record(record)
    assert record.getMessage() == f"proxy http://{REDACTED}@h:1" and record.args is None
