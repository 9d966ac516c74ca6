"""Drives the real bot Application against the fake Bot API, inside a normal pytest-django test.

The Application (PTB: asyncio, real HTTP long polling against FakeTelegram) runs on an
event loop in a background thread. Its database work does not: the handlers hand every
ORM call to `MainThreadDB`, and the test's thread runs those calls while it waits for the
bot (`BotHarness.wait`). So every query runs on the test's own connection, inside the
test's transaction: plain `django_db` tests work on SQLite in-memory and PostgreSQL alike,
and nothing runs ORM code from the event loop. (Production uses app.thread_db instead:
asgiref's single sync thread.)
"""

import asyncio
import queue
import threading
import time

from telegram import Update
from telegram.ext import Application

from notifications.bot.app import build_application, startup


class MainThreadDB:
    """The bot's `db` runner in tests: calls queue up here; the test thread serves them."""

    def __init__(self):
        self.calls = queue.Queue()

    async def __call__(self, func, *args):
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self.calls.put((loop, future, func, args))
        return await future

    def serve(self, timeout):
        """Runs one queued call (waiting up to `timeout`); False when none came."""
        try:
            loop, future, func, args = self.calls.get(timeout=timeout)
        except queue.Empty:
            return False
        try:
            result, error = func(*args), None
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting handler, which re-raises it
            result, error = None, exc
        loop.call_soon_threadsafe(_settle, future, result, error)
        return True


def _settle(future, result, error):
    if future.cancelled():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


class CountingApplication(Application):
    """Counts fully processed updates, so a test knows when the bot is done with one."""

    processed = 0

    async def process_update(self, update):
        try:
            await super().process_update(update)
        finally:
            self.processed += 1


class BotHarness:
    def __init__(self, server):
        self.server = server
        self.db = MainThreadDB()
        self.app = build_application(db=self.db, application_class=CountingApplication)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="bot-loop", daemon=True)
        self.pushed = 0

    def start(self):
        self.thread.start()
        self.run(self._start())
        return self

    async def _start(self):
        await self.app.initialize()
        await startup(self.app)
        await self.app.start()
        await self.app.updater.start_polling(
            poll_interval=0, timeout=1, allowed_updates=Update.ALL_TYPES
        )

    def stop(self):
        try:
            self.run(self._stop(), timeout=15)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(5)
            self.loop.close()

    async def _stop(self):
        if self.app.updater.running:
            await self.app.updater.stop()
        if self.app.running:
            await self.app.stop()
        await self.app.shutdown()

    def run(self, coro, timeout=10):
        """Runs a coroutine on the bot's loop and waits for it, serving its database calls."""
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        self.wait(future.done, timeout, what="the bot's coroutine")
        return future.result()

    def wait(self, condition, timeout=10, what="the bot"):
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}")
            self.db.serve(0.01)

    # --- conversation ------------------------------------------------------------------

    def _process(self, push, *args, **kwargs):
        push(*args, **kwargs)
        self.pushed += 1
        self.wait(lambda: self.app.processed >= self.pushed, what="the update to be processed")

    def send(self, chat_id, text, **kwargs):
        """Sends `text` from `chat_id`; returns the texts the bot sent to that chat in answer."""
        before = len(self.server.replies(chat_id))
        self._process(self.server.push_message, chat_id, text, **kwargs)
        return self.server.replies(chat_id)[before:]

    def reply(self, chat_id, text, **kwargs):
        """The single reply to `text` (fails unless there is exactly one)."""
        replies = self.send(chat_id, text, **kwargs)
        assert len(replies) == 1, replies
        return replies[0]

    def press(self, chat_id, data, **kwargs):
        """Presses a button; returns the callback answer (dict with text, show_alert)."""
        before = len(self.server.callback_answers)
        self._process(self.server.push_callback, chat_id, data, **kwargs)
        answers = self.server.callback_answers[before:]
        assert len(answers) == 1, answers
        return answers[0]

    def member(self, chat_id, new_status, old_status="member"):
        self._process(self.server.push_my_chat_member, chat_id, new_status, old_status)

    def migrate(self, chat_id, new_chat_id):
        self._process(self.server.push_migration, chat_id, new_chat_id)
