"""Drop rules from the chat: `/subscribe <keyword> [below <price> | drop <N>% | every]` and the buttons on drop messages."""

import logging
from decimal import Decimal, InvalidOperation

from django.utils.translation import gettext as _

from notifications.bot import keyboards
from notifications.bot.replies import CallbackReply
from notifications.models import Subscription

logger = logging.getLogger(__name__)

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
        raise RuleError(
            _("“%(value)s” is not a percentage: send e.g. /subscribe 12 drop 10%%.")
            % {"value": raw}
        )
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise RuleError(
            _(
                "“%(value)s” is not a number: send e.g. /subscribe 12 below 500 or /subscribe 12 drop 10%%."
            )
            % {"value": raw}
        ) from None
    if not value.is_finite() or value <= 0 or value > VALUE_MAX:
        raise RuleError(_("“%(value)s” must be a positive number.") % {"value": raw})
    if rule == Subscription.DropRule.PERCENT and value >= 100:
        raise RuleError(_("A drop of 100 % or more never happens: choose a smaller percentage."))
    return value.quantize(Decimal("0.01"))


def apply_rule(subscription, rule):
    """Stores `rule` ((rule, value), as split_rule and the buttons give it) on the subscription."""
    subscription.drop_rule, subscription.drop_value = rule
    subscription.save(update_fields=["drop_rule", "drop_value"])


def press(chat, data) -> CallbackReply:
    """A drop-rule button ("rule:<keyword>:<spec>") pressed in `chat` (the access gate has run).

    Hostile data is answered and changes nothing: malformed data, values out of range, or
    a keyword the chat does not follow (whose name is not revealed).
    """
    parsed = keyboards.parse_rule(data)
    if parsed is None or not _in_range(parsed[1], parsed[2]):
        logger.warning(
            "bot: chat %s sent an invalid drop-rule button %r", chat.chat_id, (data or "")[:80]
        )
        return CallbackReply(_("This button is no longer valid. Try /help."), alert=True)
    keyword_id, rule, value = parsed
    subscription = (
        chat.subscriptions.select_related("keyword").filter(keyword_id=keyword_id).first()
    )
    if subscription is None:
        return CallbackReply(
            _(
                "You do not follow this keyword (any more): nothing changed. /status lists what you follow."
            ),
            alert=True,
        )
    apply_rule(subscription, (rule, value))
    return CallbackReply(
        _("✅ %(keyword)s: price drops: %(rule)s.")
        % {"keyword": subscription.keyword.display_name, "rule": subscription.describe_rule()}
    )


def _in_range(rule, value):
    if rule == Subscription.DropRule.PERCENT:
        return 0 < value < 100
    if rule == Subscription.DropRule.BELOW:
        return 0 < value <= VALUE_MAX
    return True
