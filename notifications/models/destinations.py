"""Apprise destinations: admin-managed recipients that are not Telegram chats (e-mail, ntfy, …).

A destination is a TelegramChat row with channel "apprise" (this proxy names them): its
subscriptions, quiet hours, mute, language and status are the chat's, and every outbox row for
it goes through the same fan-out, claims, retries and dead state. Only the last step differs:
the sender hands its messages to notifications/apprise_channel.py instead of the Bot API.
"""

import logging
import uuid

from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.utils import timezone, translation
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from lib.log_filters import learn_secrets
from notifications import apprise_channel
from notifications.models.chats import TelegramChat, TelegramChatQuerySet

logger = logging.getLogger(__name__)


class DestinationQuerySet(TelegramChatQuerySet):
    def named(self, name):
        """The destination called `name`; Destination.DoesNotExist otherwise."""
        return self.get(title=name)


class DestinationManager(models.Manager.from_queryset(DestinationQuerySet)):
    def get_queryset(self):
        return super().get_queryset().filter(channel=TelegramChat.Channel.APPRISE)


class Destination(TelegramChat):
    objects = DestinationManager()

    class Meta:
        proxy = True
        verbose_name = _("destination")
        verbose_name_plural = _("destinations")

    def __str__(self):
        return self.title

    @property
    def name(self):
        return self.title

    @property
    def masked_url(self):
        return apprise_channel.mask(self.apprise_url)

    def clean(self):
        super().clean()
        self.channel = self.Channel.APPRISE
        if not self.title.strip():
            raise ValidationError({"title": gettext("A destination needs a name.")})
        # The form leaves `channel` out, so Django skips the constraint that says this.
        if Destination.objects.filter(title=self.title).exclude(pk=self.pk).exists():
            raise ValidationError({"title": gettext("A destination with this name exists.")})
        try:
            apprise_channel.parse(self.apprise_url)
        except ValueError as exc:
            raise ValidationError({"apprise_url": str(exc)}) from None
        # From here on this process's log lines and error reports leave the URL's secrets out.
        learn_secrets(apprise_channel.secrets(self.apprise_url))

    def save(self, *args, **kwargs):
        self.channel = self.Channel.APPRISE
        self.chat_id = None
        if self._state.adding and self.status == self.Status.PENDING:
            self.status = self.Status.ACTIVE  # an admin made it: nobody else approves it
        super().save(*args, **kwargs)

    def send_test(self):
        """Sends a test message now (not through the outbox: the operator waits for the answer).
        Raises apprise_channel.DeliveryError with the service's error."""
        with translation.override(self.language or None):
            title = gettext("Test message from Lago")
            body = gettext("This destination receives Lago's messages.")
        try:
            apprise_channel.send(self.apprise_url, title, body)
        except apprise_channel.DeliveryError as exc:
            self.note_failure(exc.reason)
            logger.warning("notifications: test message to %s failed: %s", self.log_name, exc)
            raise
        self.note_success()

    def note_success(self, now=None):
        self.last_success_at = now or timezone.now()
        TelegramChat.objects.filter(pk=self.pk).update(last_success_at=self.last_success_at)

    def note_failure(self, error, now=None):
        self.last_error_at, self.last_error = now or timezone.now(), error[:500]
        TelegramChat.objects.filter(pk=self.pk).update(
            last_error_at=self.last_error_at, last_error=self.last_error
        )

    def pause(self, reason, alert=True, alert_key=None):
        """No more messages until resumed: what is queued is cancelled (visible and retryable in
        the outbox). A destination that kept failing is paused with an admin alert."""
        from notifications.alerts import enqueue_admin_alert

        with transaction.atomic():
            cancelled = self.stop_sending(
                self.Status.PAUSED, reason, f"destination paused: {reason}"
            )
            if alert:
                text = PAUSED_ALERT % {"name": self.title, "reason": reason}
                key = alert_key or f"destination-paused:{self.pk}:{uuid.uuid4().hex}"
                enqueue_admin_alert(key, text)
        logger.warning(
            "notifications: %s paused (%s); %d queued notifications cancelled",
            self.log_name,
            reason,
            cancelled,
        )
        return cancelled

    def resume(self):
        updated = TelegramChat.objects.filter(pk=self.pk, status=self.Status.PAUSED).update(
            status=self.Status.ACTIVE, status_reason=""
        )
        self.status, self.status_reason = self.Status.ACTIVE, ""
        return bool(updated)


# Stored as the alert's text, as the other admin alerts are (English).
PAUSED_ALERT = (
    "⚠️ Destination %(name)s paused: %(reason)s. Fix its Apprise URL or the service, then resume "
    "it in the admin (Destinations)."
)
