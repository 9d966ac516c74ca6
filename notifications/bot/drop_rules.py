"""`/subscribe <keyword> [below <price> | drop <N>% | every]`: splitting off the drop rule."""

from decimal import Decimal, InvalidOperation

from django.utils.translation import gettext as _

from notifications.models import Subscription

RULE_WORDS = {"below": Subscription.DropRule.BELOW, "drop": Subscription.DropRule.PERCENT}
VALUE_MAX = Decimal("9999999999")


class RuleError(ValueError):
    """A drop rule the chat typed wrongly; the message is shown to it."""


def split_rule(args):
    """(keyword args, (rule, value) or None) for the arguments of /subscribe."""
    args = list(args)
    if args and args[-1].lower() == "every":
        return args[:-1], (Subscription.DropRule.EVERY, None)
    if len(args) >= 2 and args[-2].lower() in RULE_WORDS:
        rule = RULE_WORDS[args[-2].lower()]
        return args[:-2], (rule, _value(rule, args[-1]))
    return args, None


def _value(rule, raw):
    text = raw.strip().rstrip("%").replace("€", "").replace(",", ".").strip()
    if rule == Subscription.DropRule.PERCENT and not raw.strip().endswith("%"):
        raise RuleError(_("“%(value)s” is not a percentage: send e.g. /subscribe 12 drop 10%%.") % {"value": raw})
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise RuleError(
            _("“%(value)s” is not a number: send e.g. /subscribe 12 below 500 or /subscribe 12 drop 10%%.") % {"value": raw}
        ) from None
    if not value.is_finite() or value <= 0 or value > VALUE_MAX:
        raise RuleError(_("“%(value)s” must be a positive number.") % {"value": raw})
    if rule == Subscription.DropRule.PERCENT and value >= 100:
        raise RuleError(_("A drop of 100 % or more never happens: choose a smaller percentage."))
    return value.quantize(Decimal("0.01"))
