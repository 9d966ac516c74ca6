"""Create or complete the local `.env` so every `manage.py` command works outside `make`.

`make run` calls this on each start. A missing `.env` is created with DEBUG=true and a
generated SECRET_KEY; an existing one only gets the keys it lacks (nothing is overwritten).
Runs without system checks: it is what makes lago.E001 go away.
"""

import secrets
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

LOCAL_DEFAULTS = {"DEBUG": lambda: "true", "SECRET_KEY": lambda: secrets.token_urlsafe(50)}


def ensure_local_env(path: Path) -> list[str]:
    """Add DEBUG and SECRET_KEY to the file at `path` when absent; returns the names added."""
    text = path.read_text() if path.exists() else ""
    present = {
        line.split("=", 1)[0].strip()
        for line in text.splitlines()
        if "=" in line and not line.lstrip().startswith("#")
    }
    missing = [name for name in LOCAL_DEFAULTS if name not in present]
    if missing:
        lines = [f"{name}={LOCAL_DEFAULTS[name]()}" for name in missing]
        header = (
            ""
            if text
            else "# Local development settings, created by `make run` (git-ignored). See README, Configuration.\n"
        )
        separator = "\n" if text and not text.endswith("\n") else ""
        path.write_text(text + separator + header + "\n".join(lines) + "\n")
        path.chmod(0o600)
    return missing


class Command(BaseCommand):
    help = (
        "Create the local .env (DEBUG=true, a generated SECRET_KEY) or add those keys if missing."
    )
    requires_system_checks = []

    def handle(self, *args, **options):
        path = Path(settings.BASE_DIR) / ".env"
        added = ensure_local_env(path)
        if added:
            self.stdout.write(f"Wrote {', '.join(added)} to {path} (local development only).")
