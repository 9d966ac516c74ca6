"""Which keywords a chat follows, each with its own mute and drop rule."""

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from lib.money import euro, format_price
from notifications.models.chats import TelegramChat
from tracker.price_judgement import PriceLabel

# A percentage (of a drop, or of a deal under the median) is kept to one decimal (12.5 %); 1-99
# because a smaller one hears of every cent and 100 % never happens. A target price is kept in
# cents, at most 100 million euros.
PERCENT_STEP = Decimal("0.1")
PERCENT_MIN = Decimal("1")
PERCENT_MAX = Decimal("99")
PRICE_STEP = Decimal("0.01")
PRICE_MIN = Decimal("0.01")
PRICE_MAX = Decimal("100000000")


class Subscription(models.Model):
    class DropRule(models.TextChoices):
        EVERY = "every", _("every drop")
        PERCENT = "percent", _("drops of at least N %")
        BELOW = "below", _("only at or below a target price")
        # Filters new ads too: a chat with it hears only of ads judged deals.
        DEAL = "deal", _("only deals of at least N %")

    PERCENT_STEP, PERCENT_MIN, PERCENT_MAX = PERCENT_STEP, PERCENT_MIN, PERCENT_MAX
    PRICE_STEP, PRICE_MIN, PRICE_MAX = PRICE_STEP, PRICE_MIN, PRICE_MAX

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
    # Which price drops this chat hears of (`/subscribe 12 drop 10%`, `/subscribe 12 below 500`);
    # `/subscribe 12 deal 20%` also narrows the new ads to deals.
    drop_rule = models.CharField(
        _("price drops"), max_length=16, choices=DropRule.choices, default=DropRule.EVERY
    )
    drop_value = models.DecimalField(
        _("drop value"),
        max_digits=12,
        decimal_places=2,
        null=True,
        blank=True,
        help_text=_(
            "The percentage or the target price of the drop rule (for deals: the percentage under "
            "the median)."
        ),
    )
    # The weekly market report of the keyword (/report on|off).
    report_enabled = models.BooleanField(_("weekly report"), default=True)
    created_at = models.DateTimeField(_("created"), default=timezone.now)

    class Meta:
        ordering = ["id"]
        verbose_name = _("subscription")
        verbose_name_plural = _("subscriptions")
        constraints = [
            models.UniqueConstraint(fields=["chat", "keyword"], name="subscription_unique"),
            # What clean_rule lets through (whatever the step): no row the bot or admin refuses.
            models.CheckConstraint(
                condition=Q(drop_rule="every")
                | Q(drop_rule="percent", drop_value__gte=PERCENT_MIN, drop_value__lte=PERCENT_MAX)
                | Q(drop_rule="below", drop_value__gte=PRICE_MIN, drop_value__lte=PRICE_MAX)
                # NULL compares as unknown, which a CHECK lets pass: a deal needs its value.
                | Q(
                    drop_rule="deal",
                    drop_value__isnull=False,
                    drop_value__gte=PERCENT_MIN,
                    drop_value__lte=PERCENT_MAX,
                ),
                name="subscription_drop_value_in_range",
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

    @classmethod
    def clean_rule(cls, rule, value):
        """The value as stored (rounded to the rule's step), or a ValidationError naming the range.

        The one check of a drop rule: the bot, its buttons and the admin form all come here.
        """
        if rule == cls.DropRule.EVERY:
            return None
        if rule not in cls.DropRule.values:
            raise ValidationError(gettext("Unknown drop rule."), code="rule")
        if rule == cls.DropRule.BELOW:
            low, high, step = cls.PRICE_MIN, cls.PRICE_MAX, cls.PRICE_STEP
            error = ValidationError(
                gettext("A target price must be between %(min)s and %(max)s.")
                % {"min": euro(low), "max": euro(high)},
                code="price_range",
            )
        else:  # a percentage: of the drop, or under the median
            low, high, step = cls.PERCENT_MIN, cls.PERCENT_MAX, cls.PERCENT_STEP
            if rule == cls.DropRule.PERCENT:
                message, code = (
                    gettext(
                        "A price drop percentage must be between %(min)s and %(max)s %% (e.g. 10 "
                        "or 12.5)."
                    ),
                    "percent_range",
                )
            else:
                message, code = (
                    gettext(
                        "A deal must be between %(min)s and %(max)s %% under the median (e.g. 20 "
                        "or 12.5)."
                    ),
                    "deal_range",
                )
            error = ValidationError(message % {"min": low, "max": high}, code=code)
        try:
            value = Decimal(value)
            # quantize() fails on a huge exponent: such a value is out of range anyway.
            if not value.is_finite() or abs(value) > high * 2:
                raise error
            value = value.quantize(step, ROUND_HALF_UP)
        except (InvalidOperation, TypeError, ValueError):
            raise error from None
        if not low <= value <= high:
            raise error
        return value

    def clean(self):
        """Rounds the drop value as clean_rule does; the admin's forms come here."""
        super().clean()
        try:
            self.drop_value = self.clean_rule(self.drop_rule, self.drop_value)
        except ValidationError as exc:
            raise ValidationError({"drop_value": exc.messages}) from None

    def set_rule(self, rule, value):
        """Stores a drop rule (validated by clean_rule first: nothing is written when it fails)."""
        self.drop_value = self.clean_rule(rule, value)
        self.drop_rule = rule
        self.save(update_fields=["drop_rule", "drop_value"])

    @staticmethod
    def wants(rule, value, kind, price, old_price, judgement=None):
        """Does a chat with the rule (`rule`, `value`) want an event of `kind` ("new" or
        "price_drop") at `price`, judged `judgement` (a tracker.price_judgement.Judgement)?

        A deal rule takes new ads and drops alike, and only when the judgement calls the price a
        deal at least `value` % under the median: a suspicious price, too few comparables or no
        judgement at all is not a deal.
        """
        if rule == Subscription.DropRule.DEAL:
            return (
                judgement is not None
                and judgement.label == PriceLabel.DEAL
                and judgement.percent is not None
                and judgement.percent <= -value
            )
        if kind != "price_drop":
            return True
        return Subscription.rule_accepts(rule, value, price, old_price)

    @staticmethod
    def rule_accepts(rule, value, price, old_price):
        """Does a drop from `old_price` to `price` pass the rule (`rule`, `value`)?"""
        if rule == Subscription.DropRule.DEAL:
            return False  # only wants() sees the judgement a deal needs
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
        if self.drop_rule == self.DropRule.DEAL:
            return gettext("only deals at least %(value)s %% under the median") % {
                "value": f"{self.drop_value.normalize():f}"
            }
        return gettext("every drop")
