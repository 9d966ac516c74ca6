"""Telegram chats: who may receive messages, their mute state, group → supergroup migration."""

import logging
import uuid
from datetime import UTC, datetime

from django.conf import settings
from django.db import IntegrityError, models, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import get_supported_language_variant, gettext_noop
from django.utils.translation import gettext_lazy as _

from notifications.models.quiet_hours import QuietHours
from notifications.models.report_schedule import ReportSchedule

logger = logging.getLogger(__name__)

# "Until /unmute": a date no mute check ever passes.
MUTED_FOREVER = datetime(2999, 12, 31, tzinfo=UTC)
# Stored in English on the row; rendered in the chat's language when sent (messages.render).
WELCOME_TEXT = gettext_noop(
    "✅ An admin approved this chat: Lago is ready. Send /keywords to choose what to follow, /help "
    "for all commands."
)


def chat_language(language_code=None):
    """A chat's language, one of LANGUAGES, from Telegram's `language_code`: English for en*,
    German for de*, otherwise (or without one) LANGUAGE_CODE's ("de-at" → "de")."""
    code = (language_code or "").lower()
    for language in (code, settings.LANGUAGE_CODE):
        try:
            return get_supported_language_variant(language)
        except LookupError:
            continue
    return settings.LANGUAGES[0][0]


class TelegramChatQuerySet(models.QuerySet):
    def active(self):
        return self.filter(status=TelegramChat.Status.ACTIVE)

    def admins(self):
        return self.active().filter(is_admin=True)

    def quiet_until(self, now):
        """{chat pk: end of its quiet window (UTC)} for the active chats inside their quiet hours at
        `now`."""
        chats = (
            self.active()
            .filter(quiet_start__isnull=False)
            .only("pk", "quiet_start", "quiet_end", "time_zone")
        )
        ends = ((chat.pk, chat.quiet_ends_at(now)) for chat in chats)
        return {pk: end for pk, end in ends if end is not None}

    def reports_due(self, now):
        """Active chats whose weekly report moment has come (chat_report_due_idx)."""
        return self.active().filter(report_next_at__lte=now)

    def register(self, chat_id, title="", username="", language_code=None):
        """/start from `chat_id`: returns (chat, outcome).

        outcome: "welcome" (active now), "already" (was active), "resumed" (was stopped),
        "pending" (now waits for approval: tell the admins), "waiting" (already waited).
        Allowed and admin chats (settings) are active at once; with open registration every
        chat is, except a blocked one: a blocked chat always needs an admin again.
        """
        admin = chat_id in settings.TELEGRAM_ADMIN_CHAT_IDS
        trusted = admin or chat_id in settings.TELEGRAM_ALLOWED_CHAT_IDS
        with transaction.atomic():
            chat, created = self._get_or_create_locked(chat_id)
            before = chat.status
            if before == TelegramChat.Status.ACTIVE:
                outcome = "already"
            elif before == TelegramChat.Status.STOPPED:
                outcome = "resumed"
            elif trusted or (
                settings.TELEGRAM_OPEN_REGISTRATION and before != TelegramChat.Status.BLOCKED
            ):
                outcome = "welcome"
            elif before == TelegramChat.Status.PENDING and not created:
                outcome = "waiting"
            else:
                outcome = "pending"
            chat.status = (
                TelegramChat.Status.PENDING
                if outcome in ("pending", "waiting")
                else TelegramChat.Status.ACTIVE
            )
            if chat.status != before:
                chat.status_reason = ""
            chat.is_admin = chat.is_admin or admin
            chat.title = (title or chat.title)[:200]
            chat.username = (username or chat.username)[:100]
            if language_code:
                chat.language = chat_language(language_code)
            chat.save()
        logger.info(
            "bot: /start from chat %s: %s (was %s)", chat_id, outcome, "new" if created else before
        )
        return chat, outcome

    def _get_or_create_locked(self, chat_id):
        try:
            with transaction.atomic():
                return self.select_for_update().get_or_create(chat_id=chat_id)
        except IntegrityError:  # created concurrently: it exists now
            return self.select_for_update().get(chat_id=chat_id), False

    def seed_admins(self, chat_ids):
        """TELEGRAM_ADMIN_CHAT_IDS at runbot start-up: these chats are active admins."""
        for chat_id in chat_ids:
            chat, _ = self.get_or_create(chat_id=chat_id)
            if not chat.is_admin or chat.status != TelegramChat.Status.ACTIVE:
                chat.is_admin, chat.status, chat.status_reason = (
                    True,
                    TelegramChat.Status.ACTIVE,
                    "",
                )
                chat.save(update_fields=["is_admin", "status", "status_reason"])
                logger.info("bot: chat %s seeded as admin", chat_id)

    def migrate(self, old_chat_id, new_chat_id):
        """A group became a supergroup: its row (and subscriptions) continue under the new id.

        The one way a chat changes its id: the bot's migration update and the sender's
        "group chat was upgraded" answer (TelegramChat.migrate_to) both end here.
        Telegram sends both halves (migrate_to in the old group, migrate_from in the new
        one); the second finds nothing to do. A row already made for the new id (a /start
        that raced the migration) gives way to the old one when it has no subscriptions.
        Returns the migrated chat, or None when no row changed its id.
        """
        with transaction.atomic():
            old = self.filter(chat_id=old_chat_id).first()
            if old is None:
                return None
            clash = self.filter(chat_id=new_chat_id).first()
            if clash is not None:
                if clash.subscriptions.exists():
                    logger.warning(
                        "bot: chat %s migrated to %s, which already has subscriptions; keeping "
                        "both",
                        old_chat_id,
                        new_chat_id,
                    )
                    return None
                clash.delete()
            try:
                with transaction.atomic():
                    self.filter(pk=old.pk).update(chat_id=new_chat_id)
            except IntegrityError:  # a row for the new id was created concurrently
                logger.warning(
                    "notifications: chat %s migrated to %s, which was created meanwhile; keeping "
                    "both",
                    old_chat_id,
                    new_chat_id,
                )
                return None
            old.chat_id = new_chat_id
        logger.info("notifications: chat %s migrated to %s", old_chat_id, new_chat_id)
        return old


class TelegramChat(ReportSchedule, QuietHours):
    """A recipient of the outbox: a Telegram chat, or an Apprise destination (channel "apprise",
    notifications/models/destinations.py), which shares its subscriptions, quiet hours, mute,
    language, status and every outbox row's path through claims, retries and pace."""

    class Status(models.TextChoices):
        PENDING = "pending", _("pending approval")
        ACTIVE = "active", _("active")
        BLOCKED = "blocked", _("blocked")
        STOPPED = "stopped", _("stopped")
        # A destination an operator paused, or that kept failing (Destination.pause).
        PAUSED = "paused", _("paused")

    class Channel(models.TextChoices):
        TELEGRAM = "telegram", _("Telegram")
        APPRISE = "apprise", _("Apprise")

    channel = models.CharField(
        _("channel"), max_length=16, choices=Channel.choices, default=Channel.TELEGRAM
    )
    # NULL for a destination: NULLs never collide in the unique index.
    chat_id = models.BigIntegerField(_("chat id"), unique=True, null=True, blank=True)
    title = models.CharField(_("title"), max_length=200, blank=True, default="")
    username = models.CharField(_("username"), max_length=100, blank=True, default="")
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.PENDING
    )
    status_reason = models.CharField(_("status reason"), max_length=200, blank=True, default="")
    is_admin = models.BooleanField(_("admin"), default=False)
    muted_until = models.DateTimeField(_("muted until"), null=True, blank=True)
    # The language of the bot's replies and messages: follows Telegram's language_code
    # (chat_language).
    language = models.CharField(
        _("language"), max_length=16, choices=settings.LANGUAGES, default=chat_language
    )
    created_at = models.DateTimeField(_("created"), default=timezone.now)
    # A destination's Apprise URL: a secret, shown only masked (apprise_channel.mask).
    apprise_url = models.TextField(_("Apprise URL"), blank=True, default="")
    # A destination's last delivery and last failure (its health on /stats and the dashboard).
    last_success_at = models.DateTimeField(_("last success"), null=True, blank=True)
    last_error_at = models.DateTimeField(_("last error at"), null=True, blank=True)
    last_error = models.CharField(_("last error"), max_length=500, blank=True, default="")

    objects = TelegramChatQuerySet.as_manager()

    class Meta(QuietHours.Meta):
        ordering = ["id"]
        indexes = ReportSchedule.INDEXES
        verbose_name = _("Telegram chat")
        verbose_name_plural = _("Telegram chats")
        constraints = [
            *QuietHours.Meta.constraints,
            *ReportSchedule.CONSTRAINTS,
            # A Telegram chat has its id; a destination has a URL and a name of its own.
            models.CheckConstraint(
                condition=Q(channel="telegram", chat_id__isnull=False)
                | Q(channel="apprise", chat_id__isnull=True) & ~Q(apprise_url="") & ~Q(title=""),
                name="chat_channel_complete",
            ),
            models.UniqueConstraint(
                fields=["title"], condition=Q(channel="apprise"), name="destination_name_unique"
            ),
        ]

    @property
    def log_name(self):
        """How log lines name the recipient: the chat id, or the destination's name (never its
        URL)."""
        if self.channel == self.Channel.APPRISE:
            return f"destination {self.title!r}"
        return str(self.chat_id)

    def __str__(self):
        return self.title or self.username or str(self.chat_id)

    def is_muted(self, now=None):
        return self.muted_until is not None and self.muted_until > (now or timezone.now())

    def block(self, reason):
        """Telegram refuses this chat for good: stop sending and cancel what is queued."""
        cancelled = self.stop_sending(self.Status.BLOCKED, reason, f"chat blocked: {reason}")
        logger.warning(
            "notifications: chat %s blocked (%s); %d queued notifications cancelled",
            self.chat_id,
            reason,
            cancelled,
        )
        return cancelled

    def stop_sending(self, status, reason, cancelled_because):
        """Sets `status` (with `reason`) and cancels what is queued, visible and retryable in the
        outbox with `cancelled_because` as its error; returns how many rows were cancelled."""
        from notifications.models.outbox import Notification

        self.status, self.status_reason = status, reason[:200]
        TelegramChat.objects.filter(pk=self.pk).update(
            status=self.status, status_reason=self.status_reason
        )
        return self.notifications.pending().update(
            status=Notification.Status.CANCELLED, last_error=cancelled_because
        )

    def approve(self):
        """Admin decision (admin action or the bot's button): the chat may use Lago.

        Queues a welcome message through the outbox. False if the chat was already active.
        """
        from notifications.models.outbox import Notification

        with transaction.atomic():
            updated = (
                TelegramChat.objects.filter(pk=self.pk)
                .exclude(status=self.Status.ACTIVE)
                .update(status=self.Status.ACTIVE, status_reason="")
            )
            self.status, self.status_reason = self.Status.ACTIVE, ""
            if not updated:
                return False
            Notification.objects.create(
                chat=self,
                kind=Notification.Kind.WELCOME,
                alert_key=f"welcome:{uuid.uuid4().hex}",
                text=WELCOME_TEXT,
            )
        logger.info("notifications: chat %s approved", self.chat_id)
        return True

    def stop(self):
        """/stop: no more messages until /start; what is queued is cancelled."""
        return self.stop_sending(self.Status.STOPPED, "stopped by the chat (/stop)", "chat stopped")

    def mute(self, until=MUTED_FOREVER):
        """/mute and "Snooze": nothing is sent before `until`; queued rows wait (are not lost)."""
        self.muted_until = until
        self.save(update_fields=["muted_until"])

    def follow_language(self, language_code):
        """A message from the chat carried Telegram's `language_code`: replies follow it."""
        language = chat_language(language_code) if language_code else self.language
        if language != self.language:
            self.language = language
            self.save(update_fields=["language"])
        return self.language

    def unmute(self):
        """/unmute: clears the chat's mute and every muted keyword."""
        self.muted_until = None
        self.save(update_fields=["muted_until"])
        return self.subscriptions.filter(muted_until__isnull=False).update(muted_until=None)

    def subscribe(self, keyword):
        """Returns True if a subscription was created, False if it existed."""
        _, created = self.subscriptions.get_or_create(keyword=keyword)
        return created

    def unsubscribe(self, keyword):
        deleted, _ = self.subscriptions.filter(keyword=keyword).delete()
        return bool(deleted)

    def mute_keyword(self, keyword_id, until=MUTED_FOREVER):
        """The "Mute this keyword" button: returns False when the chat does not follow it."""
        return bool(self.subscriptions.filter(keyword_id=keyword_id).update(muted_until=until))

    def migrate_to(self, new_chat_id):
        """The group became a supergroup with a new id (Telegram's ChatMigrated).

        Goes through TelegramChatQuerySet.migrate, which handles a row that already holds
        the new id; returns True if this chat now has the new id.
        """
        migrated = TelegramChat.objects.migrate(self.chat_id, new_chat_id)
        if migrated is None:
            return False
        self.chat_id = new_chat_id
        return True
