"""What bot services take and give: the calling chat, a reply, a button's answer."""

from dataclasses import dataclass, field

from django.utils import timezone
from telegram import InlineKeyboardMarkup

from notifications.models import TelegramChat


@dataclass(frozen=True)
class ChatRef:
    """The chat an update came from, as Telegram describes it."""

    chat_id: int
    title: str = ""
    username: str = ""
    private: bool = True


@dataclass
class Reply:
    text: str
    keyboard: InlineKeyboardMarkup | None = None
    # (chat_id, Reply): messages to other chats, e.g. admins told of a registration.
    others: list = field(default_factory=list)


@dataclass
class CallbackReply:
    """The answer to a button press: a toast, and optionally new text/keyboard for the pressed message."""

    toast: str
    alert: bool = False
    edit_keyboard: bool = False
    keyboard: InlineKeyboardMarkup | None = None
    edit_text: str | None = None


def chat_of(ref):
    return TelegramChat.objects.filter(chat_id=ref.chat_id).first()


def when(moment):
    return f"{timezone.localtime(moment):%d.%m.%Y %H:%M}"
