"""The logging configuration: one console handler, every record redacted (the bot token is in Bot API URLs)."""


def logging_config(level):
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {
            "redact_secrets": {"()": "lib.log_filters.RedactSecretsFilter"},
        },
        "formatters": {
            "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
        },
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": "plain",
                "filters": ["redact_secrets"],
            },
        },
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            # httpx logs every request URL at INFO, and Bot API URLs carry the token.
            "httpx": {"level": "WARNING"},
            "httpcore": {"level": "WARNING"},
            "django-q": {"level": level},
        },
    }
