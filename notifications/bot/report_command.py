"""`/report`, `/report on|off`, `/report <id> on|off`, `/report <day> <hour>`: the weekly market
report of the chat's keywords (notifications/reports.py), on by default for every subscription.
"""

from django.utils import timezone
from django.utils.translation import gettext as _

from notifications.bot.replies import ChatRef, Reply, chat_of
from notifications.messages import esc
from notifications.models.report_schedule import Weekday

# The first two letters of a day's name, English and German.
DAYS = {
    "mo": Weekday.MONDAY,
    "tu": Weekday.TUESDAY,
    "di": Weekday.TUESDAY,
    "we": Weekday.WEDNESDAY,
    "mi": Weekday.WEDNESDAY,
    "th": Weekday.THURSDAY,
    "do": Weekday.THURSDAY,
    "fr": Weekday.FRIDAY,
    "sa": Weekday.SATURDAY,
    "su": Weekday.SUNDAY,
    "so": Weekday.SUNDAY,
}
SWITCH = {"on": True, "off": False, "an": True, "aus": False}


def usage():
    return _(
        "Send /report on or /report off (all your keywords), /report 12 off (one keyword), or "
        "/report monday 8 (day and hour of the report)."
    )


def describe(chat):
    return _("%(day)s %(hour)02d:00 (%(zone)s)") % {
        "day": Weekday(chat.report_weekday).label,
        "hour": chat.report_hour,
        "zone": chat.zone.key,
    }


def report(ref: ChatRef, args=()) -> Reply:
    chat = chat_of(ref)
    words = [a.lower() for a in args]
    if not words:
        subscriptions = chat.subscriptions.all()
        on = subscriptions.filter(report_enabled=True).count()
        return Reply(
            "📊 "
            + _("Weekly report: %(when)s, on for %(on)d of %(all)d keywords.")
            % {"when": esc(describe(chat)), "on": on, "all": subscriptions.count()}
            + "\n"
            + esc(usage())
        )
    if len(words) == 1 and words[0] in SWITCH:
        enabled = SWITCH[words[0]]
        chat.subscriptions.update(report_enabled=enabled)
        if enabled:
            return Reply(
                "📊 "
                + _("Weekly report on for all your keywords: %(when)s.")
                % {"when": esc(describe(chat))}
            )
        return Reply(_("Weekly report off for all your keywords. /report on brings it back."))
    if len(words) == 2 and words[1] in SWITCH and words[0].isdigit() and len(words[0]) < 10:
        enabled = SWITCH[words[1]]
        changed = chat.subscriptions.filter(keyword_id=int(words[0])).update(report_enabled=enabled)
        if not changed:
            return Reply(
                _("You do not follow keyword %(id)s. /status lists yours.") % {"id": words[0]}
            )
        if enabled:
            return Reply(_("Weekly report on for keyword %(id)s.") % {"id": words[0]})
        return Reply(_("Weekly report off for keyword %(id)s.") % {"id": words[0]})
    if len(words) == 2 and words[0][:2] in DAYS and words[1].isdigit() and len(words[1]) <= 2:
        hour = int(words[1])
        if hour > 23:
            return Reply(esc(_("The hour goes from 0 to 23.")))
        chat.schedule_report(timezone.now(), weekday=DAYS[words[0][:2]], hour=hour)
        return Reply(
            "📊 " + _("Weekly report from now on: %(when)s.") % {"when": esc(describe(chat))}
        )
    return Reply(esc(usage()))
