"""gunicorn reads this file from its working directory (the image's /app, the repo root).

Its own lines (master and workers, access log) go through Lago's log format
(lib/log_format.py): times in UTC with a `Z`, as every other Lago line. Without
this the master logs in the machine's zone and the workers, once Django has set
TIME_ZONE as their local zone, in that one. LOG_FORMAT comes from the environment
(the container's env_file); the master never loads Django's settings.
"""

import os

from lago.logging_config import LOG_FORMATS, check_log_format

logconfig_dict = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"lago": LOG_FORMATS[check_log_format(os.environ.get("LOG_FORMAT", "text"))]},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "lago",
            "stream": "ext://sys.stderr",
        }
    },
    "root": {"level": "INFO", "handlers": ["console"]},
    "loggers": {
        "gunicorn.error": {"level": "INFO", "handlers": ["console"], "propagate": False},
        "gunicorn.access": {"level": "INFO", "handlers": ["console"], "propagate": False},
    },
}
# The default format without its own %(t)s timestamp (local time): the line's stamp says when.
access_log_format = '%(h)s %(l)s %(u)s "%(r)s" %(s)s %(b)s "%(f)s" "%(a)s"'
