from datetime import timedelta

import pytest

from notifications.bot.durations import DurationError, describe, parse_duration
from notifications.bot.keyboards import Action, parse

# English texts; the German default is tested in notifications/tests/test_i18n.py.
pytestmark = pytest.mark.usefixtures("english")


@pytest.mark.parametrize(
    "text,expected",
    [
        ("30m", timedelta(minutes=30)),
        ("2h", timedelta(hours=2)),
        ("1d", timedelta(days=1)),
        ("1w", timedelta(weeks=1)),
        ("1h30m", timedelta(minutes=90)),
        (" 2H ", timedelta(hours=2)),
    ],
)
def test_parses_units_and_sums(text, expected):
    assert parse_duration(text) == expected


@pytest.mark.parametrize(
    "text,message",
    [
        ("", "No duration given"),
        ("soon", "Cannot read “soon”"),
        ("2", "Cannot read"),
        ("2x", "Cannot read"),
        ("h2", "Cannot read"),
        ("1h30", "Cannot read"),
        ("2 hours", "Cannot read"),
        ("0m", "longer than zero"),
        ("53w", "longer than a year"),
    ],
)
def test_rejects_with_a_helpful_message(text, message):
    with pytest.raises(DurationError, match=message):
        parse_duration(text)


def test_describe():
    assert describe(timedelta(minutes=90)) == "1 h 30 min"
    assert describe(timedelta(days=8)) == "1 week 1 day"
    assert describe(timedelta(weeks=2, days=3)) == "2 weeks 3 days"


@pytest.mark.parametrize(
    "data,expected",
    [
        ("sub:12", Action("sub", 12)),
        ("approve:-100123", Action("approve", -100123)),
        ("snooze:3600", Action("snooze", 3600)),
        ("sub:", None),
        ("sub:x", None),
        ("drop:1", None),
        (None, None),
    ],
)
def test_callback_data(data, expected):
    assert parse(data) == expected
