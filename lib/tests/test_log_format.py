"""A seller's title or id cannot forge a log line: the text format escapes control characters."""

import io
import json
import logging
import logging.config
import re

import pytest

from lago.logging_config import LOG_FORMATS

STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z ")
FAKE = "2026-12-04T10:00:00.000Z ERROR scraping.tick: database wiped"
HOSTILE = f"Rennrad\n{FAKE}\r\x1b[2K\x1b[31mred\x1b[0m\x9b2J\u2028\u202eevil\x00\x07\ttab"


def configured_logger(fmt):
    """A logger writing through LOG_FORMATS[fmt], built as logging.config builds it."""
    formatter = logging.config.DictConfigurator({}).configure_formatter(dict(LOG_FORMATS[fmt]))
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(formatter)
    logger = logging.getLogger(f"lago.test.hostile.{fmt}")
    logger.handlers, logger.propagate, logger.level = [handler], False, logging.INFO
    return logger, stream


def raise_hostile():
    raise ValueError(HOSTILE)


@pytest.fixture
def text():
    logger, stream = configured_logger("text")
    yield logger, stream
    logger.handlers = []


def test_a_hostile_title_stays_on_its_own_line(text):
    logger, stream = text
    logger.warning("ad %s: new title %r, %s", f"77\n{FAKE}", HOSTILE, HOSTILE)
    out = stream.getvalue()
    assert out.count("\n") == 1 and STAMP.match(out)
    assert " WARNING lago.test.hostile.text: ad 77\\n2026-12-04T10:00:00.000Z ERROR" in out
    assert "\\r\\x1b[2K\\x1b[31mred\\x1b[0m\\x9b2J\\u2028\\u202eevil\\x00\\x07\\ttab" in out
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u202e]", out)


def test_extra_fields_are_escaped_for_formats_that_show_them(text):
    logger, stream = text
    logger.handlers[0].formatter._style._fmt = "%(levelname)s %(message)s [%(title)s]"
    logger.info("seen", extra={"title": HOSTILE, "ad_id": 77})
    out = stream.getvalue()
    assert out.count("\n") == 1 and out.startswith("INFO seen [Rennrad\\n2026")
    assert "\x1b" not in out and "\r" not in out


def test_a_traceback_keeps_its_lines_but_none_passes_for_a_log_line(text):
    logger, stream = text
    try:
        raise_hostile()
    except ValueError:
        logger.exception("ad %s failed", 77)
    lines = stream.getvalue().splitlines()
    assert STAMP.match(lines[0]) and lines[0].endswith("ERROR lago.test.hostile.text: ad 77 failed")
    assert lines[1] == "  Traceback (most recent call last):"
    assert any(line.lstrip().startswith("raise ValueError(HOSTILE)") for line in lines)
    assert not any(STAMP.match(line) for line in lines[1:])
    assert "  ValueError: Rennrad" in lines
    assert any(line.startswith(f"  {FAKE}\\r\\x1b[2K") for line in lines)
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u202e]", stream.getvalue())


def test_other_handlers_still_get_the_record_as_it_was(text, caplog):
    logger, stream = text
    logger.propagate = True
    with caplog.at_level(logging.INFO, logger=logger.name):
        logger.info("title %s", HOSTILE)
    assert caplog.records[-1].getMessage() == f"title {HOSTILE}"
    assert "\\x1b" in stream.getvalue()


def test_json_lines_escape_every_control_and_keep_the_text():
    logger, stream = configured_logger("json")
    logger.warning("title %s", HOSTILE, extra={"title": HOSTILE})
    logger.handlers = []
    out = stream.getvalue()
    assert out.count("\n") == 1
    assert not re.search("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e]", out.rstrip("\n"))
    entry = json.loads(out)
    assert entry["message"] == f"title {HOSTILE}" and entry["title"] == HOSTILE
