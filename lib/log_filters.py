"""Logging filters. The bot token is part of every Bot API URL, so it must
never reach a log line, whichever library formats the record.

Handler filters only protect the handlers they are attached to (a test's
`caplog` handler, a handler added by an operator, …). `install_redacting_record_factory`
closes that gap: every record is redacted when it is created, before any
logger or handler sees it.
"""

import logging

from django.conf import settings

REDACTED = "[redacted]"


def _secrets():
    token = getattr(settings, "TELEGRAM_BOT_TOKEN", "")
    return [token] if token else []


def redact(text: str) -> str:
    for secret in _secrets():
        text = text.replace(secret, REDACTED)
    return text


def redact_record(record: logging.LogRecord) -> None:
    """Renders the message once, redacts it, and freezes the result so that
    later handlers cannot re-render the secret from `args`."""
    secrets = _secrets()
    if not secrets:
        return
    try:
        message = record.getMessage()
    except Exception:  # noqa: BLE001 - a malformed record is the logging module's to report, unredacted args are ours to drop
        message = str(record.msg)
        record.args = None
    if record.exc_info and not record.exc_text:
        record.exc_text = logging.Formatter().formatException(record.exc_info)
    if record.stack_info:
        record.stack_info = redact(record.stack_info)
    if any(s in message for s in secrets):
        record.msg = redact(message)
        record.args = None
    if record.exc_text and any(s in record.exc_text for s in secrets):
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
