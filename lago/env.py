"""Reading the environment strictly (a bad boolean is an error, not False), and secrets from
files."""

from pathlib import Path

import environ


def _strict_bool(value):
    lowered = str(value).strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off", ""}:
        return False
    raise environ.ImproperlyConfigured(f"not a boolean: {value!r} (use true or false)")


class StrictEnv(environ.Env):
    def bool(self, var, default=environ.Env.NOTSET):
        return _strict_bool(self.get_value(var, cast=str, default=default))


def read_env(dotenv):
    """The strict reader, after loading `dotenv` (a local .env, e.g. written by `init_env`) if it
    exists."""
    if Path(dotenv).exists():
        environ.Env.read_env(dotenv)
    return StrictEnv()


def secret(name, default=""):
    """A secret from NAME_FILE (a compose/systemd secret file; trailing newline dropped), else
    NAME."""
    path = StrictEnv().str(f"{name}_FILE", default="")
    if not path:
        return StrictEnv().str(name, default=default)
    try:
        return Path(path).read_text(encoding="utf-8").rstrip("\r\n")
    except OSError as exc:
        raise environ.ImproperlyConfigured(f"{name}_FILE: cannot read {path}: {exc}") from exc
