"""Drop rules from the chat: `/subscribe <keyword> [below <price> | drop <N>% | deal <N>% | every]`
and the buttons on ad messages."""

import logging
from decimal import Decimal, InvalidOperation

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from notifications.bot import keyboards
from notifications.bot.replies import CallbackReply
from notifications.models import Subscription

logger = logging.getLogger(__name__)

RULE_WORDS = {
    "below": Subscription.DropRule.BELOW,
    "drop": Subscription.DropRule.PERCENT,
    "deal": Subscription.DropRule.DEAL,
}


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
        if rule == Subscription.DropRule.DEAL:
            raise RuleError(
                _("“%(value)s” is not a percentage: send e.g. /subscribe 12 deal 20%%.")
                % {"value": raw}
            ) from None
        raise RuleError(
            _(
                "“%(value)s” is not a number: send e.g. /subscribe 12 below 500 or /subscribe 12 "
                "drop 10%%."
            )
            % {"value": raw}
        ) from None
    try:
        return Subscription.clean_rule(rule, value)
    except ValidationError as exc:
        raise RuleError(" ".join(exc.messages)) from None


def apply_rule(subscription, rule):
    """Stores `rule` ((rule, value), as split_rule and the buttons give it) on the subscription."""
    subscription.set_rule(*rule)


def press(chat, data) -> CallbackReply:
    """A drop-rule button ("rule:<keyword>:<spec>") pressed in `chat` (the access gate has run).

    Hostile data is answered and changes nothing: malformed data, values out of range, or
    a keyword the chat does not follow (whose name is not revealed).
    """
    parsed = keyboards.parse_rule(data)
    if parsed is None or not _valid(parsed[1], parsed[2]):
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
                "You do not follow this keyword (any more): nothing changed. /status lists what "
                "you follow."
            ),
            alert=True,
        )
    apply_rule(subscription, (rule, value))
    values = {"keyword": subscription.keyword.display_name, "rule": subscription.describe_rule()}
    if rule == Subscription.DropRule.DEAL:
        return CallbackReply(_("✅ %(keyword)s: %(rule)s (new ads and price drops).") % values)
    return CallbackReply(_("✅ %(keyword)s: price drops: %(rule)s.") % values)


def _valid(rule, value):
    try:
        return Subscription.clean_rule(rule, value) == value
    except ValidationError:
        return False
