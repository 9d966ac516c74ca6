"""Apprise destinations from scripts: add, list, test, subscribe, remove.

    manage.py destinations add family 'mailtos://me:app-password@gmail.com' --language de
    manage.py destinations list
    manage.py destinations test family
    manage.py destinations subscribe family 12 [every | drop 10 | below 500]
    manage.py destinations remove family

URLs are shown masked in every output; a bad name, URL, keyword or rule exits non-zero with a
message saying what is wrong.
"""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import IntegrityError, transaction

from notifications import apprise_channel
from notifications.bot.drop_rules import RULE_WORDS
from notifications.models import Destination, Subscription
from tracker.models import Keyword

# The bot's rule words: /subscribe and this command name rules alike.
RULES = {"every": Subscription.DropRule.EVERY, **RULE_WORDS}


class Command(BaseCommand):
    help = "Manage Apprise destinations (e-mail, ntfy, Matrix, … by URL)."

    def add_arguments(self, parser):
        commands = parser.add_subparsers(dest="action", required=True)
        add = commands.add_parser("add", help="add a destination")
        add.add_argument("name")
        add.add_argument("url", help="an Apprise URL, e.g. mailtos://user:password@gmail.com")
        add.add_argument("--language", choices=[code for code, _ in settings.LANGUAGES])
        add.add_argument("--dry-run", action="store_true", help="validate only, store nothing")
        commands.add_parser("list", help="list destinations (URLs masked)")
        test = commands.add_parser("test", help="send a test message now")
        test.add_argument("name")
        subscribe = commands.add_parser("subscribe", help="subscribe a destination to a keyword")
        subscribe.add_argument("name")
        subscribe.add_argument("keyword_id", type=int)
        subscribe.add_argument(
            "rule",
            nargs="*",
            help="price drops to hear of: every (default), drop <percent>, below <price>",
        )
        remove = commands.add_parser("remove", help="remove a destination and its subscriptions")
        remove.add_argument("name")
        remove.add_argument("--dry-run", action="store_true", help="show, remove nothing")

    def handle(self, *args, action, **options):
        return getattr(self, f"do_{action}")(**options)

    def do_add(self, name, url, language, dry_run, **options):
        destination = Destination(
            channel=Destination.Channel.APPRISE, title=name.strip(), apprise_url=url.strip()
        )
        if language:
            destination.language = language
        try:
            destination.full_clean()
        except ValidationError as exc:
            raise CommandError(_errors(exc)) from None
        if dry_run:
            self.stdout.write(f"dry run: {name} → {destination.masked_url} is valid; not stored")
            return
        try:
            with transaction.atomic():
                destination.save()
        except IntegrityError:
            raise CommandError(f"A destination named {name!r} exists already.") from None
        self.stdout.write(
            self.style.SUCCESS(
                f"added {destination.title} → {destination.masked_url} ({destination.language})"
            )
        )

    def do_list(self, verbosity, **options):
        rows = Destination.objects.order_by("title")
        if not rows:
            self.stdout.write("no destinations")
        for d in rows:
            keywords = ", ".join(str(s.keyword_id) for s in d.subscriptions.order_by("keyword_id"))
            line = (
                f"{d.title}\t{d.masked_url}\t{d.status}\t{d.language}\tkeywords: {keywords or '–'}"
            )
            if verbosity > 1:
                line += f"\tlast success: {d.last_success_at or '–'}\tlast error: {d.last_error}"
            self.stdout.write(line)

    def do_test(self, name, **options):
        destination = _destination(name)
        try:
            destination.send_test()
        except apprise_channel.DeliveryError as exc:
            raise CommandError(f"test message to {name} failed: {exc}") from None
        self.stdout.write(self.style.SUCCESS(f"test message sent to {name}"))

    def do_subscribe(self, name, keyword_id, rule, **options):
        destination = _destination(name)
        keyword = Keyword.objects.filter(pk=keyword_id).first()
        if keyword is None:
            raise CommandError(f"No keyword with id {keyword_id} (see the admin's keyword list).")
        drop_rule, value = _rule(rule)
        try:
            value = Subscription.clean_rule(drop_rule, value)
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from None
        _, created = Subscription.objects.update_or_create(
            chat=destination,
            keyword=keyword,
            defaults={"drop_rule": drop_rule, "drop_value": value},
        )
        verb = "subscribed" if created else "updated"
        self.stdout.write(
            self.style.SUCCESS(f"{name} {verb}: {keyword} ({' '.join(rule) or 'every'})")
        )

    def do_remove(self, name, dry_run, **options):
        destination = _destination(name)
        if dry_run:
            self.stdout.write(f"dry run: would remove {name} and its subscriptions")
            return
        destination.delete()
        self.stdout.write(self.style.SUCCESS(f"removed {name}"))


def _destination(name):
    try:
        return Destination.objects.named(name)
    except Destination.DoesNotExist:
        names = ", ".join(Destination.objects.order_by("title").values_list("title", flat=True))
        raise CommandError(
            f"No destination named {name!r} (there are: {names or 'none'})."
        ) from None


def _rule(words):
    """`every`, `drop 10` (percent), `deal 20` (percent under the median) or `below 500` (a
    target price) → (drop rule, value)."""
    if not words or words == ["every"]:
        return Subscription.DropRule.EVERY, None
    if len(words) == 2 and words[0] in RULES:
        return RULES[words[0]], words[1].rstrip("%").replace(",", ".")
    raise CommandError(
        "A rule is: every, drop <percent> (e.g. drop 10), deal <percent> (e.g. deal 20) or "
        "below <price>."
    )


def _errors(exc):
    return "; ".join(
        f"{'name' if field == 'title' else field}: {' '.join(messages)}"
        for field, messages in exc.message_dict.items()
    )
