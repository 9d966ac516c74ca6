"""Which keywords a chat follows, each with its own mute."""

from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from lib.money import format_price
from notifications.models.chats import TelegramChat


class Subscription(models.Model):
    class DropRule(models.TextChoices):
        EVERY = "every", _("every drop")
        PERCENT = "percent", _("drops of at least N %")
        BELOW = "below", _("only at or below a target price")

    # No index of its own: subscription_unique (chat, keyword) serves lookups by chat.
    chat = models.ForeignKey(
        TelegramChat,
        verbose_name=_("chat"),
        on_delete=models.CASCADE,
        related_name="subscriptions",
        db_index=False,
    )
    keyword = models.ForeignKey(
        "tracker.Keyword",
        verbose_name=_("keyword"),
        on_delete=models.CASCADE,
        related_name="subscriptions",
    )
    # "Mute this keyword" from a notification's button.
    muted_until = models.DateTimeField(_("muted until"), null=True, blank=True)
    # Which price drops this chat hears of (`/subscribe 12 drop 10%`, `/subscribe 12 below 500`).
    drop_rule = models.CharField(
        _("price drops"), max_length=16, choices=DropRule.choices, default=DropRule.EVERY
    )
    drop_value = models.DecimalField(
        _("drop value"),
        max_digits=12,
        decimal_places=2,
        null=True,
        blank=True,
        help_text=_("The percentage or the target price of the drop rule."),
    )
    created_at = models.DateTimeField(_("created"), default=timezone.now)

    class Meta:
        ordering = ["id"]
        verbose_name = _("subscription")
        verbose_name_plural = _("subscriptions")
        constraints = [
            models.UniqueConstraint(fields=["chat", "keyword"], name="subscription_unique"),
            models.CheckConstraint(
                condition=Q(drop_rule="every") | Q(drop_value__gt=0),
                name="subscription_drop_rule_has_value",
            ),
        ]
        indexes = [
            # The sender asks "is this row's keyword muted in its chat?" once per due row;
            # this index holds only the few muted subscriptions, so each answer is one look.
            models.Index(
                fields=["chat", "keyword"],
                condition=Q(muted_until__isnull=False),
                name="subscription_muted_idx",
            ),
        ]

    def __str__(self):
        return f"{self.chat} ← {self.keyword}"

    @staticmethod
    def rule_accepts(rule, value, price, old_price):
        """Does a drop from `old_price` to `price` pass the rule (`rule`, `value`)?"""
        if rule == Subscription.DropRule.PERCENT:
            return old_price > 0 and (old_price - price) * 100 >= value * old_price
        if rule == Subscription.DropRule.BELOW:
            return price <= value
        return True

    def accepts_drop(self, price, old_price):
        return self.rule_accepts(self.drop_rule, self.drop_value, price, old_price)

    def describe_rule(self):
        if self.drop_rule == self.DropRule.PERCENT:
            return gettext("drops of at least %(value)s %%") % {
                "value": f"{self.drop_value.normalize():f}"
            }
        if self.drop_rule == self.DropRule.BELOW:
            return gettext("drops to %(price)s or less") % {"price": format_price(self.drop_value)}
        return gettext("every drop")
