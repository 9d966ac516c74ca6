"""Inline keyboards and their callback data.

Callback data (at most 64 bytes, Telegram's limit):
    sub:<keyword_id>      subscribe (from /keywords)
    unsub:<keyword_id>    unsubscribe (from /keywords)
    mutekw:<keyword_id>   "Mute this keyword" (on a notification)
    snooze:<seconds>      "Snooze 1 h" (on a notification)
    approve:<chat_id>     an admin approves a registration request
    rule:<keyword_id>:every | rule:<keyword_id>:p<N> | rule:<keyword_id>:b<euros>
                          the chat's drop rule for that keyword (on a price-drop message)
    rule:<keyword_id>:d<N>
                          only deals N % under the median (on new-ad and price-drop messages)
"""

import re
from dataclasses import dataclass
from decimal import ROUND_FLOOR, Decimal

from django.utils.translation import gettext as _
from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from lib.money import euro
from notifications.models.subscriptions import PRICE_MAX

SNOOZE_SECONDS = 3600
RULE_PREFIX = "rule:"
RULE_PERCENT = 10
# The judgement's default deal threshold (DEAL_PERCENT): "only deals" means what messages call one.
RULE_DEAL_PERCENT = 15
RULE_DATA = re.compile(
    r"rule:([0-9]{1,18}):(every|p([0-9]{1,2})|b([0-9]{1,10})|d([0-9]{1,2}))", re.ASCII
)
ACTIONS = {"sub", "unsub", "mutekw", "snooze", "approve"}


@dataclass(frozen=True)
class Action:
    name: str
    value: int


def parse(data: str | None) -> Action | None:
    """ "sub:12" → Action("sub", 12); None for anything we did not make."""
    name, _, value = (data or "").partition(":")
    if name not in ACTIONS or not (value.lstrip("-").isascii() and value.lstrip("-").isdigit()):
        return None
    return Action(name, int(value))


def parse_rule(data: str | None) -> tuple[int, str, Decimal | None] | None:
    """ "rule:12:p10" → (12, "percent", 10); "b500" → "below", "d15" → "deal", "every" → "every";
    None for anything else."""
    match = RULE_DATA.fullmatch(data or "")
    if match is None:
        return None
    keyword_id, spec, percent, below, deal = match.groups()
    if spec == "every":
        return int(keyword_id), "every", None
    if percent is not None:
        return int(keyword_id), "percent", Decimal(percent)
    if deal is not None:
        return int(keyword_id), "deal", Decimal(deal)
    return int(keyword_id), "below", Decimal(below)


def round_down(price: Decimal) -> int:
    """A target just under `price`, in two significant digits: 1234 → 1200, 187 → 180, 45.5 → 45."""
    whole = int(Decimal(price).to_integral_value(ROUND_FLOOR))
    step = 10 ** max(len(str(whole)) - 2, 0)
    return whole // step * step


def notification_keyboard(keyword_id: int | None, drop_price=None) -> InlineKeyboardMarkup:
    """The buttons under every ad notification; a price drop's also set the keyword's drop rule, and
    every ad of a keyword offers its deal-only rule."""
    row = []
    if keyword_id is not None:
        row.append(
            InlineKeyboardButton(
                "🔕 " + _("Mute this keyword"), callback_data=f"mutekw:{keyword_id}"
            )
        )
    row.append(
        InlineKeyboardButton("💤 " + _("Snooze 1 h"), callback_data=f"snooze:{SNOOZE_SECONDS}")
    )
    rows = [row]
    if keyword_id is not None and drop_price is not None:
        prefix = f"{RULE_PREFIX}{keyword_id}:"
        percent = _("Only −%(percent)d %% or more") % {"percent": RULE_PERCENT}
        rules = [InlineKeyboardButton(percent, callback_data=f"{prefix}p{RULE_PERCENT}")]
        target = round_down(drop_price)
        if 0 < target <= PRICE_MAX:
            rules.append(
                InlineKeyboardButton(
                    _("Only ≤ %(price)s") % {"price": euro(target)},
                    callback_data=f"{prefix}b{target}",
                )
            )
        rules.append(InlineKeyboardButton(_("Every drop"), callback_data=f"{prefix}every"))
        rows.append(rules)
    if keyword_id is not None:
        # A row of its own: four buttons in one row cut their labels short on a phone.
        deal = f"{RULE_PREFIX}{keyword_id}:d{RULE_DEAL_PERCENT}"
        rows.append([InlineKeyboardButton("💡 " + _("Only deals"), callback_data=deal)])
    return InlineKeyboardMarkup(rows)


def keywords_keyboard(keywords, subscribed_ids) -> InlineKeyboardMarkup | None:
    """One button per keyword: subscribe, or unsubscribe when already subscribed."""
    rows = []
    for keyword in keywords:
        name = keyword.display_name[:40]
        if keyword.pk in subscribed_ids:
            rows.append(
                [
                    InlineKeyboardButton(
                        "✅ " + _("%(name)s — unsubscribe") % {"name": name},
                        callback_data=f"unsub:{keyword.pk}",
                    )
                ]
            )
        else:
            rows.append(
                [
                    InlineKeyboardButton(
                        "➕ " + _("%(name)s — subscribe") % {"name": name},
                        callback_data=f"sub:{keyword.pk}",
                    )
                ]
            )
    return InlineKeyboardMarkup(rows) if rows else None


def approve_keyboard(chat_id: int) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton("✅ " + _("Approve"), callback_data=f"approve:{chat_id}")]]
    )
