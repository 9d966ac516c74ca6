"""The notification outbox: one row per message to send, claimed and settled by the sender."""

import logging
import uuid
from collections import defaultdict
from datetime import timedelta
from decimal import Decimal

from django.db import connections, models
from django.db.models import Exists, F, OuterRef, Q, Value
from django.db.models.functions import Coalesce, Greatest
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from notifications.fan_out_sql import insert_ignoring_conflicts
from notifications.models.chats import TelegramChat
from notifications.models.subscriptions import Subscription
from notifications.outbox_sql import claim_rows, settle_rows
from tracker.models import Keyword, KeywordAd

logger = logging.getLogger(__name__)

# Stands in for a NULL ("price on request") price in the outbox's unique key:
# NULLs never collide in a unique index, so without it duplicates slip through.
NO_PRICE_KEY = Decimal("-1")
# What the sender reads of a row and of its ad, chat and keyword (messages.py, sender.py): whole
# rows meant parsing some twenty timestamps per notification sent. The row's own timestamps are
# written (claim, settle), never read.
SENT_FIELDS = (
    "kind",
    "price",
    "old_price",
    "text",
    "alert_key",  # a report's week (notifications/reports.py)
    "status",
    "attempts",
    "last_error",
    "claim_token",
)
AD_SENT_FIELDS = (
    "title",
    "price",
    "url",
    "image_url",
    "location",
    "postcode",
    "published_at",
    "relist_of",
    "source",  # the message names the marketplace
)
CHAT_SENT_FIELDS = ("chat_id", "status", "language", "channel", "title", "apprise_url")
KEYWORD_SENT_FIELDS = ("name", "query")
# After failures 1-5 the next attempt waits this long; failure 6 makes the row dead.
BACKOFF = tuple(timedelta(minutes=m) for m in (1, 2, 4, 8, 16))
MAX_ATTEMPTS = len(BACKOFF) + 1


class NotificationQuerySet(models.QuerySet):
    def hold_for_quiet_hours(self, now) -> int:
        """Defers the due rows of chats inside their quiet hours to the window's end (without
        counting an attempt); returns how many. When the window ends they are due together and
        the sender's per-chat grouping sends them as one digest. Alerts (admin alerts, the
        welcome after an approval) are never held: an operator must hear of a failing scraper
        at night, and a welcome answers an action the chat is waiting for."""
        # Only due rows: a row claimed by a sender (next_attempt_at = its lease) is left alone,
        # and the UPDATE re-checks the condition, so a concurrent claim wins or loses cleanly.
        waiting = self.due(now).exclude(kind=Notification.Kind.ALERT)
        by_end = defaultdict(list)
        # Chats with rows to hold (an uncorrelated IN: one pass over the due rows, on SQLite too).
        chats = TelegramChat.objects.filter(pk__in=waiting.values("chat_id"))
        for chat_pk, end in chats.quiet_until(now).items():
            by_end[end].append(chat_pk)
        held = 0
        for end, chat_pks in by_end.items():
            count = waiting.filter(chat_id__in=chat_pks).update(next_attempt_at=end)
            if count:
                logger.info(
                    "notifications: %d notifications of %d chats held for quiet hours until %s",
                    count,
                    len(chat_pks),
                    end.isoformat(),
                )
            held += count
        return held

    def pending(self):
        return self.filter(status=Notification.Status.PENDING)

    def due(self, now=None):
        """Pending rows whose next attempt has come."""
        return self.pending().filter(next_attempt_at__lte=now or timezone.now())

    def sendable(self, now):
        """Due rows the sender may take now: active, unmuted chats and keywords, attempts left."""
        active = self.sendable_in_chats(now).filter(chat__status=TelegramChat.Status.ACTIVE)
        return active.exclude(chat__muted_until__gt=now)

    def sendable_in_chats(self, now):
        """sendable() less the chat's own conditions, for chats just read as sendable.

        The planner expects few pending rows, so for a burst it joins each row to the chat
        table by a scan: the sender's digest query took 30-50 ms on 1,000 rows through it.
        """
        keyword_muted = Subscription.objects.filter(
            chat=OuterRef("chat"), keyword=OuterRef("keyword"), muted_until__gt=now
        )
        return self.due(now).filter(attempts__lt=MAX_ATTEMPTS).exclude(Exists(keyword_muted))

    def fan_out(self, keyword, events, chat_ids, now):
        """Queues one pending row per event and chat; returns how many rows were new.

        `events` are (ad id, kind, price, old price). The outbox's unique constraints drop
        what a chat already has (INSERT … ON CONFLICT DO NOTHING, as bulk_create's
        ignore_conflicts; the statement is built in notifications/fan_out_sql.py). Written
        out instead of bulk_create because a scrape page fans out to hundreds of rows, and
        preparing every field of every row through the ORM cost ten times what the database
        spends on them (bench/ingest.py): here each value is prepared once, per event, per
        chat or per page.
        """
        db = connections[self.db]
        fields = {f.name: f for f in Notification._meta.concrete_fields if not f.primary_key}
        per_event = [fields[name] for name in ("ad", "kind", "price", "old_price")]
        per_page = [f for f in fields.values() if f not in per_event and f.name != "chat"]
        given = {"keyword": keyword.pk, "next_attempt_at": now}

        page = tuple(
            f.get_db_prep_save(given[f.name] if f.name in given else f.get_default(), db)
            for f in per_page
        )
        payloads = [
            tuple(f.get_db_prep_save(v, db) for f, v in zip(per_event, event, strict=True)) + page
            for event in events
        ]
        chats = [(fields["chat"].get_db_prep_save(chat_id, db),) for chat_id in chat_ids]
        rows = [chat + payload for payload in payloads for chat in chats]
        columns = [fields["chat"], *per_event, *per_page]
        return insert_ignoring_conflicts(db, Notification._meta.db_table, columns, rows)

    def load_for_sending(self, pks):
        """{pk: row} of `pks` with what sending reads of their ad, chat and keyword (*_SENT_FIELDS).

        Chats and keywords are read once each and shared by their rows, not joined into every row.
        """
        own = (*SENT_FIELDS, "chat", "ad", "keyword")
        rows = (
            self.select_related("ad")
            .only(*own, *(f"ad__{name}" for name in AD_SENT_FIELDS))
            .in_bulk(pks)
        )
        chats = TelegramChat.objects.only(*CHAT_SENT_FIELDS).in_bulk(
            {n.chat_id for n in rows.values()}
        )
        keyword_ids = {n.keyword_id for n in rows.values()} - {None}
        keywords = (
            Keyword.objects.only(*KEYWORD_SENT_FIELDS).in_bulk(keyword_ids) if keyword_ids else {}
        )
        # The price judgement each ad message shows (messages.stored_judgement): one query for
        # the batch (keywordad_unique), not one per message.
        ad_ids = {n.ad_id for n in rows.values() if n.keyword_id is not None} - {None}
        links = (
            KeywordAd.objects.filter(keyword_id__in=keyword_ids, ad_id__in=ad_ids).only(
                "keyword_id", "ad_id", "price", *KeywordAd.JUDGEMENT_FIELDS
            )
            if ad_ids
            else []
        )
        links = {(link.keyword_id, link.ad_id): link for link in links}
        for n in rows.values():
            n.chat = chats[n.chat_id]
            if n.keyword_id is not None:
                n.keyword = keywords[n.keyword_id]
                n.keyword_link = links.get((n.keyword_id, n.ad_id))
        return rows

    def claim(self, rows, now, lease_seconds):
        """Takes the due ones among loaded `rows` for sending, in `rows` order; rows another worker
        has are left out.

        One UPDATE … RETURNING (notifications/outbox_sql.py) claims them all under one fresh
        claim token and hands back each row's new attempts and last error, which are set on
        the instances. The claim counts as an attempt and hides each row for the lease: if
        this process dies before recording the outcome, the rows are due again when the lease
        ends. On PostgreSQL rows another worker is claiming right now are skipped, not waited for.
        """
        token = uuid.uuid4().hex
        lease_until = now + timedelta(seconds=lease_seconds)
        pks = [n.pk for n in rows]
        taken = claim_rows(
            connections[self.db],
            Notification._meta.db_table,
            pks,
            Notification.Status.PENDING,
            now,
            lease_until,
            token,
        )
        claimed = [n for n in rows if n.pk in taken]
        for n in claimed:
            n.attempts, n.last_error = taken[n.pk]
            n.status, n.next_attempt_at, n.claimed_at, n.claim_token = (
                Notification.Status.PENDING,
                lease_until,
                now,
                token,
            )
        return claimed

    def settle_sent(self, rows, message_id, now):
        """Marks claimed rows sent in one UPDATE (only those still held under their claim token)."""
        pks = [n.pk for n in rows]
        tokens = sorted({n.claim_token for n in rows})
        fields = dict(
            status=Notification.Status.SENT, last_error="", sent_at=now, message_id=message_id
        )
        updated = settle_rows(
            connections[self.db],
            Notification._meta.db_table,
            pks,
            tokens,
            fields["status"],
            now,
            message_id,
        )
        for n in rows:
            for name, value in fields.items():
                setattr(n, name, value)
        if updated < len(rows):
            logger.warning(
                "notifications: %d of notifications %s were reclaimed before being recorded as "
                "sent",
                len(rows) - updated,
                pks,
            )
        return updated

    def give_back(self, rows, now):
        """Claimed rows not sent after all: due again at `now`, their attempt returned, in one
        UPDATE (only those still held under their claim token). The token is cleared, so a
        give-back run again (its answer lost with the connection) returns no second attempt."""
        tokens = {n.claim_token for n in rows}
        held = self.filter(
            pk__in=[n.pk for n in rows], claim_token__in=tokens, status=Notification.Status.PENDING
        )
        return held.update(
            attempts=Greatest(F("attempts") - 1, Value(0)), next_attempt_at=now, claim_token=""
        )

    def expire_exhausted(self, now):
        """Rows whose every attempt was claimed but never answered (the sender died mid-send)."""
        rows = self.due(now).filter(attempts__gte=MAX_ATTEMPTS)
        for n in rows.select_related("chat"):
            n._finish(
                Notification.Status.DEAD,
                f"no outcome recorded after {n.attempts} attempts (sender crashed?)",
            )
            logger.error(
                "notifications: notification %s to chat %s (ad %s) is dead: %s",
                n.pk,
                n.chat.log_name,
                n.ad_id,
                n.last_error,
            )

    def cancel_for_inactive_chats(self):
        """Cancels the pending rows of blocked and stopped chats; returns how many. The chats are
        read first (a small table): as one joined UPDATE, PostgreSQL looked up the chat of every
        pending row (10 ms a sending round at 1,000 due rows, bench/history.py)."""
        gone = TelegramChat.objects.filter(
            status__in=[
                TelegramChat.Status.BLOCKED,
                TelegramChat.Status.STOPPED,
                TelegramChat.Status.PAUSED,
            ]
        )
        chat_pks = list(gone.values_list("pk", flat=True))
        rows = self.pending().filter(chat_id__in=chat_pks)
        return (
            rows.update(status=Notification.Status.CANCELLED, last_error="chat not active")
            if chat_pks
            else 0
        )


class Notification(models.Model):
    """The outbox. Rows are written in the transaction that stores the ad."""

    class Kind(models.TextChoices):
        NEW = "new", _("new ad")
        PRICE_DROP = "price_drop", _("price drop")
        ALERT = "alert", _("admin alert")
        # The message a chat gets when an admin approves it (not an alert: /health does not count
        # it).
        WELCOME = "welcome", _("welcome")
        # A keyword's weekly market report (notifications/reports.py): a chart with a caption.
        REPORT = "report", _("weekly report")

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        SENT = "sent", _("sent")
        DEAD = "dead", _("dead")
        CANCELLED = "cancelled", _("cancelled")

    # No index of its own: notification_chat_idx (chat, status) serves lookups by chat.
    chat = models.ForeignKey(
        TelegramChat,
        verbose_name=_("chat"),
        on_delete=models.CASCADE,
        related_name="notifications",
        db_index=False,
    )
    ad = models.ForeignKey(
        "tracker.Ad",
        verbose_name=_("ad"),
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="notifications",
    )
    keyword = models.ForeignKey(
        "tracker.Keyword",
        verbose_name=_("keyword"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="notifications",
    )
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    # The ad's price when the row was written (NULL: price on request).
    price = models.DecimalField(_("price"), max_digits=12, decimal_places=2, null=True, blank=True)
    old_price = models.DecimalField(
        _("old price"), max_digits=12, decimal_places=2, null=True, blank=True
    )
    # For admin alerts: the message and a key that makes each alert unique.
    text = models.TextField(_("text"), blank=True, default="")
    alert_key = models.CharField(_("alert key"), max_length=200, blank=True, default="")
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.PENDING
    )
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    next_attempt_at = models.DateTimeField(_("next attempt"), default=timezone.now)
    last_error = models.TextField(_("last error"), blank=True, default="")
    created_at = models.DateTimeField(_("created"), default=timezone.now)
    sent_at = models.DateTimeField(_("sent"), null=True, blank=True)
    # Set by claim(): who holds the row while it is being sent (see NOTIFY_CLAIM_LEASE_S).
    claimed_at = models.DateTimeField(_("claimed"), null=True, blank=True)
    claim_token = models.CharField(_("claim token"), max_length=32, blank=True, default="")
    # Telegram's id of the delivered message (for later edits, e.g. inline buttons).
    message_id = models.BigIntegerField(_("Telegram message id"), null=True, blank=True)

    objects = NotificationQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("notification")
        verbose_name_plural = _("notifications")
        constraints = [
            models.UniqueConstraint(
                F("chat"),
                F("ad"),
                F("kind"),
                Coalesce(F("price"), Value(NO_PRICE_KEY)),
                condition=Q(ad__isnull=False),
                name="notification_once_per_ad_price",
            ),
            models.UniqueConstraint(
                fields=["chat", "alert_key"],
                condition=Q(kind="alert"),
                name="notification_alert_once",
            ),
            # One report per subscription and week: alert_key "report:<keyword>:<ISO week>".
            models.UniqueConstraint(
                fields=["chat", "alert_key"],
                condition=Q(kind="report"),
                name="notification_report_once",
            ),
        ]
        indexes = [
            # Notification.objects.due(): the sender's claim query.
            models.Index(fields=["status", "next_attempt_at"], name="notification_due_idx"),
            # A chat's queue (mute handling, /status, digests).
            models.Index(fields=["chat", "status"], name="notification_chat_idx"),
            # The admin changelist's default order (ORDER BY created_at DESC, id DESC)
            # and retention's created_at cutoff.
            models.Index(fields=["created_at", "id"], name="notification_created_idx"),
            # /health's outbox figures (operations/health.py: WHERE status IN
            # ('pending', 'dead'), counts per status, oldest pending created_at):
            # small however many sent rows the table holds.
            models.Index(
                fields=["status", "created_at"],
                condition=Q(status__in=["pending", "dead"]),
                name="notification_open_idx",
            ),
        ]

    def __str__(self):
        # Not get_kind_display(), which hashes every choice's lazy label: the admin names every
        # listed row.
        return f"{KIND_LABELS.get(self.kind, self.kind)} → {self.chat} ({self.status})"

    def _finish(self, status, error="", **fields):
        """Records an outcome, but only while this row is still ours (our claim token)."""
        fields.update(status=status, last_error=error[:2000])
        updated = Notification.objects.filter(pk=self.pk, claim_token=self.claim_token).update(
            **fields
        )
        for name, value in fields.items():
            setattr(self, name, value)
        if not updated:
            logger.warning(
                "notifications: notification %s was reclaimed before its outcome (%s) was recorded",
                self.pk,
                status,
            )
        return bool(updated)

    def mark_failed(self, error, now=None):
        """A transient failure: back off, or give up after the last retry."""
        now = now or timezone.now()
        if self.attempts >= MAX_ATTEMPTS:
            return self.mark_dead(error)
        delay = BACKOFF[max(self.attempts, 1) - 1]
        logger.warning(
            "notifications: notification %s to chat %s failed (attempt %d), retry in %s: %s",
            self.pk,
            self.chat.log_name,
            self.attempts,
            delay,
            error,
        )
        return self._finish(self.Status.PENDING, error, next_attempt_at=now + delay)

    def mark_dead(self, error):
        logger.error(
            "notifications: notification %s to chat %s (ad %s) is dead after %d attempts: %s",
            self.pk,
            self.chat.log_name,
            self.ad_id,
            self.attempts,
            error,
        )
        return self._finish(self.Status.DEAD, error)

    def defer(self, seconds, error, now=None):
        """Telegram's flood control (429): wait as told; this attempt does not count."""
        now = now or timezone.now()
        retry_at = now + timedelta(seconds=seconds)
        return self._finish(
            self.Status.PENDING, error, next_attempt_at=retry_at, attempts=max(self.attempts - 1, 0)
        )

    def retry_now(self):
        """Operator action: a dead or pending row gets a fresh set of attempts, due now."""
        if self.status not in (self.Status.DEAD, self.Status.PENDING):
            return False
        Notification.objects.filter(pk=self.pk, status=self.status).update(
            status=self.Status.PENDING, attempts=0, next_attempt_at=timezone.now(), claim_token=""
        )
        return True

    def cancel(self, reason="cancelled by operator"):
        if self.status != self.Status.PENDING:
            return False
        rows = Notification.objects.filter(pk=self.pk, status=self.Status.PENDING)
        return bool(rows.update(status=self.Status.CANCELLED, last_error=reason))


KIND_LABELS = dict(Notification.Kind.choices)
