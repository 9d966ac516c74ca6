"""Run the Telegram bot: long polling until SIGTERM or SIGINT (then exit 0)."""

import signal

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connections
from telegram import Update

from notifications.bot.app import build_application
from notifications.models import TelegramChat


class Command(BaseCommand):
    help = "Run the Telegram bot (long polling against TELEGRAM_API_BASE_URL); stops cleanly on SIGTERM/SIGINT."

    def handle(self, *args, verbosity, **options):
        if not settings.TELEGRAM_BOT_TOKEN:
            raise CommandError("TELEGRAM_BOT_TOKEN is not set: there is no bot to run.")
        TelegramChat.objects.seed_admins(settings.TELEGRAM_ADMIN_CHAT_IDS)
        connections.close_all()  # from here on the ORM runs in the handlers' worker thread
        app = build_application()
        if verbosity:
            self.stdout.write(f"runbot: starting long polling (timeout {settings.TELEGRAM_POLL_TIMEOUT_S}s)")
            self.stdout.flush()
        app.run_polling(
            poll_interval=0,
            timeout=settings.TELEGRAM_POLL_TIMEOUT_S,
            allowed_updates=Update.ALL_TYPES,
            stop_signals=(signal.SIGINT, signal.SIGTERM),
        )
        if verbosity:
            self.stdout.write(self.style.SUCCESS("runbot: stopped"))
