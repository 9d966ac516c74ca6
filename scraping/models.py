"""Scrape runs: one row per scheduled window."""

from datetime import timedelta

from django.db import models, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from tracker.models import Keyword


class ScrapeRunQuerySet(models.QuerySet):
    def running(self):
        return self.filter(status=ScrapeRun.Status.RUNNING)

    def finished(self):
        """Runs that actually scraped: a skip is not a run."""
        return self.filter(status__in=ScrapeRun.FINISHED_STATUSES)

    def zombies(self, now, minutes):
        """Runs left `running` longer than any scrape may take: their worker died."""
        return self.running().filter(started_at__lt=now - timedelta(minutes=minutes))


class ScrapeRun(models.Model):
    class Status(models.TextChoices):
        RUNNING = "running", _("running")
        DONE = "done", _("done")
        FAILED = "failed", _("failed")
        BANNED = "banned", _("banned")
        SKIPPED = "skipped", _("skipped")
        CANCELLED = "cancelled", _("cancelled")

    class Kind(models.TextChoices):
        SCHEDULED = "scheduled", _("scheduled")  # a cheap cursor run
        SWEEP = (
            "sweep",
            _("deep sweep"),
        )  # a deep sweep past the cursor (scraping.claims.claim_due_sweeps)
        MANUAL = "manual", _("manual")  # an operator's Run now or `manage.py scrape`

    FINISHED_STATUSES = [Status.DONE, Status.FAILED, Status.BANNED, Status.CANCELLED]

    # Keeps its own index although scraperun_keyword_idx covers it: with db_index=False,
    # Django's AlterField also drops the partial unique index one_running_run_per_keyword
    # on the same column (PostgreSQL).
    keyword = models.ForeignKey(
        "tracker.Keyword",
        verbose_name=_("keyword"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="runs",
    )
    source = models.CharField(_("source"), max_length=32)
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.RUNNING
    )
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices, default=Kind.SCHEDULED)
    started_at = models.DateTimeField(_("started"), default=timezone.now)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    pages_fetched = models.PositiveIntegerField(_("pages fetched"), default=0)
    ads_seen = models.PositiveIntegerField(_("ads seen"), default=0)
    ads_new = models.PositiveIntegerField(_("new ads"), default=0)
    price_drops = models.PositiveIntegerField(_("price drops"), default=0)
    # A short reason slug: http_5xx, timeout, parse_error, zombie, already_running, ...
    error = models.CharField(_("error"), max_length=64, blank=True, default="")
    detail = models.TextField(_("detail"), blank=True, default="")
    counters = models.JSONField(_("counters"), default=dict, blank=True)

    objects = ScrapeRunQuerySet.as_manager()

    class Meta:
        ordering = ["-started_at"]
        verbose_name, verbose_name_plural = _("scrape run"), _("scrape runs")
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
            # Runs of one status, newest first: the changelist filtered by status
            # (WHERE status = 'failed' ORDER BY started_at DESC), the dashboard's
            # links to failed runs, and retention's "latest done/failed run" probes.
            models.Index(fields=["status", "started_at"], name="scraperun_status_idx"),
        ]

    def __str__(self):
        return f"{self.source} run {self.pk} ({self.status})"

    def finish(self, outcome, now=None):
        """Records a `scraping.scrape.Outcome` (status, error, detail, RunCounts) and closes the
        run."""
        counts = outcome.counts
        return self.close(
            outcome.status,
            outcome.error,
            outcome.detail,
            now=now,
            **counts.run_fields(),
            counters={**self.counters, **counts.counters},
        )

    @property
    def duration(self):
        if self.finished_at is None:
            return None
        return self.finished_at - self.started_at

    def close(self, status, error="", detail="", now=None, **fields):
        """Finishes a running run. Conditional on it still running, so a reaped
        zombie is never overwritten by its late worker; returns whether it closed."""
        now = now or timezone.now()
        values = {"status": status, "error": error, "detail": detail, "finished_at": now, **fields}
        closed = ScrapeRun.objects.filter(pk=self.pk, status=self.Status.RUNNING).update(**values)
        if closed:
            for name, value in values.items():
                setattr(self, name, value)
            if self.keyword_id is not None and status in self.FINISHED_STATUSES:
                Keyword.objects.filter(pk=self.keyword_id).record_finished_run(
                    status, error, detail, now
                )
        return bool(closed)

    @classmethod
    def record_skip(cls, keyword, reason, detail="", now=None, kind=Kind.SCHEDULED):
        """Leaves a trace for a window that did not run.

        Consecutive identical skips of one keyword collapse into one row whose
        `counters["skips"]` grows, so a keyword skipped every tick writes one
        row, not 1,440 a day. A different outcome in between starts a new row.
        """
        now = now or timezone.now()
        with transaction.atomic():
            latest = (
                cls.objects.select_for_update()
                .filter(keyword=keyword)
                .order_by("-started_at", "-id")
                .first()
            )
            if (
                latest
                and latest.status == cls.Status.SKIPPED
                and latest.error == reason
                and latest.kind == kind
            ):
                latest.counters["skips"] = latest.counters.get("skips", 1) + 1
                latest.finished_at = now
                latest.detail = detail or latest.detail
                latest.save(update_fields=["counters", "finished_at", "detail"])
                return latest
            return cls.objects.create(
                keyword=keyword,
                source=keyword.source,
                status=cls.Status.SKIPPED,
                kind=kind,
                started_at=now,
                finished_at=now,
                error=reason,
                detail=detail,
                counters={"skips": 1},
            )


class RunHour(models.Model):
    """The runs started in one settled hour, summed once (scraping/run_hours.py): the 24 h figures
    of /stats, /metrics, the dashboard and `status` read 24 of these instead of 86,400 runs.

    `rows`: [kind, status, error, runs, skips, http_429] per group, skipped runs left out.
    """

    hour = models.DateTimeField(primary_key=True)
    rows = models.JSONField(default=list)

    class Meta:
        verbose_name = "run hour"

    def __str__(self):
        return f"runs of the hour from {self.hour:%Y-%m-%d %H:%M}"
