"""Logging filters. The bot token is part of every Bot API URL, so it must
never reach a log line, whichever library formats the record."""

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


class RedactSecretsFilter(logging.Filter):
    """Renders the message once, redacts it, and freezes the result so that
    later handlers cannot re-render the secret from `args`."""

    def filter(self, record):
        secrets = _secrets()
        if not secrets:
            return True
        message = record.getMessage()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if any(s in message for s in secrets) or (
            record.exc_text and any(s in record.exc_text for s in secrets)
        ):
            record.msg = redact(message)
            record.args = None
            if record.exc_text:
                record.exc_text = redact(record.exc_text)
        return True
