"""When a chat gets its weekly market report: a weekday and an hour in the chat's time zone.

The next moment is stored (report_next_at, indexed), so the tick finds the due chats with one
indexed query; notifications/reports.py queues the reports and moves it on by a week.
"""

from datetime import UTC, datetime, time, timedelta

from django.core.validators import MaxValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class Weekday(models.IntegerChoices):
    MONDAY = 0, _("Monday")
    TUESDAY = 1, _("Tuesday")
    WEDNESDAY = 2, _("Wednesday")
    THURSDAY = 3, _("Thursday")
    FRIDAY = 4, _("Friday")
    SATURDAY = 5, _("Saturday")
    SUNDAY = 6, _("Sunday")


class ReportSchedule(models.Model):
    """Abstract base of TelegramChat (beside QuietHours); needs the `zone` QuietHours gives."""

    report_weekday = models.PositiveSmallIntegerField(
        _("weekly report day"), choices=Weekday.choices, default=Weekday.MONDAY
    )
    report_hour = models.PositiveSmallIntegerField(
        _("weekly report hour"),
        default=8,
        validators=[MaxValueValidator(23)],
        help_text=_("0-23, in the chat's time zone."),
    )
    # Set by schedule_report(); NULL until the tick first schedules the chat.
    report_next_at = models.DateTimeField(
        _("next weekly report"), null=True, blank=True, editable=False
    )

    class Meta:
        abstract = True

    CONSTRAINTS = [
        models.CheckConstraint(
            condition=Q(report_weekday__lte=6, report_hour__lte=23), name="chat_report_time_valid"
        ),
    ]
    INDEXES = [
        # TelegramChat.objects.reports_due(): the tick's query for chats whose report is due.
        models.Index(fields=["report_next_at"], name="chat_report_due_idx"),
    ]

    def next_report_at(self, after):
        """The first report moment (weekday, hour:00 in the chat's zone) strictly after `after`,
        in UTC."""
        zone = self.zone
        local = after.astimezone(zone)
        day = local.date() + timedelta(days=(self.report_weekday - local.weekday()) % 7)
        moment = datetime.combine(day, time(self.report_hour), tzinfo=zone).astimezone(UTC)
        if moment <= after:
            day += timedelta(days=7)
            moment = datetime.combine(day, time(self.report_hour), tzinfo=zone).astimezone(UTC)
        return moment

    def report_week(self, moment):
        """The ISO week of `moment` in the chat's zone ("2026-W23"): one report per keyword each."""
        year, week, _day = moment.astimezone(self.zone).isocalendar()
        return f"{year}-W{week:02d}"

    def schedule_report(self, now, weekday=None, hour=None):
        """Sets the report day and hour (None: keep) and the next report moment after `now`."""
        if weekday is not None:
            self.report_weekday = weekday
        if hour is not None:
            self.report_hour = hour
        self.report_next_at = self.next_report_at(now)
        self.save(update_fields=["report_weekday", "report_hour", "report_next_at"])
        return self.report_next_at
