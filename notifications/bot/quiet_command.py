"""`/quiet 22-7 [Europe/Berlin]`, `/quiet off`, `/quiet`: a chat's quiet hours.

Messages due inside the window wait in the outbox and come after it
(Notification.objects.hold_for_quiet_hours).
"""

import re
from datetime import time

from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from notifications.bot.replies import ChatRef, Reply, chat_of
from notifications.messages import esc
from notifications.models.quiet_hours import ZONE_MAX, zone_or_none

ARGS_MAX = 100
# "22-7", "22:30-07:00", "22.30 - 7"; then optionally a time zone.
WINDOW = re.compile(
    r"([0-9]{1,2})(?:[:.]([0-9]{2}))?\s*[-–]\s*([0-9]{1,2})(?:[:.]([0-9]{2}))?(?:\s+(\S+))?",
    re.ASCII,
)


class QuietError(ValueError):
    """Input the chat typed wrongly; the message is shown to it."""


def parse(text):
    """ "22-7 Europe/Berlin" → (time(22), time(7), "Europe/Berlin"); the zone is None when not
    given."""
    match = WINDOW.fullmatch(text.strip())
    if match is None:
        raise QuietError(
            _(
                "Send the quiet hours as /quiet 22-7 or /quiet 22:30-07:00 (optionally a time "
                "zone: /quiet 22-7 Europe/Berlin)."
            )
        )
    start_h, start_m, end_h, end_m, zone = match.groups()
    start, end = _time(start_h, start_m), _time(end_h, end_m)
    if start == end:
        raise QuietError(_("Quiet hours must end at another time than they start."))
    if zone is not None and zone_or_none(zone) is None:
        raise QuietError(
            _("Unknown time zone “%(zone)s”: use an IANA name such as Europe/Berlin or UTC.")
            % {"zone": zone[:ZONE_MAX]}
        )
    return start, end, zone


def _time(hours, minutes):
    h, m = int(hours), int(minutes or 0)
    if h > 23 or m > 59:
        typed = f"{hours}:{minutes or '00'}"
        raise QuietError(
            _("“%(time)s” is not a time of day: hours go from 0 to 23, minutes from 0 to 59.")
            % {"time": typed}
        )
    return time(h, m)


def describe(chat):
    start, end = f"{chat.quiet_start:%H:%M}", f"{chat.quiet_end:%H:%M}"
    return _("%(start)s–%(end)s (%(zone)s)") % {"start": start, "end": end, "zone": chat.zone.key}


def quiet(ref: ChatRef, args=()) -> Reply:
    chat = chat_of(ref)
    text = " ".join(args)
    if not text:
        if chat.quiet_start is None:
            return Reply(
                _(
                    "No quiet hours: messages come at any time. Set some with /quiet 22-7 (or "
                    "/quiet 22-7 Europe/Berlin)."
                )
            )
        return Reply(
            _("🌙 Quiet hours: %(window)s. /quiet off ends them.") % {"window": esc(describe(chat))}
        )
    if text.lower() == "off":
        was = chat.quiet_start is not None
        released = chat.set_quiet_hours(None, None, now=timezone.now())
        if not was:
            return Reply(_("There were no quiet hours; messages come at any time."))
        extra = ""
        if released:
            extra = " " + ngettext(
                "%(count)d held message is on its way.",
                "%(count)d held messages are on their way.",
                released,
            )
            extra %= {"count": released}
        return Reply(_("🔔 Quiet hours off: messages come at any time.") + extra)
    if len(text) > ARGS_MAX:
        return Reply(_("That is too long for /quiet. Send e.g. /quiet 22-7."))
    try:
        start, end, zone = parse(text)
    except QuietError as exc:
        return Reply(esc(str(exc)))
    chat.set_quiet_hours(start, end, zone, now=timezone.now())
    return Reply(
        _(
            "🌙 Quiet hours set: %(window)s. Messages due then wait and come when they end "
            "(several as one digest); nothing is lost."
        )
        % {"window": esc(describe(chat))}
        + "\n"
        + _("Admin alerts are not held. /quiet off ends the quiet hours.")
    )
