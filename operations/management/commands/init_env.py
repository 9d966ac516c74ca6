"""Create or complete the local `.env` so every `manage.py` command works outside `make`.

`make run` calls this on each start. A missing `.env` is created with DEBUG=true and a
generated SECRET_KEY; an existing one only gets the keys it lacks (nothing is overwritten,
no key is written twice). The file holds the secret key, so it is made private (0600), an
existing group- or world-readable one included. A symbolic link is refused, never followed:
writing through it would put the key wherever it points. Runs without system checks: it is
what makes lago.E001 go away.
"""

import errno
import os
import re
import secrets
import stat
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

LOCAL_DEFAULTS = {"DEBUG": lambda: "true", "SECRET_KEY": lambda: secrets.token_urlsafe(50)}
# The lines django-environ's read_env takes as settings (`KEY=value`, `export KEY=value`):
# a key is present exactly when the settings will see it.
ASSIGNMENT = re.compile(r"(?:export )?([A-Za-z_0-9]+)=")
HEADER = (
    "# Local development settings, created by `make run` (git-ignored). "
    "See README, Configuration.\n"
)
PRIVATE = 0o600


class EnvFileError(Exception):
    """The .env cannot be completed safely; the message says how to fix it."""


def _symlink_error(path):
    return EnvFileError(
        f"{path} is a symbolic link; init_env does not follow it (the secret key would be "
        f"written to the file it points to). Replace it with a regular file: "
        f'cp --remove-destination "$(readlink -f {path})" {path}, or delete it.'
    )


def _open(path):
    """(file descriptor, created) for `path`, refusing a symbolic link even if one appears now."""
    flags = os.O_RDWR | os.O_APPEND | os.O_NOFOLLOW
    try:
        return os.open(path, flags), False
    except FileNotFoundError:
        pass
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _symlink_error(path) from None
        raise EnvFileError(f"cannot open {path}: {exc.strerror}") from None
    try:
        return os.open(path, flags | os.O_CREAT | os.O_EXCL, PRIVATE), True
    except OSError as exc:
        # EEXIST: a dangling symbolic link (or a file created since); never write through it.
        if exc.errno in {errno.ELOOP, errno.EEXIST} and Path(path).is_symlink():
            raise _symlink_error(path) from None
        raise EnvFileError(f"cannot create {path}: {exc.strerror}") from None


def present_keys(text):
    return {m.group(1) for line in text.splitlines() if (m := ASSIGNMENT.match(line))}


def ensure_local_env(path: Path) -> tuple[list[str], int | None]:
    """Adds DEBUG and SECRET_KEY to the file at `path` when absent and makes it 0600.

    Returns (the names added, the file's former mode if it was readable by others, else None).
    """
    if Path(path).is_symlink():
        raise _symlink_error(path)
    fd, created = _open(path)
    with os.fdopen(fd, "r+", encoding="utf-8") as env_file:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise EnvFileError(
                f"{path} is not a regular file; move it away and run init_env again."
            )
        mode = stat.S_IMODE(status.st_mode)
        loosened = mode if mode & 0o077 and not created else None
        if mode != PRIVATE:
            os.fchmod(fd, PRIVATE)
        try:
            text = env_file.read()
        except UnicodeDecodeError as exc:
            raise EnvFileError(f"{path} is not UTF-8 text ({exc}); fix or remove it.") from None
        missing = [name for name in LOCAL_DEFAULTS if name not in present_keys(text)]
        if missing:
            lines = [f"{name}={LOCAL_DEFAULTS[name]()}" for name in missing]
            separator = "\n" if text and not text.endswith("\n") else ""
            env_file.write(separator + ("" if text else HEADER) + "\n".join(lines) + "\n")
    return missing, loosened


class Command(BaseCommand):
    help = (
        "Create the local .env (DEBUG=true, a generated SECRET_KEY) or add those keys if missing."
    )
    requires_system_checks = []

    def handle(self, *args, **options):
        path = Path(settings.BASE_DIR) / ".env"
        try:
            added, loosened = ensure_local_env(path)
        except EnvFileError as exc:
            raise CommandError(str(exc)) from None
        if loosened is not None:
            self.stdout.write(
                self.style.WARNING(
                    f"{path} was readable by others (mode {loosened:04o}); it is 0600 now."
                )
            )
        if added:
            self.stdout.write(f"Wrote {', '.join(added)} to {path} (local development only).")
