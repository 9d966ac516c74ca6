"""A chat's quiet hours (/quiet 22-7): the fields and the window arithmetic, kept out of chats.py.

The hold step that applies them to the outbox is NotificationQuerySet.hold_for_quiet_hours.
"""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

ZONE_MAX = 64


def zone_or_none(name):
    """ZoneInfo(name), or None for an empty or unknown name (never a path outside the tz
    database)."""
    if not name or len(name) > ZONE_MAX:
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None


class QuietHours(models.Model):
    """Abstract base of TelegramChat: messages due inside the window wait until its end."""

    quiet_start = models.TimeField(gettext_lazy("quiet hours from"), null=True, blank=True)
    quiet_end = models.TimeField(gettext_lazy("quiet hours until"), null=True, blank=True)
    time_zone = models.CharField(
        gettext_lazy("time zone"),
        max_length=ZONE_MAX,
        blank=True,
        default="",
        help_text=gettext_lazy(
            "For the quiet hours: an IANA name such as Europe/Berlin; empty: the server's "
            "TIME_ZONE."
        ),
    )

    class Meta:
        abstract = True
        constraints = [
            models.CheckConstraint(
                condition=Q(quiet_start__isnull=True, quiet_end__isnull=True)
                | Q(quiet_start__isnull=False, quiet_end__isnull=False),
                name="chat_quiet_hours_complete",
            ),
        ]

    def clean(self):
        super().clean()
        if (self.quiet_start is None) != (self.quiet_end is None):
            raise ValidationError(_("Set both ends of the quiet hours, or neither."))
        if self.quiet_start is not None and self.quiet_start == self.quiet_end:
            raise ValidationError(
                {"quiet_end": _("Quiet hours must end at another time than they start.")}
            )
        if self.time_zone and zone_or_none(self.time_zone) is None:
            message = _("Unknown time zone “%(zone)s”: use an IANA name such as Europe/Berlin.") % {
                "zone": self.time_zone
            }
            raise ValidationError({"time_zone": message})

    @property
    def zone(self):
        """The chat's time zone (the server's TIME_ZONE unless it chose one)."""
        return zone_or_none(self.time_zone) or ZoneInfo(settings.TIME_ZONE)

    def quiet_ends_at(self, now):
        """The end of the quiet window `now` falls in (an aware UTC datetime), or None outside it.

        Windows may span midnight (22:00-07:00). Local times come from zoneinfo, so a window
        keeps its wall-clock hours across DST changes; an end inside a DST gap is the first
        real instant after it, an ambiguous end (the repeated hour) its first occurrence.
        """
        if self.quiet_start is None or self.quiet_end is None or self.quiet_start == self.quiet_end:
            return None
        local = now.astimezone(self.zone)
        t, start, end = local.time().replace(tzinfo=None), self.quiet_start, self.quiet_end
        if start < end:
            inside, end_day = start <= t < end, local.date()
        else:
            inside = t >= start or t < end
            end_day = local.date() + timedelta(days=1) if t >= start else local.date()
        if not inside:
            return None
        return datetime.combine(end_day, end, tzinfo=self.zone).astimezone(UTC)

    def set_quiet_hours(self, start, end, time_zone=None, now=None):
        """/quiet and the admin: new window (None, None: off); `time_zone` an IANA name (None:
        keep).

        Rows held for the old window (next_attempt_at = its end, exactly) are due again at
        once; the next hold step holds them anew if the new window still covers `now`.
        Returns how many rows were released.
        """
        now = now or datetime.now(UTC)
        old_end = self.quiet_ends_at(now)
        self.quiet_start, self.quiet_end = start, end
        if time_zone is not None:
            self.time_zone = time_zone
        self.save(update_fields=["quiet_start", "quiet_end", "time_zone"])
        return self.release_held(old_end, now)

    def release_held(self, old_end, now):
        """Makes the rows held until `old_end` due now (a window end is a whole minute: no retry
        lands on it)."""
        if old_end is None or old_end <= now:
            return 0
        return (
            self.notifications.pending()
            .filter(next_attempt_at=old_end)
            .exclude(kind="alert")
            .update(next_attempt_at=now)
        )
