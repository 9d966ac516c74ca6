"""Scrape runs (one row per scheduled window) and process heartbeats."""

from django.db import models
from django.db.models import Q
from django.utils import timezone


class ScrapeRunQuerySet(models.QuerySet):
    def running(self):
        return self.filter(status=ScrapeRun.Status.RUNNING)

    def finished(self):
        """Runs that actually scraped: a skip is not a run."""
        return self.filter(status__in=ScrapeRun.FINISHED_STATUSES)


class ScrapeRun(models.Model):
    class Status(models.TextChoices):
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"
        BANNED = "banned"
        SKIPPED = "skipped"
        CANCELLED = "cancelled"

    FINISHED_STATUSES = [Status.DONE, Status.FAILED, Status.BANNED, Status.CANCELLED]

    keyword = models.ForeignKey(
        "tracker.Keyword", null=True, blank=True, on_delete=models.SET_NULL, related_name="runs"
    )
    source = models.CharField(max_length=32)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RUNNING)
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    pages_fetched = models.PositiveIntegerField(default=0)
    ads_seen = models.PositiveIntegerField(default=0)
    ads_new = models.PositiveIntegerField(default=0)
    price_drops = models.PositiveIntegerField(default=0)
    # A short reason slug: http_5xx, timeout, parse_error, zombie, already_running, ...
    error = models.CharField(max_length=64, blank=True, default="")
    detail = models.TextField(blank=True, default="")
    counters = models.JSONField(default=dict, blank=True)

    objects = ScrapeRunQuerySet.as_manager()

    class Meta:
        ordering = ["-started_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["keyword"],
                condition=Q(status="running"),
                name="one_running_run_per_keyword",
            ),
        ]
        indexes = [
            # A keyword's latest runs (admin, zero-result monitor, skip collapsing).
            models.Index(fields=["keyword", "-started_at"], name="scraperun_keyword_idx"),
            # Runs of the last 24 h by status (/stats, dashboard).
            models.Index(fields=["started_at", "status"], name="scraperun_recent_idx"),
        ]

    def __str__(self):
        return f"{self.source} run {self.pk} ({self.status})"

    def finish(self, outcome, now=None):
        """Record a `scraping.scrape.Outcome` (or anything with its fields) and close the run."""
        self.status = outcome.status
        self.error = outcome.error
        self.detail = outcome.detail
        self.pages_fetched = outcome.pages
        self.ads_seen = outcome.ads_seen
        self.ads_new = outcome.ads_new
        self.price_drops = outcome.price_drops
        self.counters = {**self.counters, **outcome.counters}
        self.finished_at = now or timezone.now()
        self.save(
            update_fields=[
                "status", "error", "detail", "pages_fetched", "ads_seen", "ads_new", "price_drops", "counters", "finished_at"
            ]
        )

    @property
    def duration(self):
        if self.finished_at is None:
            return None
        return self.finished_at - self.started_at


class Heartbeat(models.Model):
    """The last time a long-running process (scheduler, bot) showed life."""

    name = models.CharField(max_length=32, primary_key=True)
    last_seen_at = models.DateTimeField(default=timezone.now)
    detail = models.CharField(max_length=200, blank=True, default="")

    def __str__(self):
        return self.name

    @classmethod
    def beat(cls, name, detail=""):
        cls.objects.update_or_create(name=name, defaults={"last_seen_at": timezone.now(), "detail": detail})

    @classmethod
    def age_seconds(cls, name, now=None):
        """Seconds since `name` last beat, or None if it never did."""
        last = cls.objects.filter(name=name).values_list("last_seen_at", flat=True).first()
        if last is None:
            return None
        return ((now or timezone.now()) - last).total_seconds()
