"""Run the Telegram bot: long polling until SIGTERM or SIGINT (then exit 0)."""

import signal

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connections
from telegram import Update
from telegram.error import InvalidToken

from notifications.bot.app import build_application


class Command(BaseCommand):
    help = (
        "Run the Telegram bot (long polling against TELEGRAM_API_BASE_URL); "
        "stops cleanly on SIGTERM/SIGINT."
    )

    def handle(self, *args, verbosity, **options):
        if not settings.TELEGRAM_BOT_TOKEN:
            raise CommandError("TELEGRAM_BOT_TOKEN is not set: there is no bot to run.")
        # the ORM runs in the handlers' worker thread (admins are seeded in post_init)
        connections.close_all()
        app = build_application()
        if verbosity:
            self.stdout.write(
                f"runbot: starting long polling (timeout {settings.TELEGRAM_POLL_TIMEOUT_S}s)"
            )
            self.stdout.flush()
        try:
            app.run_polling(
                poll_interval=0,
                timeout=settings.TELEGRAM_POLL_TIMEOUT_S,
                allowed_updates=Update.ALL_TYPES,
                stop_signals=(signal.SIGINT, signal.SIGTERM),
            )
        except InvalidToken:
            # PTB's message names the token: never print it (it lands in every restart's log).
            raise CommandError(
                "Telegram rejected TELEGRAM_BOT_TOKEN (revoked or mistyped). Get the current token "
                "from @BotFather and set it."
            ) from None
        if verbosity:
            self.stdout.write(self.style.SUCCESS("runbot: stopped"))
