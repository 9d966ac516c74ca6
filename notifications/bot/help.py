"""The /help text, also sent with the welcome message."""

from django.conf import settings
from django.utils.translation import gettext as _

from notifications.bot import admin_commands


def help_text(chat):
    """The /help text for `chat` (admins also see the admin commands)."""
    lines = [
        "<b>" + _("Lago commands") + "</b>",
        "/keywords — " + _("the keywords you can follow, with buttons"),
        "/subscribe &lt;" + _("id or name") + "&gt; — " + _("follow a keyword"),
        "/subscribe 12 below 500 — " + _("price drops only to € 500 or less"),
        "/subscribe 12 drop 10% — "
        + _("only drops of 10 % or more (/subscribe 12 every: every drop)"),
        "/subscribe 12 deal 20% — "
        + _("only ads and drops at least 20 % under the median of comparable ads"),
        "/unsubscribe &lt;id&gt; — " + _("stop following it"),
        "/price 12 450 — " + _("how € 450 compares with the ads of keyword 12 you follow"),
        "/mute ["
        + _("duration")
        + "] — "
        + _("pause messages (e.g. /mute 2h, /mute 1d; without a duration until /unmute)"),
        "/unmute — " + _("messages on again (also for muted keywords)"),
        "/quiet 22-7 — "
        + _(
            "quiet hours: messages wait until they end (/quiet 22-7 Europe/Berlin: another time "
            "zone; /quiet off)"
        ),
        "/report on|off — "
        + _(
            "the weekly market report with a chart (/report 12 off: one keyword; /report "
            "monday 8: day and hour)"
        ),
        "/status — " + _("your subscriptions and recent messages"),
        "/stop — " + _("stop all messages (/start resumes)"),
    ]
    if settings.TELEGRAM_USERS_MAY_ADD_KEYWORDS:
        lines.append(
            "/add &lt;"
            + _("search words")
            + "&gt; — "
            + _("propose a keyword (an admin activates it)")
        )
    if chat is not None and chat.is_admin:
        lines += ["", "<b>" + _("Admin") + "</b>"] + [
            f"/{c.name} — {_(c.description)}" for c in admin_commands.all_commands()
        ]
    return "\n".join(lines)
