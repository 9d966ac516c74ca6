"""Create the admin user from DJANGO_SUPERUSER_USERNAME / DJANGO_SUPERUSER_PASSWORD.

Idempotent: an existing user is left alone. Without the variables it prints
how to create one instead of failing, so `make run` works with no setup.
"""

import os

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = "Create the admin user from DJANGO_SUPERUSER_USERNAME/PASSWORD if they are set."

    def handle(self, *args, **options):
        username = os.environ.get("DJANGO_SUPERUSER_USERNAME", "")
        # The environment as it is now, else what settings read at start (which covers
        # DJANGO_SUPERUSER_PASSWORD_FILE).
        password = os.environ.get("DJANGO_SUPERUSER_PASSWORD") or settings.DJANGO_SUPERUSER_PASSWORD
        User = get_user_model()
        if not username or not password:
            if not User.objects.filter(is_superuser=True).exists():
                self.stdout.write(
                    self.style.WARNING(
                        "No admin user yet. Create one with `.venv/bin/python manage.py "
                        "createsuperuser`, "
                        "or set DJANGO_SUPERUSER_USERNAME and DJANGO_SUPERUSER_PASSWORD and run "
                        "again."
                    )
                )
            return
        if User.objects.filter(username=username).exists():
            if options["verbosity"] > 1:
                self.stdout.write(f"Admin user {username!r} already exists.")
            return
        try:
            validate_password(
                password,
                User(username=username, email=os.environ.get("DJANGO_SUPERUSER_EMAIL", "")),
            )
        except ValidationError as exc:
            # The messages describe the rule broken, never the password itself.
            raise CommandError(
                "DJANGO_SUPERUSER_PASSWORD is too weak: " + " ".join(exc.messages)
            ) from None
        User.objects.create_superuser(
            username=username, email=os.environ.get("DJANGO_SUPERUSER_EMAIL", ""), password=password
        )
        self.stdout.write(self.style.SUCCESS(f"Created admin user {username!r}."))
