"""Thin async handlers: read the update, run the service in a thread, send the result.

Database work never runs on the event loop: `run_db` hands each service call to the
runner stored in `bot_data["db"]` (app.py: `sync_to_async(thread_sensitive=True)`,
one worker thread with its own connection; tests: the test's own thread).
"""

import logging

from django.utils import translation
from django.utils.translation import gettext as _
from telegram import LinkPreviewOptions, MessageEntity, Update
from telegram.constants import ChatType, ParseMode
from telegram.error import TelegramError
from telegram.ext import ApplicationHandlerStop, ContextTypes

from lib.log_filters import redact
from notifications.bot import access, commands
from notifications.bot.replies import ChatRef, Reply, localized
from notifications.messages import esc
from notifications.models import TelegramChat
from notifications.models.chats import chat_language

logger = logging.getLogger(__name__)
NO_PREVIEW = LinkPreviewOptions(is_disabled=True)

# Updates that reach every chat's handlers, registered or not.
OPEN_COMMANDS = {"start"}


async def run_db(context: ContextTypes.DEFAULT_TYPE, func, *args):
    return await context.application.bot_data["db"](func, *args)


def chat_ref(update: Update) -> ChatRef:
    chat = update.effective_chat
    private = chat.type == ChatType.PRIVATE
    return ChatRef(
        chat.id,
        chat.title or chat.full_name or "",
        chat.username or "",
        private,
        _language_code(update),
    )


def _language_code(update):
    user = update.effective_user if isinstance(update, Update) else None
    return (user.language_code or "") if user is not None else ""


def update_language(update):
    """The language of replies sent without a database call (errors, unknown commands)."""
    return chat_language(_language_code(update))


def command_name(message) -> str | None:
    """ "/Subscribe@lago_bot 12" → "subscribe"; None when the message is not a command.

    Read exactly as PTB's CommandHandler reads it: the bot_command entity at offset 0
    ("/stats." → "stats"), so the gate judges the command the handler will run.
    """
    if message is None or not message.text or not message.entities:
        return None
    entity = message.entities[0]
    if entity.type != MessageEntity.BOT_COMMAND or entity.offset != 0:
        return None
    return message.text[1 : entity.length].partition("@")[0].lower() or None


async def send(bot, chat_id, reply: Reply):
    await bot.send_message(
        chat_id,
        reply.text,
        parse_mode=ParseMode.HTML,
        reply_markup=reply.keyboard,
        link_preview_options=NO_PREVIEW,
    )


# --- the gate (handler group -1) -------------------------------------------------------


async def gate(update: Update, context: ContextTypes.DEFAULT_TYPE):
    """Access control for every update, in one place.

    Membership changes and group migrations pass (they are about the chat, not from it);
    /start passes (it registers). Anything else from a chat that is not active gets the
    registration reply and goes no further; admin commands and buttons need an admin chat.
    """
    if update.effective_chat is None:
        raise ApplicationHandlerStop  # inline queries, polls: nothing for us
    # Edited messages too: CommandHandler runs commands from edits as well.
    message = update.effective_message if update.callback_query is None else None
    if update.my_chat_member or (
        message and (message.migrate_to_chat_id or message.migrate_from_chat_id)
    ):
        return
    command = command_name(message)
    if command in OPEN_COMMANDS:
        return
    query = update.callback_query
    checked = "approve" if query and (query.data or "").startswith("approve:") else command
    try:
        denied = await run_db(context, localized(access.access), chat_ref(update), checked)
    except Exception as exc:  # noqa: BLE001 - logged with the update; the chat is told
        # Fail closed: PTB would go on to the next handler group, i.e. past this gate.
        await report_error(update, context, exc)
        raise ApplicationHandlerStop from None
    if denied is None:
        return
    if query:
        await query.answer(_plain(denied.text), show_alert=True)
    elif message and message.text and (command or message.chat.type == ChatType.PRIVATE):
        await message.reply_html(denied.text)
    raise ApplicationHandlerStop


def _plain(html_text):
    return html_text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")[:200]


# --- commands --------------------------------------------------------------------------


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE):
    reply = await run_db(context, localized(access.start), chat_ref(update), context.args)
    await update.effective_message.reply_html(reply.text, reply_markup=reply.keyboard)
    for chat_id, other in reply.others:
        try:
            await send(context.bot, chat_id, other)
        except TelegramError as exc:
            logger.warning(
                "bot: telling admin chat %s of a registration failed: %s", chat_id, redact(str(exc))
            )


def command(service):
    """A handler that runs `service(chat, args)` and replies with its result."""

    async def handle(update: Update, context: ContextTypes.DEFAULT_TYPE):
        reply = await run_db(context, localized(service), chat_ref(update), context.args or [])
        await update.effective_message.reply_html(
            reply.text, reply_markup=reply.keyboard, link_preview_options=NO_PREVIEW
        )

    handle.__name__ = f"command_{service.__name__}"
    return handle


async def unknown_command(update: Update, context: ContextTypes.DEFAULT_TYPE):
    name = command_name(update.effective_message) or "?"
    with translation.override(update_language(update)):
        text = _("Unknown command /%(name)s. Try /help.") % {"name": esc(name[:40])}
    await update.effective_message.reply_html(text)


async def not_a_command(update: Update, context: ContextTypes.DEFAULT_TYPE):
    with translation.override(update_language(update)):
        text = _("I only understand commands. Try /help or /keywords.")
    await update.message.reply_html(text)


async def button(update: Update, context: ContextTypes.DEFAULT_TYPE):
    query = update.callback_query
    result = await run_db(context, localized(commands.callback), chat_ref(update), query.data)
    await query.answer(result.toast[:200], show_alert=result.alert)
    if query.message is None:
        return
    if result.edit_text is not None:
        await query.edit_message_text(
            result.edit_text, parse_mode=ParseMode.HTML, reply_markup=result.keyboard
        )
    elif result.edit_keyboard:
        await query.edit_message_reply_markup(reply_markup=result.keyboard)


# --- chat lifecycle --------------------------------------------------------------------


async def membership(update: Update, context: ContextTypes.DEFAULT_TYPE):
    """The bot was blocked, kicked or left: the chat becomes blocked."""
    change = update.my_chat_member
    status = change.new_chat_member.status
    if status in ("kicked", "left"):
        await run_db(context, _block, change.chat.id, f"bot {status} (my_chat_member)")


def _block(chat_id, reason):
    chat = TelegramChat.objects.filter(chat_id=chat_id).first()
    if chat is not None and chat.status != TelegramChat.Status.BLOCKED:
        chat.block(reason)


async def migration(update: Update, context: ContextTypes.DEFAULT_TYPE):
    message = update.message
    if message.migrate_to_chat_id:
        old, new = message.chat.id, message.migrate_to_chat_id
    else:
        old, new = message.migrate_from_chat_id, message.chat.id
    await run_db(context, TelegramChat.objects.migrate, old, new)


# --- errors ----------------------------------------------------------------------------


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE):
    """The Application's error handler: every handler failure ends here."""
    await report_error(update, context, context.error)


async def report_error(update, context, error):
    """Logs the failure with what it was handling, and tells the chat."""
    logger.error(
        "bot: handling %s failed: %s", _describe(update), redact(repr(error)), exc_info=error
    )
    if (
        isinstance(update, Update)
        and update.effective_chat is not None
        and not update.my_chat_member
    ):
        try:
            with translation.override(update_language(update)):
                text = "⚠️ " + _("Something went wrong on our side. Please try again in a minute.")
            await context.bot.send_message(update.effective_chat.id, text)
        except TelegramError as exc:
            logger.warning(
                "bot: could not tell chat %s about the error: %s",
                update.effective_chat.id,
                redact(str(exc)),
            )


def _describe(update):
    if not isinstance(update, Update):
        return repr(update)[:200]
    chat = update.effective_chat.id if update.effective_chat else None
    kind = (
        "callback " + repr(update.callback_query.data)
        if update.callback_query
        else repr(command_name(update.effective_message) or "update")
    )
    return f"update {update.update_id} ({kind}) from chat {chat}"
