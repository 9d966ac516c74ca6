"""The /help text, also sent with the welcome message."""

from django.conf import settings
from django.utils.translation import gettext as _

from notifications.bot import admin_commands


def help_text(chat):
    """The /help text for `chat` (admins also see the admin commands)."""
    lines = [
        "<b>Lago commands</b>",
        "/keywords — the keywords you can follow, with buttons",
        "/subscribe &lt;id or name&gt; — follow a keyword",
        "/subscribe 12 below 500 — price drops only to € 500 or less",
        "/subscribe 12 drop 10% — only drops of 10 % or more (/subscribe 12 every: every drop)",
        "/unsubscribe &lt;id&gt; — stop following it",
        "/mute [duration] — pause messages (e.g. /mute 2h, /mute 1d; without a duration until /unmute)",
        "/unmute — messages on again (also for muted keywords)",
        _("/quiet 22-7 — quiet hours: messages wait until they end (/quiet 22-7 Europe/Berlin: another time zone; /quiet off)"),
        "/status — your subscriptions and recent messages",
        "/stop — stop all messages (/start resumes)",
    ]
    if settings.TELEGRAM_USERS_MAY_ADD_KEYWORDS:
        lines.append("/add &lt;search words&gt; — propose a keyword (an admin activates it)")
    if chat is not None and chat.is_admin:
        lines += ["", "<b>Admin</b>"] + [f"/{c.name} — {c.description}" for c in admin_commands.all_commands()]
    return "\n".join(lines)
