"""The logging configuration: one console handler, every record redacted (the bot token is in Bot
API URLs).

Every line, ours and the libraries' (django-q2, python-telegram-bot, Django's runserver),
goes through that one handler, so every line carries the same UTC time (lib.log_format).
gunicorn.conf.py does the same for gunicorn's own lines.
"""

from environ import ImproperlyConfigured

LOG_FORMATS = {
    "text": {
        "()": "lib.log_format.TextFormatter",
        "format": "%(asctime)s %(levelname)s %(name)s: %(message)s",
    },
    "json": {"()": "lib.log_format.JSONFormatter"},
}


def check_log_format(value):
    """The LOG_FORMAT value, lower-cased; a clear error at start-up for anything else."""
    fmt = value.strip().lower()
    if fmt not in LOG_FORMATS:
        raise ImproperlyConfigured(
            f"LOG_FORMAT={value!r} is not valid: use one of {', '.join(LOG_FORMATS)}"
        )
    return fmt


def logging_config(level, fmt="text"):
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {
            "redact_secrets": {"()": "lib.log_filters.RedactSecretsFilter"},
        },
        "formatters": {
            "lago": LOG_FORMATS[fmt],
        },
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": "lago",
                "filters": ["redact_secrets"],
            },
        },
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            # httpx logs every request URL at INFO, and Bot API URLs carry the token.
            "httpx": {"level": "WARNING"},
            "httpcore": {"level": "WARNING"},
            "django-q": {"level": level},
            # Django's defaults give these handlers of their own (runserver's request lines a local
            # time with no zone, DEBUG's console none at all): they go through ours instead.
            "django": {"level": "INFO"},
            "django.server": {"handlers": ["console"], "level": "INFO", "propagate": False},
        },
    }
