"""Durations typed in the chat: "30m", "2h", "1d", "1w", or a sum such as "1h30m"."""

import re
from datetime import timedelta

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext_lazy

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


# Units as people write them in a reply: "1 Std. 30 Min." in German, "1 h 30 min" in English.
UNIT_WORDS = [
    (UNITS["w"], ngettext_lazy("%(n)d week", "%(n)d weeks", "n")),
    (UNITS["d"], ngettext_lazy("%(n)d day", "%(n)d days", "n")),
    (UNITS["h"], ngettext_lazy("%(n)d h", "%(n)d h", "n")),
    (UNITS["m"], ngettext_lazy("%(n)d min", "%(n)d min", "n")),
]


def describe(delta: timedelta) -> str:
    """timedelta(hours=2) → "2 Std.", timedelta(minutes=90) → "1 Std. 30 Min." (German)."""
    seconds = int(delta.total_seconds())
    parts = []
    for size, words in UNIT_WORDS:
        n, seconds = divmod(seconds, size)
        if n:
            parts.append(words % {"n": n})
    return " ".join(parts) or _("less than a minute")
