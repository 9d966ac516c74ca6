"""Inline keyboards and their callback data.

Callback data (at most 64 bytes, Telegram's limit):
    sub:<keyword_id>      subscribe (from /keywords)
    unsub:<keyword_id>    unsubscribe (from /keywords)
    mutekw:<keyword_id>   "Mute this keyword" (on a notification)
    snooze:<seconds>      "Snooze 1 h" (on a notification)
    approve:<chat_id>     an admin approves a registration request
"""

from dataclasses import dataclass

from django.utils.translation import gettext as _
from telegram import InlineKeyboardButton, InlineKeyboardMarkup

SNOOZE_SECONDS = 3600
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


def notification_keyboard(keyword_id: int | None) -> InlineKeyboardMarkup:
    """The buttons under every ad notification."""
    row = []
    if keyword_id is not None:
        row.append(InlineKeyboardButton("🔕 " + _("Mute this keyword"), callback_data=f"mutekw:{keyword_id}"))
    row.append(InlineKeyboardButton("💤 " + _("Snooze 1 h"), callback_data=f"snooze:{SNOOZE_SECONDS}"))
    return InlineKeyboardMarkup([row])


def keywords_keyboard(keywords, subscribed_ids) -> InlineKeyboardMarkup | None:
    """One button per keyword: subscribe, or unsubscribe when already subscribed."""
    rows = []
    for keyword in keywords:
        name = keyword.display_name[:40]
        if keyword.pk in subscribed_ids:
            rows.append([InlineKeyboardButton("✅ " + _("%(name)s — unsubscribe") % {"name": name}, callback_data=f"unsub:{keyword.pk}")])
        else:
            rows.append([InlineKeyboardButton("➕ " + _("%(name)s — subscribe") % {"name": name}, callback_data=f"sub:{keyword.pk}")])
    return InlineKeyboardMarkup(rows) if rows else None


def approve_keyboard(chat_id: int) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton("✅ " + _("Approve"), callback_data=f"approve:{chat_id}")]])
