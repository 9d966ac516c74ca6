"""Log line formats. Every line carries its time in UTC with a trailing `Z`
(`2026-12-03T13:45:01.123Z`), whatever TIME_ZONE is: Django sets the process's
local zone to TIME_ZONE when settings load, but gunicorn's master, honcho and
other processes that never load Django log in the machine's zone, so local
time would mix zones. See lago/logging_config.py and gunicorn.conf.py.

`TextFormatter` (LOG_FORMAT=text) keeps one record on one line: text from outside (an ad's
title or id, a chat's message, an exception's text) may carry a newline followed by a fake
`ERROR` line, a carriage return that overwrites the line, or ESC sequences that drive the
terminal. Every control character in the message and in `extra=` fields is written as a
visible escape (`\\n`, `\\x1b`); a traceback keeps its lines, each indented, so that no line
of it can pass for a log line.

`JSONFormatter` (LOG_FORMAT=json) writes one JSON object per line with the
same redaction as the text lines (lib.log_filters). JSON escapes C0 controls by itself; the
C1 controls and the Unicode line separators, which it leaves as they are, are escaped too.
"""

import copy
import json
import logging
import re
import time

from lib.log_filters import redact_data
from lib.printable import OTHER_CONTROLS, printable

# The attributes every LogRecord has; anything else came in through `extra=`.
_RECORD_ATTRIBUTES = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message",
    "asctime",
}


# What json.dumps(ensure_ascii=False) leaves unescaped of the controls `printable` escapes.
_JSON_UNESCAPED = re.compile(f"[{OTHER_CONTROLS}]")


def _indented(block):
    """A traceback or stack: its own newlines kept, every other control escaped, and every line
    indented, so a newline inside an exception's text cannot start a line of its own."""
    lines = printable(block, keep_newlines=True).split("\n")
    return "\n".join(line if line.startswith(" ") else "  " + line for line in lines)


class UTCFormatter(logging.Formatter):
    converter = time.gmtime

    def formatTime(self, record, datefmt=None):  # noqa: N802 - logging's name
        if datefmt:
            return time.strftime(datefmt, self.converter(record.created))
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", self.converter(record.created))
        return f"{stamp}.{int(record.msecs):03d}Z"


class TextFormatter(UTCFormatter):
    """UTC times, and one line per record whatever its text carries (see the module docstring)."""

    def format(self, record):
        # A copy: the record goes on to other handlers (a test's caplog, the JSON formatter).
        line = copy.copy(record)
        line.msg, line.args = printable(record.getMessage()), None
        for key, value in vars(record).items():
            if key not in _RECORD_ATTRIBUTES and isinstance(value, str):
                setattr(line, key, printable(value))
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        line.exc_info = None
        line.exc_text = _indented(record.exc_text) if record.exc_text else None
        line.stack_info = _indented(record.stack_info) if record.stack_info else None
        return super().format(line)


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
        text = json.dumps(redact_data(entry), ensure_ascii=False)
        return _JSON_UNESCAPED.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
