"""The image is reproducible: exact base tag, hashed lock file, numeric user (no Docker engine
here)."""

import re
from pathlib import Path

from django.conf import settings

BASE = Path(settings.BASE_DIR)
DOCKERFILE = (BASE / "Dockerfile").read_text()
LOCK = (BASE / "requirements.lock").read_text()


def pins(text):
    return {
        m[0].lower().replace("_", "-"): m[1]
        for m in re.findall(r"^([A-Za-z0-9_.\-\[\]]+)==(\S+)", text, re.M)
    }


def test_base_image_is_an_exact_version_and_digest():
    base = re.search(r"^FROM (\S+)", DOCKERFILE, re.M)[1]
    assert re.fullmatch(r"python:3\.11\.\d+-slim-bookworm@sha256:[0-9a-f]{64}", base), base


def test_the_image_installs_the_hashed_lock_only():
    assert "pip install --no-deps --require-hashes -r requirements.lock" in DOCKERFILE
    assert (
        "requirements.txt"
        not in DOCKERFILE.split("COPY requirements.lock")[1].split("COPY --chown")[0]
    )


def test_the_lock_holds_every_pin_of_requirements_txt_with_hashes():
    wanted = pins((BASE / "requirements.txt").read_text())
    locked = pins(LOCK)
    assert {name: locked.get(name) for name in wanted} == wanted, (
        "regenerate: pip-compile --generate-hashes (docs/operations.md)"
    )
    body = "\n".join(line for line in LOCK.splitlines() if not line.startswith("#"))
    entries = re.split(r"\n(?=[A-Za-z])", body.strip())
    assert len(entries) == len(locked)
    for entry in entries:
        assert "--hash=sha256:" in entry, entry.splitlines()[0]
    assert "--index-url" not in LOCK and "--find-links" not in LOCK


def test_the_app_runs_as_a_numeric_user_that_owns_var():
    assert re.search(r"^USER 1000:1000$", DOCKERFILE, re.M)
    assert "chown 1000:1000 var" in DOCKERFILE
