"""Logging filters. The bot token is part of every Bot API URL, so it must
never reach a log line, whichever library formats the record. Neither may
the proxy credentials (SCRAPE_PROXY_URL, TELEGRAM_PROXY_URL). `redact` is the
one redaction: log records, JSON log lines and error-tracking events
(lago.error_tracking, through `redact_data`) all use it.

Handler filters only protect the handlers they are attached to (a test's
`caplog` handler, a handler added by an operator, …). `install_redacting_record_factory`
closes that gap: every record is redacted when it is created, before any
logger or handler sees it.
"""

import functools
import logging
import re
from urllib.parse import unquote, urlsplit

from django.conf import settings

REDACTED = "[redacted]"
# Shorter proxy passwords are not searched for (they would blank out ordinary words);
# inside a URL they are still caught by _URL_CREDENTIALS.
MIN_PASSWORD_LENGTH = 4
# Any Telegram bot token (not only ours): digits, a colon, 30+ URL-safe characters (e.g. in
# /bot<token>/).
_BOT_TOKEN = re.compile(r"\d{5,}:[A-Za-z0-9_-]{30,}")
# user:password@ in any URL.
_URL_CREDENTIALS = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@:]+:[^/\s@]*@")


def _proxy_passwords(url):
    try:
        password = urlsplit(url).password
    except ValueError:  # an unparsable URL: its own setting check reports it
        return []
    if not password or len(password) < MIN_PASSWORD_LENGTH:
        return []
    return list({password, unquote(password)})


def _secrets():
    if (
        not settings.configured
    ):  # gunicorn's master (gunicorn.conf.py) never loads Django: the patterns only
        return []
    return _secrets_of(
        getattr(settings, "TELEGRAM_BOT_TOKEN", ""),
        getattr(settings, "SCRAPE_PROXY_URL", ""),
        getattr(settings, "TELEGRAM_PROXY_URL", ""),
    )


@functools.lru_cache(maxsize=8)
def _secrets_of(token, *proxy_urls):
    secrets = [token] if token else []
    for url in proxy_urls:
        secrets += _proxy_passwords(url)
    return tuple(secrets)


# Secrets met at run time, not in settings: the passwords and tokens of Apprise destinations'
# URLs (notifications.apprise_channel adds them before each call), longest first.
_learnt = []


def learn_secrets(values):
    """From now on this process redacts `values` like the configured secrets (short ones
    excepted, as for proxy passwords)."""
    new = {v for v in values if v and len(v) >= MIN_PASSWORD_LENGTH} - set(_learnt)
    if new:
        _learnt[:] = sorted({*_learnt, *new}, key=len, reverse=True)


def forget_learnt_secrets():
    """Back to the configured secrets only (tests; a fresh process starts this way)."""
    _learnt.clear()


def redact(text: str) -> str:
    for secret in (*_secrets(), *_learnt):
        text = text.replace(secret, REDACTED)
    if "@" in text and "://" in text:  # cheap checks first: every log record comes through here
        text = _URL_CREDENTIALS.sub(rf"\1{REDACTED}@", text)
    if ":" in text:
        text = _BOT_TOKEN.sub(REDACTED, text)
    return text


def redact_data(value):
    """`value` with every string inside it (dict values, list and tuple items) redacted; keys are
    kept."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {key: redact_data(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(redact_data(item) for item in value)
    return value


def redact_record(record: logging.LogRecord) -> None:
    """Renders the message once, redacts it, and freezes the result so that
    later handlers cannot re-render the secret from `args`."""
    try:
        message = record.getMessage()
    except Exception:  # noqa: BLE001 - a malformed record is the logging module's to report, unredacted args are ours to drop
        message = str(record.msg)
        record.args = None
    if record.exc_info and not record.exc_text:
        record.exc_text = logging.Formatter().formatException(record.exc_info)
    if record.stack_info:
        record.stack_info = redact(record.stack_info)
    redacted = redact(message)
    if redacted != message:
        record.msg = redacted
        record.args = None
    if record.exc_text:
        record.exc_text = redact(record.exc_text)


class RedactSecretsFilter(logging.Filter):
    def filter(self, record):
        redact_record(record)
        return True


_installed = False


def install_redacting_record_factory() -> None:
    """Wraps the current LogRecord factory once per process (idempotent)."""
    global _installed
    if _installed:
        return
    previous = logging.getLogRecordFactory()

    def factory(*args, **kwargs):
        record = previous(*args, **kwargs)
        redact_record(record)
        return record

    logging.setLogRecordFactory(factory)
    _installed = True
