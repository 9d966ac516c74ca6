"""`make run` prints the system-check warnings (the missing-token lago.W001) once per start, not
once per command."""

import re
import shlex

import pytest
from django.conf import settings
from django.core.management import get_commands, load_command_class

INVOCATION = re.compile(r"python manage\.py ([a-z_]+)([^;\n']*)")


def _run_recipe():
    lines = (
        (settings.BASE_DIR / "Makefile")
        .read_text()
        .split("\nrun: $(VENV)/.runtime\n", 1)[1]
        .split("\n\n", 1)[0]
    )
    return lines


def _invocations(text):
    return [(name, shlex.split(args)) for name, args in INVOCATION.findall(text)]


def _prints_checks(name, args):
    if "--skip-checks" in args:
        return False
    if name in {
        "check",
        "runserver",
    }:  # runserver checks by itself, not through requires_system_checks
        return True
    command = load_command_class(get_commands()[name], name)
    return command.requires_system_checks == "__all__"  # a tag list leaves lago.W001 (untagged) out


@pytest.mark.parametrize("procfile", ["Procfile", "Procfile.bot"])
def test_make_run_runs_the_checks_once(procfile):
    invocations = _invocations(_run_recipe()) + _invocations(
        (settings.BASE_DIR / procfile).read_text()
    )
    assert {name for name, _ in invocations} >= {"migrate", "runserver", "qcluster"}
    checking = [name for name, args in invocations if _prints_checks(name, args)]
    assert checking == ["check"]
