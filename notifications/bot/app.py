"""Builds the bot's python-telegram-bot Application.

    app = build_application()
    app.run_polling(...)            # manage.py runbot

`startup` (post_init) deletes any webhook and sets the command menus; every completed
getUpdates call writes the `bot` heartbeat (at most every HEARTBEAT_EVERY_S), so /health
sees the bot as alive exactly while polling works.
"""

import logging
import time

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from telegram import BotCommand, BotCommandScopeChat, BotCommandScopeDefault, Update
from telegram.error import TelegramError
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    MessageHandler,
    TypeHandler,
    filters,
)
from telegram.request import HTTPXRequest

from lib.log_filters import redact
from notifications.bot import admin_commands, commands, handlers
from notifications.models import TelegramChat
from notifications.telegram import bot_request
from tracker.models import Heartbeat

logger = logging.getLogger(__name__)

HEARTBEAT = "bot"
# Beat at most this often; a long poll returns at least every TELEGRAM_POLL_TIMEOUT_S.
HEARTBEAT_EVERY_S = 10.0

# Translated when the menu is set (menu()): the default one in LANGUAGE_CODE, one for English users.
MENU = [
    ("keywords", gettext_noop("Keywords you can follow")),
    ("status", gettext_noop("Your subscriptions and recent messages")),
    ("subscribe", gettext_noop("Follow a keyword: /subscribe <id>")),
    ("unsubscribe", gettext_noop("Stop following: /unsubscribe <id>")),
    ("mute", gettext_noop("Pause messages: /mute [2h|1d]")),
    ("unmute", gettext_noop("Messages on again")),
    ("quiet", gettext_noop("Quiet hours: /quiet 22-7 or /quiet off")),
    ("report", gettext_noop("Weekly market report: /report on|off")),
    ("price", gettext_noop("Is a price good? /price <id> <price>")),
    ("stop", gettext_noop("Stop all messages")),
    ("start", gettext_noop("Register or resume")),
    ("help", gettext_noop("All commands")),
]
ADD_MENU = [("add", gettext_noop("Propose a keyword: /add <words>"))]


def _fresh(func):
    """Runs `func` with a usable connection (the bot is long-running: connections age and break)."""

    def run(*args):
        close_old_connections()
        try:
            return func(*args)
        finally:
            close_old_connections()

    return run


async def thread_db(func, *args):
    """Production runner: the ORM in asgiref's single sync thread, never on the loop."""
    return await sync_to_async(_fresh(func), thread_sensitive=True)(*args)


def _beat():
    Heartbeat.beat(HEARTBEAT, "polling")


class PollingRequest(HTTPXRequest):
    """The getUpdates connection: each answered poll may beat the heartbeat."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.application = None
        self.last_beat = float("-inf")

    async def post(self, *args, **kwargs):
        result = await super().post(*args, **kwargs)
        if self.application is not None and time.monotonic() - self.last_beat >= HEARTBEAT_EVERY_S:
            self.last_beat = time.monotonic()
            try:
                await self.application.bot_data["db"](_beat)
            except Exception as exc:  # noqa: BLE001 - polling goes on; a stale heartbeat then shows in /health
                logger.warning("bot: writing the heartbeat failed: %s", exc)
        return result


def build_application(db=None, application_class=Application) -> Application:
    """The Application with every handler; `db` runs sync callables (default: thread_db)."""
    timeout = settings.TELEGRAM_TIMEOUT_S
    base = settings.TELEGRAM_API_BASE_URL.rstrip("/")
    request = bot_request(
        connection_pool_size=8, connect_timeout=timeout, read_timeout=timeout, write_timeout=timeout
    )
    # PTB adds the long-poll timeout to this read timeout for getUpdates.
    updates_request = PollingRequest(
        connection_pool_size=1,
        connect_timeout=timeout,
        read_timeout=timeout,
        write_timeout=timeout,
        proxy=settings.TELEGRAM_PROXY_URL or None,
        httpx_kwargs={"trust_env": False},  # see telegram.bot_request
    )
    app = (
        ApplicationBuilder()
        .application_class(application_class)
        .token(settings.TELEGRAM_BOT_TOKEN)
        .base_url(f"{base}/bot")
        .base_file_url(f"{base}/file/bot")
        .request(request)
        .get_updates_request(updates_request)
        .job_queue(None)
        .post_init(startup)
        .build()
    )
    app.bot_data["db"] = db or thread_db
    updates_request.application = app
    add_handlers(app)
    return app


def add_handlers(app: Application):
    # Group -2: about the chat itself, from any chat.
    app.add_handler(
        ChatMemberHandler(handlers.membership, ChatMemberHandler.MY_CHAT_MEMBER), group=-2
    )
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, handlers.migration), group=-2)
    # Group -1: the access gate; it stops the update for chats that are not active.
    app.add_handler(TypeHandler(Update, handlers.gate), group=-1)
    app.add_handler(CommandHandler("start", handlers.start))
    for name, service in commands.COMMANDS.items():
        app.add_handler(CommandHandler(name, handlers.command(service)))
    for admin_command in admin_commands.all_commands():
        app.add_handler(CommandHandler(admin_command.name, handlers.command(admin_command.func)))
    app.add_handler(CallbackQueryHandler(handlers.button))
    app.add_handler(MessageHandler(filters.COMMAND, handlers.unknown_command))
    app.add_handler(
        MessageHandler(
            filters.TEXT & filters.ChatType.PRIVATE & ~filters.UpdateType.EDITED,
            handlers.not_a_command,
        )
    )
    app.add_error_handler(handlers.on_error)


def menu(admin=False):
    admin_menu = [(c.name, _(c.description)) for c in admin_commands.all_commands()]
    entries = [
        (n, _(d)) for n, d in MENU + (ADD_MENU if settings.TELEGRAM_USERS_MAY_ADD_KEYWORDS else [])
    ] + (admin_menu if admin else [])
    return [
        BotCommand(name, description[:1].upper() + description[1:]) for name, description in entries
    ]


async def startup(app: Application):
    """post_init: polling needs no webhook; the menus show the commands (admins see theirs)."""
    await app.bot.delete_webhook()
    await app.bot.set_my_commands(menu(), scope=BotCommandScopeDefault())
    with translation.override("en"):
        await app.bot.set_my_commands(menu(), scope=BotCommandScopeDefault(), language_code="en")
    admin_ids = await app.bot_data["db"](_seed_admins)
    for chat_id in admin_ids:
        try:
            await app.bot.set_my_commands(menu(admin=True), scope=BotCommandScopeChat(chat_id))
        except TelegramError as exc:  # e.g. an admin chat that never talked to the bot
            logger.warning("bot: admin menu for chat %s not set: %s", chat_id, redact(str(exc)))
    logger.info("bot: polling %s as @%s", redact(settings.TELEGRAM_API_BASE_URL), app.bot.username)


def _seed_admins():
    """TELEGRAM_ADMIN_CHAT_IDS become active admin chats; returns every admin chat id."""
    TelegramChat.objects.seed_admins(settings.TELEGRAM_ADMIN_CHAT_IDS)
    return sorted(
        set(TelegramChat.objects.admins().values_list("chat_id", flat=True))
        | set(settings.TELEGRAM_ADMIN_CHAT_IDS)
    )
