"""The bot's single gate (who may run what) and registration: /start and an admin's approval.

No Telegram I/O here: handlers.py runs these in a thread and sends the result.
"""

from notifications.bot import admin_commands, keyboards
from notifications.bot.help import help_text
from notifications.bot.replies import CallbackReply, ChatRef, Reply, chat_of
from notifications.messages import esc
from notifications.models import TelegramChat

PENDING_TEXT = "⏳ Your request to use Lago is waiting for an admin's approval. You will get a message here once it is approved."
UNKNOWN_TEXT = "👋 This is Lago, the willhaben.at watcher. Send /start to ask for access."
STOPPED_TEXT = "⏹ You stopped Lago's messages. Send /start to resume."


# --- the gate ------------------------------------------------------------------------


def access(ref: ChatRef, command: str | None) -> Reply | None:
    """None when the chat may run `command` (None: a button or plain text); else the only reply it gets.

    Pending, blocked, stopped and unknown chats get the registration reply whatever they send
    (/start is routed to start() before this gate). Admin commands need an admin chat.
    """
    chat = chat_of(ref)
    if chat is None:
        return Reply(UNKNOWN_TEXT)
    if chat.status == TelegramChat.Status.PENDING:
        return Reply(PENDING_TEXT)
    if chat.status == TelegramChat.Status.STOPPED:
        return Reply(STOPPED_TEXT)
    if chat.status != TelegramChat.Status.ACTIVE:
        return Reply("🚫 This chat is blocked. Send /start to ask an admin for access again.")
    if (command in admin_commands.names() or command == "approve") and not chat.is_admin:
        label = "That button" if command == "approve" else f"/{command}"
        return Reply(f"{label} is for admins only. Try /help.")
    return None


# --- registration ------------------------------------------------------------------


def start(ref: ChatRef, args=()) -> Reply:
    chat, outcome = TelegramChat.objects.register(ref.chat_id, ref.title, ref.username)
    if outcome == "welcome":
        return Reply("✅ Welcome to Lago! You will hear about new ads and price drops for the keywords you follow.\n\n" + help_text(chat))
    if outcome == "resumed":
        return Reply("▶️ Welcome back: messages are on again. /status shows what you follow.")
    if outcome == "already":
        return Reply("You are registered already. /keywords lists what you can follow, /help all commands.")
    if outcome == "waiting":
        return Reply(PENDING_TEXT)
    name = " ".join(part for part in (ref.title, f"(@{ref.username})" if ref.username else "") if part)
    request = f"🙋 Chat {ref.chat_id} {esc(name)} asks to use Lago.".replace("  ", " ")
    request += "\nApprove it with the button, or in the Django admin (Telegram chats)."
    others = [(admin_id, Reply(request, keyboards.approve_keyboard(ref.chat_id))) for admin_id in _admin_chat_ids(exclude=ref.chat_id)]
    return Reply(
        "📨 Thanks! An admin must approve this chat before Lago sends anything. You will get a message here once approved.", others=others
    )


def _admin_chat_ids(exclude=None):
    return list(TelegramChat.objects.admins().exclude(chat_id=exclude).values_list("chat_id", flat=True))


def approve(ref: ChatRef, target_chat_id: int) -> CallbackReply:
    target = TelegramChat.objects.filter(chat_id=target_chat_id).first()
    if target is None:
        return CallbackReply("That chat is not registered (any more).", alert=True, edit_keyboard=True)
    name = esc(str(target))
    if not target.approve():
        return CallbackReply(f"Chat {target.chat_id} is active already.", edit_keyboard=True)
    return CallbackReply("Approved ✅", edit_text=f"✅ Chat {target.chat_id} ({name}) approved; a welcome message is queued.")
