"""Keywords (what to watch), ads (what was found), their price history, and process heartbeats."""

from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import Count, F, Q
from django.db.models.functions import TruncDate
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from lib.money import format_price

# Defined in its own module (one job per file); imported here so Django finds it as tracker's model.
from tracker.heartbeat import Heartbeat  # noqa: F401
from tracker.price_judgement import Judgement, PriceLabel
from tracker.relists import TITLE_KEY_LENGTH, RelistQuerySet, title_key


def normalised_query(text):
    """ "  Fahrrad   Rot" and "fahrrad rot" are the same search."""
    return " ".join(text.split()).casefold()


class KeywordQuerySet(models.QuerySet):
    def active(self):
        return self.filter(is_active=True)

    def due(self, now=None):
        """Active keywords whose next window has started."""
        return self.active().filter(next_run_at__lte=now or timezone.now())

    def sweep_due(self, now=None):
        """Active keywords whose next deep sweep has started."""
        return self.active().filter(next_sweep_at__lte=now or timezone.now())

    def schedule_sweeps(self, now=None):
        """Gives keywords without a sweep time one, spread over SCRAPE_SWEEP_HOURS by their pk (no
        herd)."""
        now = now or timezone.now()
        scheduled = 0
        for pk in self.filter(next_sweep_at__isnull=True).values_list("pk", flat=True):
            scheduled += self.filter(pk=pk, next_sweep_at__isnull=True).update(
                next_sweep_at=now + Keyword.sweep_offset(pk)
            )
        return scheduled

    def make_due(self, now=None):
        """The next window starts now (a resumed keyword, a run that was released unstarted)."""
        return self.update(next_run_at=now or timezone.now())

    def pause(self):
        """Stops scheduling; returns how many were active."""
        return self.filter(is_active=True).update(is_active=False)

    def resume(self, now=None):
        """Schedules paused keywords again, due at once; returns how many were paused."""
        return self.filter(is_active=False).update(
            is_active=True, next_run_at=now or timezone.now()
        )

    def same_query(self, source, query):
        """Keywords of `source` whose query reads like `query` (with_query)."""
        return self.filter(source=source).with_query(query)

    def with_query(self, query):
        """Keywords whose query reads like `query`, ignoring case and spacing. A handful of
        keywords: compared in Python, one query."""
        wanted = normalised_query(query)
        return [
            kw for kw in self.only("pk", "name", "query") if normalised_query(kw.query) == wanted
        ]

    def failing(self, streak):
        """Active keywords whose last `streak` finished runs all failed, or whose last one was
        banned."""
        return self.active().filter(
            Q(consecutive_failures__gte=streak) | Q(last_finished_status="banned")
        )

    def record_finished_run(self, status, error, detail, now):
        """Folds one finished run into the stored verdict: a failure grows the streak, anything else
        ends it."""
        if status in ("failed", "banned"):
            return self.update(
                consecutive_failures=F("consecutive_failures") + 1,
                last_finished_status=status,
                last_error=error,
                last_error_detail=detail,
            )
        fields = {"consecutive_failures": 0, "last_finished_status": status}
        if status == "done":
            fields["last_success_at"] = now
        return self.update(**fields)

    def reset_cursor(self):
        """The next run pages through all results again."""
        return self.update(cursor_published_at=None, cursor_ad_id="")


class Keyword(models.Model):
    name = models.CharField(
        _("name"),
        max_length=100,
        blank=True,
        default="",
        help_text=_("Empty: made from the query and price bounds."),
    )
    query = models.CharField(
        _("search"),
        max_length=1000,
        help_text=_("Plain search words, or a search URL pasted from the marketplace."),
    )
    # A slug of scraping's source registry; the keyword form offers and validates the choices.
    source = models.CharField(_("source"), max_length=32, default="willhaben")
    price_min = models.DecimalField(
        _("minimum price"), max_digits=12, decimal_places=2, null=True, blank=True
    )
    price_max = models.DecimalField(
        _("maximum price"), max_digits=12, decimal_places=2, null=True, blank=True
    )
    excluded_words = models.TextField(
        _("excluded words"),
        blank=True,
        default="",
        help_text=_(
            "Ads whose title contains any of these words are ignored. One per line or "
            "comma-separated."
        ),
    )
    interval_minutes = models.PositiveIntegerField(
        _("interval (minutes)"),
        default=5,
        validators=[MinValueValidator(1)],
        help_text=_("Minutes between scrapes (at least 1)."),
    )
    is_active = models.BooleanField(_("active"), default=True)
    # The cursor: the newest (published_at, external id) a committed run has
    # seen. Paging stops when it reaches it.
    cursor_published_at = models.DateTimeField(_("cursor: published"), null=True, blank=True)
    cursor_ad_id = models.CharField(_("cursor: ad id"), max_length=64, blank=True, default="")
    next_run_at = models.DateTimeField(_("next run"), default=timezone.now)
    # The next deep sweep (scraping.claims); NULL until the tick spreads it (schedule_sweeps).
    next_sweep_at = models.DateTimeField(_("next deep sweep"), null=True, blank=True)
    last_run_at = models.DateTimeField(_("last run"), null=True, blank=True)
    # Set while the zero-result monitor has an open alert for this keyword.
    zero_result_alert_at = models.DateTimeField(_("zero-result alert since"), null=True, blank=True)
    # The scraping verdict, kept up to date by ScrapeRun.close() when a run finishes
    # (skips do not touch it), so /health reads it without scanning run history.
    consecutive_failures = models.PositiveIntegerField(_("consecutive failures"), default=0)
    last_finished_status = models.CharField(
        _("last run status"), max_length=16, blank=True, default=""
    )
    last_error = models.CharField(_("last error"), max_length=64, blank=True, default="")
    last_error_detail = models.TextField(_("last error detail"), blank=True, default="")
    last_success_at = models.DateTimeField(_("last success"), null=True, blank=True)
    # Set while the failure monitor has told admins this keyword is failing.
    failing_alert_at = models.DateTimeField(_("failing alert since"), null=True, blank=True)
    # The Telegram chat that proposed it with /add (the per-chat /add limit counts these).
    proposed_by_chat_id = models.BigIntegerField(
        _("proposed by chat"), null=True, blank=True, editable=False
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    objects = KeywordQuerySet.as_manager()

    class Meta:
        ordering = ["id"]
        verbose_name, verbose_name_plural = _("keyword"), _("keywords")
        indexes = [
            # Keyword.objects.due(): the tick's claim query.
            models.Index(fields=["is_active", "next_run_at"], name="keyword_due_idx"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(interval_minutes__gte=1), name="keyword_interval_min_1"
            ),
            models.CheckConstraint(
                condition=Q(price_min__isnull=True)
                | Q(price_max__isnull=True)
                | Q(price_min__lte=F("price_max")),
                name="keyword_price_range_ordered",
            ),
        ]

    def __str__(self):
        return self.display_name

    @property
    def display_name(self):
        return self.name or self.query

    @staticmethod
    def sweep_offset(pk):
        """A stable spread of keyword `pk` over one sweep period (Knuth's multiplicative hash)."""
        period = max(settings.SCRAPE_SWEEP_HOURS, 1) * 3600
        return timedelta(seconds=(pk * 2654435761) % (2**32) % period)

    def fill_default_name(self, describe):
        """Without a name, name the keyword `describe(query, price_min=, price_max=)` (its source's
        description)."""
        if not self.name.strip():
            limit = self._meta.get_field("name").max_length
            self.name = describe(self.query, price_min=self.price_min, price_max=self.price_max)[
                :limit
            ]

    def has_been_scraped(self):
        """Has a run finished for this keyword? Before that, results are backlog, not news.

        The cursor alone does not tell: a first run that finds nothing leaves it unset.
        """
        if self.cursor_published_at is not None:
            return True
        return (
            self.pk is not None and self.runs.filter(status="done").exists()
        )  # unsaved: an ad-hoc `scrape` query

    def excluded_list(self):
        """The excluded words, lower-cased, without blanks."""
        parts = self.excluded_words.replace(",", "\n").splitlines()
        return [p.strip().lower() for p in parts if p.strip()]

    def clean(self):
        errors = {}
        if (
            self.price_min is not None
            and self.price_max is not None
            and self.price_min > self.price_max
        ):
            errors["price_max"] = _("The maximum price must not be below the minimum price.")
        if errors:
            raise ValidationError(errors)


class AdQuerySet(RelistQuerySet, models.QuerySet):
    def gone(self):
        return self.filter(gone_at__isnull=False)

    def mark_gone(self, keyword, seen_ids, now=None):
        """Marks the ads `keyword` has linked but a complete sweep did not see (`seen_ids`: Ad pks).

        Only ads inside the keyword's price range count: an ad the search no longer
        asks for (the range was narrowed) is not gone. Returns how many were marked.
        """
        ads = self.filter(matches__keyword=keyword, gone_at__isnull=True).exclude(pk__in=seen_ids)
        if keyword.price_min is not None:
            ads = ads.filter(price__gte=keyword.price_min)
        if keyword.price_max is not None:
            ads = ads.filter(price__lte=keyword.price_max)
        return self.filter(pk__in=list(ads.values_list("pk", flat=True))).update(
            gone_at=now or timezone.now()
        )


class Ad(models.Model):
    source = models.CharField(_("source"), max_length=32)
    external_id = models.CharField(_("external id"), max_length=64)
    title = models.CharField(_("title"), max_length=500)
    # NULL means "price on request".
    price = models.DecimalField(_("price"), max_digits=12, decimal_places=2, null=True, blank=True)
    currency = models.CharField(_("currency"), max_length=3, default="EUR")
    url = models.URLField(_("URL"), max_length=1000)
    location = models.CharField(_("location"), max_length=200, blank=True, default="")
    postcode = models.CharField(_("postcode"), max_length=16, blank=True, default="")
    image_url = models.URLField(_("image URL"), max_length=1000, blank=True, default="")
    published_at = models.DateTimeField(_("published"), null=True, blank=True)
    first_seen_at = models.DateTimeField(_("first seen"), default=timezone.now)
    last_seen_at = models.DateTimeField(_("last seen"), default=timezone.now)
    # Set when a complete deep sweep no longer found the ad (sold or removed); cleared when it
    # reappears.
    gone_at = models.DateTimeField(_("gone since"), null=True, blank=True)
    # Relists (tracker.relists): the title as they compare it, kept in step with title, and the gone
    # ad this one relists, whose price history comes before this one's.
    title_key = models.CharField(
        max_length=TITLE_KEY_LENGTH, blank=True, default="", editable=False
    )
    # The marketplace's id of the seller; "" when it names none. A relist is linked only when
    # both ads name the same seller; without one the admin merely suggests the match.
    seller_id = models.CharField(_("seller"), max_length=64, blank=True, default="")
    # Living area in m² where the source gives one (real estate): prices are then compared per m².
    living_area = models.DecimalField(
        _("living area (m²)"), max_digits=8, decimal_places=2, null=True, blank=True
    )
    relist_of = models.ForeignKey(
        "self",
        verbose_name=_("relist of"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="relists",
    )
    keywords = models.ManyToManyField(
        Keyword, verbose_name=_("keywords"), through="KeywordAd", related_name="ads", blank=True
    )

    objects = AdQuerySet.as_manager()

    class Meta:
        ordering = ["-first_seen_at"]
        verbose_name, verbose_name_plural = _("ad"), _("ads")
        constraints = [
            # Ingest upserts on this key.
            models.UniqueConstraint(fields=["source", "external_id"], name="ad_unique_per_source"),
        ]
        indexes = [
            # "new today" filters and ads_new_24h in /stats.
            models.Index(fields=["first_seen_at"], name="ad_first_seen_idx"),
            # Ad.objects.relist_candidates(): gone ads by title key and postcode, once per ingested
            # page.
            models.Index(
                fields=["source", "title_key", "postcode"],
                condition=Q(gone_at__isnull=False),
                name="ad_relist_idx",
            ),
        ]

    def __str__(self):
        return self.title

    def save(self, *args, **kwargs):
        self.title_key = title_key(self.title)
        super().save(*args, **kwargs)


def _per_day(rows, moment):
    """{local date: rows} from one grouped query (dates in TIME_ZONE)."""
    grouped = (
        rows.order_by()
        .annotate(day=TruncDate(moment))
        .values("day")
        .annotate(n=Count("pk"))
        .order_by()
    )
    return {row["day"]: row["n"] for row in grouped}


class KeywordAdQuerySet(models.QuerySet):
    def found_per_day(self, keyword, since):
        """{date: ads `keyword` found that day} since `since` (keywordad_found_idx)."""
        return _per_day(self.filter(keyword=keyword, found_at__gte=since), "found_at")


class KeywordAd(models.Model):
    """Which keyword found which ad, and when it first did."""

    # No index of its own: keywordad_unique (keyword, ad) serves lookups by keyword.
    keyword = models.ForeignKey(
        Keyword,
        verbose_name=_("keyword"),
        on_delete=models.CASCADE,
        related_name="matches",
        db_index=False,
    )
    ad = models.ForeignKey(
        Ad, verbose_name=_("ad"), on_delete=models.CASCADE, related_name="matches"
    )
    found_at = models.DateTimeField(_("found"), default=timezone.now)
    # The price this keyword last saw. A drop is judged against it, not against
    # Ad.price, which another keyword's run may already have moved.
    price = models.DecimalField(_("price"), max_digits=12, decimal_places=2, null=True, blank=True)
    # The judgement of `price` against the keyword's other ads, kept from the last change.
    price_label = models.CharField(
        _("price judgement"), max_length=16, choices=PriceLabel.choices, blank=True, default=""
    )
    price_percent = models.DecimalField(
        _("against the median (%)"), max_digits=7, decimal_places=1, null=True, blank=True
    )
    price_median = models.DecimalField(
        _("median of comparables"), max_digits=12, decimal_places=2, null=True, blank=True
    )
    price_n = models.PositiveIntegerField(_("comparables"), default=0)
    price_lowest = models.BooleanField(_("lowest of its comparables"), default=False)
    # The median is per m² (the ad and its comparables give a living area).
    price_per_m2 = models.BooleanField(_("per m²"), default=False)

    objects = KeywordAdQuerySet.as_manager()

    class Meta:
        verbose_name, verbose_name_plural = _("keyword match"), _("keyword matches")
        constraints = [
            models.UniqueConstraint(fields=["keyword", "ad"], name="keywordad_unique"),
        ]
        indexes = [
            # Per-keyword "ads found in the last 24 h".
            models.Index(fields=["keyword", "found_at"], name="keywordad_found_idx"),
            # The ad admin's price judgement filter (deals): the rows of one label, not the
            # unjudged majority.
            models.Index(
                fields=["price_label", "ad"],
                condition=~Q(price_label__in=["", "too_few"]),
                name="keywordad_judged_idx",
            ),
        ]

    def __str__(self):
        return f"{self.keyword_id} → {self.ad_id}"

    JUDGEMENT_FIELDS = [
        "price_label",
        "price_percent",
        "price_median",
        "price_n",
        "price_lowest",
        "price_per_m2",
    ]

    def store_judgement(self, judgement):
        """Keeps `judgement` (of this row's price) in the price_* columns; the caller saves."""
        self.price_label = judgement.label
        self.price_percent = judgement.percent
        self.price_median = judgement.median
        self.price_n = judgement.n
        self.price_lowest = judgement.lowest
        self.price_per_m2 = judgement.per_m2

    @property
    def judgement(self):
        """The stored judgement (median, percent and flags only), or None before any."""
        if not self.price_label:
            return None
        return Judgement(
            label=self.price_label,
            n=self.price_n,
            median=self.price_median,
            percent=self.price_percent,
            lowest=self.price_lowest,
            per_m2=self.price_per_m2,
        )


class PriceChangeQuerySet(models.QuerySet):
    def drops(self):
        """Changes to a lower price (to or from "on request" is not a drop)."""
        return self.filter(new_price__lt=F("old_price"))

    def drops_per_day(self, keyword, since):
        """{date: price drops of ads `keyword` has found} since `since`, by when they were seen.

        Reached through keywordad_unique (keyword, ad), then pricechange_ad_idx (ad, seen_at).
        """
        drops = self.drops().filter(ad__matches__keyword=keyword, seen_at__gte=since)
        return _per_day(drops, "seen_at")


class PriceChange(models.Model):
    # No index of its own: pricechange_ad_idx (ad, seen_at) serves lookups by ad.
    ad = models.ForeignKey(
        Ad,
        verbose_name=_("ad"),
        on_delete=models.CASCADE,
        related_name="price_changes",
        db_index=False,
    )
    old_price = models.DecimalField(
        _("old price"), max_digits=12, decimal_places=2, null=True, blank=True
    )
    new_price = models.DecimalField(
        _("new price"), max_digits=12, decimal_places=2, null=True, blank=True
    )
    seen_at = models.DateTimeField(_("seen"), default=timezone.now)

    objects = PriceChangeQuerySet.as_manager()

    class Meta:
        ordering = ["-seen_at"]
        verbose_name, verbose_name_plural = _("price change"), _("price changes")
        indexes = [
            # An ad's price history, oldest first, for the chart.
            models.Index(fields=["ad", "seen_at"], name="pricechange_ad_idx"),
            # price_drops_24h in /stats.
            models.Index(fields=["seen_at"], name="pricechange_seen_idx"),
        ]

    def __str__(self):
        return f"{format_price(self.old_price)} → {format_price(self.new_price)}"

    @property
    def is_drop(self):
        return (
            self.old_price is not None
            and self.new_price is not None
            and self.new_price < self.old_price
        )
