"""Log line formats. Every line carries its time in UTC with a trailing `Z`
(`2026-12-03T13:45:01.123Z`), whatever TIME_ZONE is: Django sets the process's
local zone to TIME_ZONE when settings load, but gunicorn's master, honcho and
other processes that never load Django log in the machine's zone, so local
time would mix zones. See lago/logging_config.py and gunicorn.conf.py.

`JSONFormatter` (LOG_FORMAT=json) writes one JSON object per line with the
same redaction as the text lines (lib.log_filters).
"""

import json
import logging
import time

from lib.log_filters import redact_data

# The attributes every LogRecord has; anything else came in through `extra=`.
_RECORD_ATTRIBUTES = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message",
    "asctime",
}


class UTCFormatter(logging.Formatter):
    converter = time.gmtime

    def formatTime(self, record, datefmt=None):  # noqa: N802 - logging's name
        if datefmt:
            return time.strftime(datefmt, self.converter(record.created))
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", self.converter(record.created))
        return f"{stamp}.{int(record.msecs):03d}Z"


class JSONFormatter(UTCFormatter):
    """time, level, logger, message, exception (when any), then the record's `extra=` fields."""

    def format(self, record):
        entry = {
            "time": self.formatTime(record),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            entry["exception"] = record.exc_text
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        for key, value in vars(record).items():
            if key not in _RECORD_ATTRIBUTES and not key.startswith("_") and key not in entry:
                entry[key] = (
                    value
                    if isinstance(value, str | int | float | bool | type(None))
                    else repr(value)
                )
        return json.dumps(redact_data(entry), ensure_ascii=False)
