"""The only module that talks to the Telegram Bot API.

python-telegram-bot is asyncio; our workers are synchronous processes. Each process
keeps one event loop and one `Bot` (with its keep-alive connection pool) in a
module-level holder and runs every call to completion on that loop. The holder is
rebuilt when the token, base URL or timeout changes, or after a fork (a child must
not reuse its parent's sockets).

Every failure leaves this module as a `DeliveryError` that says what to do next.
"""

import asyncio
import logging
import os
import threading
import time
import warnings
from dataclasses import dataclass

from django.conf import settings
from telegram import Bot, InputFile
from telegram.constants import ParseMode
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    InvalidToken,
    RetryAfter,
    TelegramError,
)
from telegram.request import HTTPXRequest
from telegram.warnings import PTBDeprecationWarning

from lib.log_filters import redact

logger = logging.getLogger(__name__)
# PTB 22 itself reads RetryAfter.retry_after when building the error; we accept int and timedelta
# (_seconds).
warnings.filterwarnings("ignore", message=".*retry_after.*", category=PTBDeprecationWarning)

# BadRequest descriptions that mean the chat itself is gone for us.
CHAT_GONE = (
    "chat not found",
    "bot was kicked",
    "bot was blocked",
    "user is deactivated",
    "have no rights",
    "not enough rights",
)
PARSE_ERROR = "can't parse entities"


@dataclass
class DeliveryError(Exception):
    """One error type for every outcome that is not "sent".

    permanent: retrying this message cannot succeed.
    chat_gone: permanent for the whole chat (blocked, kicked, deleted): deactivate it.
    retry_after: Telegram's flood-control delay in seconds (transient).
    migrate_to_chat_id: the group became a supergroup; store the id and resend.
    """

    reason: str
    permanent: bool = False
    chat_gone: bool = False
    retry_after: float | None = None
    migrate_to_chat_id: int | None = None

    def __post_init__(self):
        super().__init__(self.reason)

    def __str__(self):
        return self.reason

    @property
    def is_outage(self):
        """A transient failure that says nothing about this message: timeouts, 5xx, network."""
        return not self.permanent and self.retry_after is None and self.migrate_to_chat_id is None


def bot_request(**kwargs) -> HTTPXRequest:
    """An HTTPXRequest for the Bot API that ignores the environment's proxy variables.

    HTTP_PROXY/HTTPS_PROXY in the environment are for other traffic: a Bot API call through
    them would carry the token in its URL. Only TELEGRAM_PROXY_URL, when set, is used.
    """
    return HTTPXRequest(
        proxy=settings.TELEGRAM_PROXY_URL or None, httpx_kwargs={"trust_env": False}, **kwargs
    )


def sending_paused() -> bool:
    """True when no bot token is configured: rows wait in the outbox."""
    return not settings.TELEGRAM_BOT_TOKEN


class _Runtime:
    def __init__(self, key):
        self.key = key
        token, base_url, timeout, _pid, _proxy = key
        self.loop = asyncio.new_event_loop()
        request = bot_request(
            connection_pool_size=8,
            connect_timeout=timeout,
            read_timeout=timeout,
            write_timeout=timeout,
            media_write_timeout=timeout,
        )
        updates_request = bot_request(
            connection_pool_size=1, connect_timeout=timeout, read_timeout=timeout + 30
        )
        self.run(request.initialize())
        self.run(updates_request.initialize())
        self.bot = Bot(
            token,
            base_url=f"{base_url.rstrip('/')}/bot",
            request=request,
            get_updates_request=updates_request,
        )

    def run(self, coro):
        return self.loop.run_until_complete(coro)

    def close(self):
        try:
            self.run(self.bot.shutdown())
        finally:
            self.loop.close()


_runtime: _Runtime | None = None
_lock = threading.RLock()


def _current_key():
    return (
        settings.TELEGRAM_BOT_TOKEN,
        settings.TELEGRAM_API_BASE_URL,
        settings.TELEGRAM_TIMEOUT_S,
        os.getpid(),
        settings.TELEGRAM_PROXY_URL,
    )


def runtime() -> _Runtime:
    """This process's loop and Bot, built on first use and reused afterwards."""
    global _runtime
    key = _current_key()
    if _runtime is not None and _runtime.key == key:
        return _runtime
    if _runtime is not None and _runtime.key[3] == key[3]:
        _close_quietly(_runtime)
    # After a fork the parent's loop and sockets are dropped, never closed from here.
    _runtime = _Runtime(key)
    return _runtime


def _close_quietly(rt):
    try:
        rt.close()
    except Exception as exc:  # noqa: BLE001 - an old client failing to close must not block the new one
        logger.warning("telegram: closing the previous Bot failed: %s", redact(repr(exc)))


def call(method: str, **params):
    """Runs one Bot coroutine method (e.g. "get_me") on this process's loop; raises
    DeliveryError."""
    with _lock:
        rt = runtime()
        try:
            return rt.run(getattr(rt.bot, method)(**params))
        except TelegramError as exc:
            raise to_delivery_error(exc) from None


def ping() -> bool:
    """Does the Bot API answer? Used to tell an outage from a bad message."""
    try:
        call("get_me")
    except DeliveryError as exc:
        logger.warning("telegram: getMe failed: %s", exc)
        return False
    return True


# The admin dashboard asks on every load; Telegram is asked at most once a minute per process.
BOT_STATE_TTL_S = 60.0


@dataclass(frozen=True)
class BotState:
    """What getMe says about the configured token.

    state: "no_token", "rejected" (Telegram refused the token), "unreachable" (timeout, network,
    5xx: `reason` says which, never the token) or "ok" (`username` is the bot's @name).
    """

    state: str
    username: str = ""
    reason: str = ""


_bot_state: tuple | None = None  # (runtime key, expires at (monotonic), BotState)


def bot_state(clock=time.monotonic) -> BotState:
    """The bot's state from getMe, remembered for BOT_STATE_TTL_S (failures too)."""
    global _bot_state
    if sending_paused():
        return BotState("no_token")
    key, now = _current_key(), clock()
    with _lock:
        if _bot_state is not None and _bot_state[0] == key and now < _bot_state[1]:
            return _bot_state[2]
        rt = runtime()
        try:
            me = rt.run(rt.bot.get_me())
            state = BotState("ok", username=me.username or "")
        except InvalidToken as exc:
            state = BotState("rejected", reason=redact(f"{type(exc).__name__}: {exc.message}"))
        except TelegramError as exc:
            state = BotState("unreachable", reason=redact(f"{type(exc).__name__}: {exc.message}"))
        if state.state != "ok":
            logger.warning("telegram: getMe for the dashboard: %s %s", state.state, state.reason)
        _bot_state = (key, now + BOT_STATE_TTL_S, state)
        return state


def forget_bot_state():
    global _bot_state
    with _lock:
        _bot_state = None


def send_message(
    chat_id: int,
    text: str,
    photo_url: str | None = None,
    reply_markup=None,
    plain_text: str | None = None,
    photo_bytes: bytes | None = None,
) -> int:
    """Sends one HTML message (as a photo caption when photo_url or photo_bytes is given) and
    returns its message_id.

    `photo_bytes` is an image Lago drew (the weekly report's chart), uploaded as multipart. A
    photo Telegram cannot fetch or take falls back to a text message; HTML Telegram cannot
    parse is resent once as `plain_text`. Raises DeliveryError for everything else.
    """
    if photo_bytes is not None:
        if not isinstance(photo_bytes, bytes):
            # A str would be read as a path or URL by python-telegram-bot: only our own bytes go.
            raise TypeError(f"photo_bytes must be bytes, not {type(photo_bytes).__name__}")
    with _lock:
        rt = runtime()
        if photo_url and not is_web_url(photo_url):
            # python-telegram-bot uploads any local file a string names: never hand it anything but
            # a web URL.
            logger.warning(
                "telegram: photo for chat %s is not an http(s) URL (%r); sending as text",
                chat_id,
                str(photo_url)[:80],
            )
            photo_url = None
        photo = photo_url if photo_bytes is None else InputFile(photo_bytes, filename="chart.png")
        try:
            message = rt.run(_send(rt.bot, chat_id, text, photo, reply_markup, plain_text))
        except TelegramError as exc:
            raise to_delivery_error(exc) from None
        return message.message_id


def is_web_url(value) -> bool:
    """Is `value` a string holding an absolute http(s) URL (the only photo address we pass on)?"""
    return (
        isinstance(value, str)
        and value.lower().startswith(("https://", "http://"))
        and "\x00" not in value
    )


async def _send(bot, chat_id, text, photo, reply_markup, plain_text):
    """`photo`: a web URL, or an InputFile of bytes Lago made (never a path)."""
    if photo:
        try:
            return await bot.send_photo(
                chat_id,
                photo=photo,
                caption=text,
                parse_mode=ParseMode.HTML,
                reply_markup=reply_markup,
            )
        except BadRequest as exc:
            if _is_chat_gone(exc):
                raise
            logger.warning(
                "telegram: photo for chat %s failed (%s); sending as text",
                chat_id,
                redact(exc.message),
            )
    try:
        return await bot.send_message(
            chat_id, text, parse_mode=ParseMode.HTML, reply_markup=reply_markup
        )
    except BadRequest as exc:
        if PARSE_ERROR not in exc.message.lower() or plain_text is None:
            raise
        logger.warning(
            "telegram: HTML rejected for chat %s (%s); resending as plain text",
            chat_id,
            redact(exc.message),
        )
    try:
        return await bot.send_message(chat_id, plain_text, reply_markup=reply_markup)
    except BadRequest as exc:
        raise BadRequest(f"plain-text resend also rejected: {exc.message}") from None


def _is_chat_gone(exc: TelegramError) -> bool:
    return isinstance(exc, Forbidden) or any(marker in exc.message.lower() for marker in CHAT_GONE)


def to_delivery_error(exc: TelegramError) -> DeliveryError:
    reason = redact(f"{type(exc).__name__}: {exc.message}")
    if isinstance(exc, RetryAfter):
        return DeliveryError(reason, retry_after=_seconds(exc))
    if isinstance(exc, ChatMigrated):
        return DeliveryError(reason, migrate_to_chat_id=int(exc.new_chat_id))
    if _is_chat_gone(exc):
        return DeliveryError(reason, permanent=True, chat_gone=True)
    if isinstance(exc, BadRequest):
        return DeliveryError(reason, permanent=True)
    # TimedOut, NetworkError (5xx, connection errors), InvalidToken, Conflict: the service, not the
    # message.
    return DeliveryError(reason)


def _seconds(exc: RetryAfter) -> float:
    # PTB 22 warns that retry_after becomes a timedelta in v23; accept both.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        delay = exc.retry_after
    return float(delay if isinstance(delay, int | float) else delay.total_seconds())
