"""The bot's single gate (who may run what) and registration: /start and an admin's approval.

No Telegram I/O here: handlers.py runs these in a thread and sends the result.
"""

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from notifications.bot import admin_commands, keyboards
from notifications.bot.help import help_text
from notifications.bot.replies import CallbackReply, ChatRef, Reply, chat_of
from notifications.messages import esc
from notifications.models import TelegramChat

PENDING_TEXT = gettext_noop(
    "⏳ Your request to use Lago is waiting for an admin's approval. You will get a message here "
    "once it is approved."
)
UNKNOWN_TEXT = gettext_noop(
    "👋 This is Lago, the willhaben.at watcher. Send /start to ask for access."
)
STOPPED_TEXT = gettext_noop("⏹ You stopped Lago's messages. Send /start to resume.")


# --- the gate ------------------------------------------------------------------------


def access(ref: ChatRef, command: str | None) -> Reply | None:
    """None when the chat may run `command` (None: a button or plain text); else the only reply it
    gets.

    Pending, blocked, stopped and unknown chats get the registration reply whatever they send
    (/start is routed to start() before this gate). Admin commands need an admin chat.
    """
    chat = chat_of(ref)
    if chat is None:
        return Reply(_(UNKNOWN_TEXT))
    if chat.status == TelegramChat.Status.PENDING:
        return Reply(_(PENDING_TEXT))
    if chat.status == TelegramChat.Status.STOPPED:
        return Reply(_(STOPPED_TEXT))
    if chat.status != TelegramChat.Status.ACTIVE:
        return Reply(
            "🚫 " + _("This chat is blocked. Send /start to ask an admin for access again.")
        )
    if (command in admin_commands.names() or command == "approve") and not chat.is_admin:
        if command == "approve":
            return Reply(_("That button is for admins only. Try /help."))
        return Reply(_("/%(command)s is for admins only. Try /help.") % {"command": command})
    return None


# --- registration ------------------------------------------------------------------


def start(ref: ChatRef, args=()) -> Reply:
    chat, outcome = TelegramChat.objects.register(
        ref.chat_id, ref.title, ref.username, ref.language
    )
    if outcome == "welcome":
        with translation.override(chat.language):
            welcome = _(
                "Welcome to Lago! You will hear about new ads and price drops for the keywords you "
                "follow."
            )
            return Reply(f"✅ {welcome}\n\n" + help_text(chat))
    if outcome == "resumed":
        return Reply(
            "▶️ " + _("Welcome back: messages are on again. /status shows what you follow.")
        )
    if outcome == "already":
        return Reply(
            _(
                "You are registered already. /keywords lists what you can follow, /help all "
                "commands."
            )
        )
    if outcome == "waiting":
        return Reply(_(PENDING_TEXT))
    name = " ".join(
        part for part in (ref.title, f"(@{ref.username})" if ref.username else "") if part
    )
    others = []
    for admin_id, language in _admin_chat_ids(exclude=ref.chat_id):
        with translation.override(language):  # each admin reads it in their chat's language
            request = "🙋 " + _("Chat %(id)s %(name)s asks to use Lago.") % {
                "id": ref.chat_id,
                "name": esc(name),
            }
            request = (
                request.replace("  ", " ")
                + "\n"
                + _("Approve it with the button, or in the Django admin (Telegram chats).")
            )
            others.append((admin_id, Reply(request, keyboards.approve_keyboard(ref.chat_id))))
    thanks = _(
        "Thanks! An admin must approve this chat before Lago sends anything. You will get a "
        "message here once approved."
    )
    return Reply("📨 " + thanks, others=others)


def _admin_chat_ids(exclude=None):
    return list(
        TelegramChat.objects.admins().exclude(chat_id=exclude).values_list("chat_id", "language")
    )


def approve(ref: ChatRef, target_chat_id: int) -> CallbackReply:
    target = TelegramChat.objects.filter(chat_id=target_chat_id).first()
    if target is None:
        return CallbackReply(
            _("That chat is not registered (any more)."), alert=True, edit_keyboard=True
        )
    name = esc(str(target))
    if not target.approve():
        return CallbackReply(
            _("Chat %(id)s is active already.") % {"id": target.chat_id}, edit_keyboard=True
        )
    done = _("Chat %(id)s (%(name)s) approved; a welcome message is queued.") % {
        "id": target.chat_id,
        "name": name,
    }
    return CallbackReply(_("Approved") + " ✅", edit_text=f"✅ {done}")
