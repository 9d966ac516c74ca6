"""The last sign of life of a long-running process (scheduler, bot): what /health and the watchdog
read."""

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class Heartbeat(models.Model):
    """The last time a long-running process (scheduler, bot) showed life."""

    name = models.CharField(_("name"), max_length=32, primary_key=True)
    last_seen_at = models.DateTimeField(_("last seen"), default=timezone.now)
    detail = models.CharField(_("detail"), max_length=200, blank=True, default="")

    class Meta:
        verbose_name, verbose_name_plural = _("heartbeat"), _("heartbeats")
        # Moved here from scraping (the bot and the tick both beat); the table keeps its name.
        db_table = "scraping_heartbeat"

    def __str__(self):
        return self.name

    @classmethod
    def beat(cls, name, detail=""):
        """One upsert (INSERT … ON CONFLICT DO UPDATE): every tick and bot poll beats;
        update_or_create took four round trips."""
        row = cls(name=name, last_seen_at=timezone.now(), detail=detail)
        cls.objects.bulk_create(
            [row],
            update_conflicts=True,
            unique_fields=["name"],
            update_fields=["last_seen_at", "detail"],
        )

    @classmethod
    def age_seconds(cls, name, now=None):
        """Seconds since `name` last beat, or None if it never did."""
        last = cls.objects.filter(name=name).values_list("last_seen_at", flat=True).first()
        if last is None:
            return None
        return ((now or timezone.now()) - last).total_seconds()
