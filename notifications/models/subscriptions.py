"""Which keywords a chat follows, each with its own mute."""

from django.db import models
from django.utils import timezone

from notifications.models.chats import TelegramChat


class Subscription(models.Model):
    # No index of its own: subscription_unique (chat, keyword) serves lookups by chat.
    chat = models.ForeignKey(TelegramChat, on_delete=models.CASCADE, related_name="subscriptions", db_index=False)
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
