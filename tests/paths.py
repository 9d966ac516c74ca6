"""Where the shared recorded fixtures live (beside the checkout, never in it)."""

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
WILLHABEN_FIXTURES = (
    Path(os.environ.get("LAGO_FIXTURES_DIR", REPO.parent / "shared" / "fixtures")) / "willhaben"
)


def willhaben_fixture(name):
    """Path of a recorded willhaben response; skips the test when shared/ is absent (fails under
    CI)."""
    path = WILLHABEN_FIXTURES / name
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
