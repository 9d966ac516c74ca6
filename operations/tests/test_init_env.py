"""First login: after `make run`'s init_env, manage.py works in a shell with no environment."""

import shutil
import subprocess
import sys

from django.conf import settings

from operations.management.commands.init_env import ensure_local_env

PROJECT_PARTS = [
    "manage.py",
    "lib",
    "lago",
    "tracker",
    "notifications",
    "scraping",
    "operations",
    "templates",
]


def _copy_project(tmp_path):
    for part in PROJECT_PARTS:
        source = settings.BASE_DIR / part
        if source.is_dir():
            shutil.copytree(
                source, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__", "tests")
            )
        else:
            shutil.copy(source, tmp_path / part)
    return tmp_path


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
    project = _copy_project(tmp_path)
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
    assert ensure_local_env(path) == ["SECRET_KEY"]
    text = path.read_text()
    assert "TELEGRAM_BOT_TOKEN=123:abc\nDEBUG=false\n" in text and "DEBUG=true" not in text
    secret_line = next(line for line in text.splitlines() if line.startswith("SECRET_KEY="))
    assert len(secret_line) > 50
    assert ensure_local_env(path) == []
    assert path.read_text() == text
