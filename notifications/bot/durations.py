"""Durations typed in the chat: "30m", "2h", "1d", "1w", or a sum such as "1h30m"."""

import re
from datetime import timedelta

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

UNITS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
PART = re.compile(r"(\d+)([mhdw])")
MAX = timedelta(days=365)
HINT = gettext_noop("Use a number and a unit: 30m, 2h, 1d, 1w (or 1h30m).")


class DurationError(ValueError):
    """The message says what was wrong and how to write it."""


def parse_duration(text: str) -> timedelta:
    value = text.strip().lower().replace(" ", "")
    if not value:
        raise DurationError(_("No duration given.") + " " + _(HINT))
    if PART.sub("", value) or not PART.search(value):
        raise DurationError(
            _("Cannot read “%(text)s” as a duration.") % {"text": text.strip()} + " " + _(HINT)
        )
    seconds = sum(int(n) * UNITS[unit] for n, unit in PART.findall(value))
    if seconds <= 0:
        raise DurationError(_("A duration must be longer than zero.") + " " + _(HINT))
    if seconds > MAX.total_seconds():
        raise DurationError(
            _("That is longer than a year. Use /mute without a duration to mute until /unmute.")
        )
    return timedelta(seconds=seconds)


def describe(delta: timedelta) -> str:
    """timedelta(hours=2) → "2h", timedelta(minutes=90) → "1h 30m"."""
    seconds = int(delta.total_seconds())
    parts = []
    for unit, size in (("w", UNITS["w"]), ("d", UNITS["d"]), ("h", UNITS["h"]), ("m", UNITS["m"])):
        n, seconds = divmod(seconds, size)
        if n:
            parts.append(f"{n}{unit}")
    return " ".join(parts) or _("less than a minute")
