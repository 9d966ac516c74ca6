"""Send due notifications from the outbox: once, or in a loop with --loop."""

import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone, translation

from notifications import destination_messages
from notifications.models import Notification, TelegramChat
from notifications.sender import build_plan, process_queue, render_unit
from notifications.telegram import sending_paused


class Command(BaseCommand):
    help = (
        "Send due notifications (process_queue once); --loop keeps going, "
        "--dry-run prints what would be sent."
    )

    def add_arguments(self, parser):
        parser.add_argument("--loop", action="store_true", help="keep sending until interrupted")
        parser.add_argument(
            "--interval",
            type=float,
            default=5.0,
            help="seconds between rounds with --loop (default 5)",
        )
        parser.add_argument(
            "--limit",
            type=int,
            default=None,
            help=f"messages per round (default NOTIFY_BATCH={settings.NOTIFY_BATCH})",
        )
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="print what would be sent; send nothing, change nothing",
        )

    def handle(self, *args, loop, interval, limit, dry_run, verbosity, **options):
        if dry_run:
            return self.dry_run(limit or settings.NOTIFY_BATCH, verbosity)
        if sending_paused():
            self.stderr.write(
                self.style.WARNING(
                    "Sending to Telegram is paused: TELEGRAM_BOT_TOKEN is not set. Its rows stay "
                    "queued; Apprise destinations are still served."
                )
            )
        while True:
            sent = process_queue(limit)
            if verbosity:
                self.stdout.write(self.style.SUCCESS(f"sent {sent} notification(s)"))
            if not loop:
                return
            try:
                time.sleep(interval)
            except KeyboardInterrupt as exc:
                raise CommandError("interrupted") from exc

    def dry_run(self, limit, verbosity):
        plan = build_plan(timezone.now(), limit)
        count = 0
        for chat_id, units in plan.items():
            for unit in units:
                rendered = render_unit(unit, unit.rows)[0]
                count += len(unit.rows)
                label = (
                    f"digest of {len(unit.rows)}"
                    if unit.is_digest
                    else f"notification {unit.rows[0].pk}"
                )
                self.stdout.write(f"→ chat {chat_id}: {label}")
                if verbosity:
                    self.stdout.write(rendered.plain + "\n")
        count += self.dry_run_destinations(limit, verbosity)
        self.stdout.write(
            self.style.SUCCESS(f"dry run: {count} notification(s) would be sent; nothing changed")
        )

    def dry_run_destinations(self, limit, verbosity):
        """The Apprise destinations' due rows, each as it would be rendered (a destination with
        several gets them as one digest)."""
        rows = Notification.objects.sendable(timezone.now()).filter(
            chat__channel=TelegramChat.Channel.APPRISE
        )
        pks = list(rows.order_by("chat_id", "next_attempt_at", "pk").values_list("pk", flat=True))
        loaded = Notification.objects.load_for_sending(pks[:limit])
        for pk in pks[:limit]:
            n = loaded[pk]
            self.stdout.write(f"→ destination {n.chat.title}: notification {n.pk}")
            if verbosity:
                with translation.override(n.chat.language or None):
                    message = destination_messages.render(n)
                self.stdout.write(f"{message.title}\n{message.body('text')}\n")
        return len(loaded)
