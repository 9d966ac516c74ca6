"""What bot commands take and give: the calling chat, a reply, a button's answer."""

from dataclasses import dataclass, field

from django.utils import timezone, translation
from telegram import InlineKeyboardMarkup

from notifications.models import TelegramChat
from notifications.models.chats import chat_language


@dataclass(frozen=True)
class ChatRef:
    """The chat an update came from, as Telegram describes it."""

    chat_id: int
    title: str = ""
    username: str = ""
    private: bool = True
    # Telegram's language_code of the sender ("de", "en-GB"; "" when Telegram sends none).
    language: str = ""


@dataclass
class Reply:
    text: str
    keyboard: InlineKeyboardMarkup | None = None
    # (chat_id, Reply): messages to other chats, e.g. admins told of a registration.
    others: list = field(default_factory=list)


@dataclass
class CallbackReply:
    """The answer to a button press: a toast, and optionally new text/keyboard for the pressed
    message."""

    toast: str
    alert: bool = False
    edit_keyboard: bool = False
    keyboard: InlineKeyboardMarkup | None = None
    edit_text: str | None = None


def chat_of(ref):
    return TelegramChat.objects.filter(chat_id=ref.chat_id).first()


def when(moment):
    return f"{timezone.localtime(moment):%d.%m.%Y %H:%M}"


def localized(service):
    """`service(ref, *args)` run in the chat's language: the stored one, which follows the
    sender's language_code (TelegramChat.follow_language); unknown chats get that code's
    language."""

    def run(ref, *args):
        chat = chat_of(ref)
        language = (
            chat.follow_language(ref.language) if chat is not None else chat_language(ref.language)
        )
        with translation.override(language):
            return service(ref, *args)

    run.__name__ = getattr(service, "__name__", "service")
    return run
