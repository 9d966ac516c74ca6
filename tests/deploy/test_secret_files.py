"""Every secret setting also reads NAME_FILE (compose `secrets:`, systemd credentials)."""

import json
import os

import pytest

from tests.processes import run_python

SECRETS = ["SECRET_KEY", "TELEGRAM_BOT_TOKEN", "STATS_TOKEN", "DJANGO_SUPERUSER_PASSWORD"]
SHOW = (
    "import django, json; django.setup(); from django.conf import settings as s; "
    f"print(json.dumps({{n: getattr(s, n) for n in {SECRETS!r}}} | "
    f"{{'DB': s.DATABASES['default']['NAME']}}))"
)


def settings_with(**env_vars):
    env = {k: v for k, v in os.environ.items() if not k.endswith("_FILE")}
    env.update(DJANGO_SETTINGS_MODULE="lago.settings", **env_vars)
    return run_python(SHOW, env)


def test_file_values_win_and_lose_their_trailing_newline(tmp_path):
    files = {}
    for name in SECRETS:
        path = tmp_path / name.lower()
        path.write_text(f"from-file-{name}\n")
        files[f"{name}_FILE"] = str(path)
    db_file = tmp_path / "database_url"
    db_file.write_text(f"sqlite:///{tmp_path / 'secret.sqlite3'}\n")
    result = settings_with(
        **files, DATABASE_URL_FILE=str(db_file), SECRET_KEY="from-env", STATS_TOKEN="from-env"
    )
    assert result.returncode == 0, result.stderr
    values = json.loads(result.stdout)
    assert {name: values[name] for name in SECRETS} == {
        name: f"from-file-{name}" for name in SECRETS
    }
    assert values["DB"] == str(tmp_path / "secret.sqlite3")


def test_without_a_file_the_variable_is_read():
    result = settings_with(STATS_TOKEN="plain-token", DJANGO_SUPERUSER_PASSWORD="plain-pass")
    assert result.returncode == 0, result.stderr
    values = json.loads(result.stdout)
    assert (values["STATS_TOKEN"], values["DJANGO_SUPERUSER_PASSWORD"]) == (
        "plain-token",
        "plain-pass",
    )


@pytest.mark.parametrize("name", SECRETS + ["DATABASE_URL"])
def test_a_missing_file_is_a_clear_error(tmp_path, name):
    result = settings_with(**{f"{name}_FILE": str(tmp_path / "nope")})
    assert result.returncode != 0
    assert f"{name}_FILE: cannot read {tmp_path / 'nope'}" in result.stderr
