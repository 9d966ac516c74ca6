"""Where the shared recorded fixtures live (beside the checkout, never in it)."""

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(os.environ.get("LAGO_FIXTURES_DIR", REPO.parent / "shared" / "fixtures"))
WILLHABEN_FIXTURES = FIXTURES / "willhaben"
KLEINANZEIGEN_FIXTURES = FIXTURES / "kleinanzeigen"
# The recorded search page (its SOURCES.md says where it comes from).
KLEINANZEIGEN_PAGE = "orangecoding__fredy__test__testFixtures__kleinanzeigen__8c5607e.html"


def willhaben_fixture(name):
    """Path of a recorded willhaben response; skips the test when shared/ is absent (fails under
    CI)."""
    return _recorded(WILLHABEN_FIXTURES / name)


def kleinanzeigen_fixture(name=KLEINANZEIGEN_PAGE):
    """Path of a recorded Kleinanzeigen page; skips the test when shared/ is absent (fails under
    CI)."""
    return _recorded(KLEINANZEIGEN_FIXTURES / name)


def _recorded(path):
    if not path.exists():
        if os.environ.get("CI"):
            pytest.fail(
                f"recorded fixture {path} is missing in CI: the shared/ folder must sit beside the "
                "checkout"
            )
        pytest.skip(
            f"recorded fixture {path} is missing: put shared/fixtures beside the checkout or set "
            "LAGO_FIXTURES_DIR"
        )
    return path
