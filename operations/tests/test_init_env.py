"""First login: after `make run`'s init_env, manage.py works in a shell with no environment."""

import io
import stat
import subprocess
import sys

import pytest
from django.core.management import CommandError, call_command

from operations.management.commands.init_env import ensure_local_env
from tests.processes import copy_project

PROJECT_PARTS = [
    "manage.py",
    "lago",
    "lib",
    "tracker",
    "notifications",
    "scraping",
    "operations",
    "templates",
]


def _manage(project, *args):
    # No environment at all: what a user's fresh shell gives manage.py (apart from PATH).
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=project,
        env={},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_manage_py_works_without_environment_after_init_env(tmp_path):
    project = copy_project(tmp_path, PROJECT_PARTS)
    before = _manage(project, "check")
    assert "lago.E001" in before.stderr  # the defect: only `make` had SECRET_KEY/DEBUG

    created = _manage(project, "init_env")
    assert created.returncode == 0, created.stderr
    env_text = (project / ".env").read_text()
    assert "DEBUG=true" in env_text and "SECRET_KEY=" in env_text

    after = _manage(project, "check")
    assert after.returncode == 0, after.stderr
    assert "lago.E001" not in after.stderr


def test_init_env_keeps_existing_values_and_adds_only_missing(tmp_path):
    path = tmp_path / ".env"
    path.write_text("TELEGRAM_BOT_TOKEN=123:abc\nDEBUG=false")
    path.chmod(0o600)
    assert ensure_local_env(path) == (["SECRET_KEY"], None)
    text = path.read_text()
    assert "TELEGRAM_BOT_TOKEN=123:abc\nDEBUG=false\n" in text and "DEBUG=true" not in text
    secret_line = next(line for line in text.splitlines() if line.startswith("SECRET_KEY="))
    assert len(secret_line) > 50
    assert ensure_local_env(path) == ([], None)
    assert path.read_text() == text


def mode(path):
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def project(settings, tmp_path):
    settings.BASE_DIR = tmp_path
    return tmp_path


def init_env():
    out = io.StringIO()
    call_command("init_env", stdout=out)
    return out.getvalue()


def test_a_new_env_is_private(project):
    assert "SECRET_KEY" in init_env()
    assert mode(project / ".env") == 0o600


def test_exported_keys_count_and_no_second_key_is_appended(project):
    env = project / ".env"
    env.write_text(
        "export SECRET_KEY=kept-secret-value-kept-secret-value-kept\nexport DEBUG=true\n"
    )
    env.chmod(0o600)
    assert init_env() == ""
    assert env.read_text().count("SECRET_KEY") == 1
    assert "kept-secret-value" in env.read_text()


def test_a_world_readable_env_is_tightened_and_says_so(project):
    env = project / ".env"
    env.write_text("SECRET_KEY=kept\nDEBUG=true\n")
    env.chmod(0o644)
    out = init_env()
    assert mode(env) == 0o600
    assert "readable by others (mode 0644)" in out and "0600" in out
    assert env.read_text() == "SECRET_KEY=kept\nDEBUG=true\n"


def test_a_symlinked_env_is_refused_and_its_target_untouched(project, tmp_path_factory):
    target = tmp_path_factory.mktemp("elsewhere") / "shared.conf"
    target.write_text("OTHER=1\n")
    target.chmod(0o644)
    (project / ".env").symlink_to(target)
    with pytest.raises(CommandError, match="symbolic link.*Replace it with a regular file"):
        init_env()
    assert target.read_text() == "OTHER=1\n" and mode(target) == 0o644


def test_a_dangling_symlink_is_refused_and_nothing_is_created(project, tmp_path_factory):
    target = tmp_path_factory.mktemp("elsewhere") / "missing.env"
    (project / ".env").symlink_to(target)
    with pytest.raises(CommandError, match="symbolic link"):
        init_env()
    assert not target.exists()
