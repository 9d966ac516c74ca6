"""Telegram chats, their subscriptions, and the notification outbox."""

from decimal import Decimal

from django.db import models
from django.db.models import F, Q, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

# Stands in for a NULL ("price on request") price in the outbox's unique key:
# NULLs never collide in a unique index, so without it duplicates slip through.
NO_PRICE_KEY = Decimal("-1")


class TelegramChatQuerySet(models.QuerySet):
    def active(self):
        return self.filter(status=TelegramChat.Status.ACTIVE)

    def admins(self):
        return self.active().filter(is_admin=True)


class TelegramChat(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "pending approval"
        ACTIVE = "active"
        BLOCKED = "blocked"
        STOPPED = "stopped"

    chat_id = models.BigIntegerField(unique=True)
    title = models.CharField(max_length=200, blank=True, default="")
    username = models.CharField(max_length=100, blank=True, default="")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    status_reason = models.CharField(max_length=200, blank=True, default="")
    is_admin = models.BooleanField(default=False)
    muted_until = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    objects = TelegramChatQuerySet.as_manager()

    class Meta:
        ordering = ["id"]

    def __str__(self):
        return self.title or self.username or str(self.chat_id)

    def is_muted(self, now=None):
        return self.muted_until is not None and self.muted_until > (now or timezone.now())


class Subscription(models.Model):
    chat = models.ForeignKey(TelegramChat, on_delete=models.CASCADE, related_name="subscriptions")
    keyword = models.ForeignKey("tracker.Keyword", on_delete=models.CASCADE, related_name="subscriptions")
    # "Mute this keyword" from a notification's button.
    muted_until = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["chat", "keyword"], name="subscription_unique"),
        ]

    def __str__(self):
        return f"{self.chat} ← {self.keyword}"


class NotificationQuerySet(models.QuerySet):
    def pending(self):
        return self.filter(status=Notification.Status.PENDING)

    def due(self, now=None):
        """Pending rows whose next attempt has come."""
        return self.pending().filter(next_attempt_at__lte=now or timezone.now())


class Notification(models.Model):
    """The outbox. Rows are written in the transaction that stores the ad."""

    class Kind(models.TextChoices):
        NEW = "new"
        PRICE_DROP = "price_drop", "price drop"
        ALERT = "alert", "admin alert"

    class Status(models.TextChoices):
        PENDING = "pending"
        SENT = "sent"
        DEAD = "dead"
        CANCELLED = "cancelled"

    chat = models.ForeignKey(TelegramChat, on_delete=models.CASCADE, related_name="notifications")
    ad = models.ForeignKey("tracker.Ad", null=True, blank=True, on_delete=models.CASCADE, related_name="notifications")
    keyword = models.ForeignKey(
        "tracker.Keyword", null=True, blank=True, on_delete=models.SET_NULL, related_name="notifications"
    )
    kind = models.CharField(max_length=16, choices=Kind.choices)
    # The ad's price when the row was written (NULL: price on request).
    price = models.DecimalField(max_digits=12, decimal_places=2, null=True, blank=True)
    old_price = models.DecimalField(max_digits=12, decimal_places=2, null=True, blank=True)
    # For admin alerts: the message and a key that makes each alert unique.
    text = models.TextField(blank=True, default="")
    alert_key = models.CharField(max_length=200, blank=True, default="")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(default=timezone.now)
    last_error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    sent_at = models.DateTimeField(null=True, blank=True)

    objects = NotificationQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
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
        ]
        indexes = [
            # Notification.objects.due(): the sender's claim query.
            models.Index(fields=["status", "next_attempt_at"], name="notification_due_idx"),
            # A chat's queue (mute handling, /status, digests).
            models.Index(fields=["chat", "status"], name="notification_chat_idx"),
        ]

    def __str__(self):
        return f"{self.get_kind_display()} → {self.chat} ({self.status})"
