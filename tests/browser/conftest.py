"""Headless Chromium (Debian's package, driven by Playwright) for the admin's browser tests.

Skips when Chromium is absent outside CI; in CI (CI set) its absence is a failure.
Screenshots go to tests/browser/artifacts/<test>/ (gitignored; a CI job uploads that folder), or to
LAGO_SCREENSHOTS/<test>/; the folder is printed.
"""

import os
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def live_server_sessions_ended(django_db_setup, django_db_blocker):
    """At the end of the session (before the test database is dropped), not after each test:
    the session-wide live server serves the next browser test with the same threads."""
    yield
    with django_db_blocker.unblock():
        end_live_server_sessions()


@pytest.fixture
def chromium(monkeypatch, live_server_sessions_ended):
    """A launched browser; pages come from chromium.new_page(viewport=...)."""
    if not os.path.exists(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing in CI: .ci/run installs Debian's chromium package")
        pytest.skip(
            f"{CHROMIUM} not found: apt-get install chromium (CI installs it and fails without it)"
        )
    sync_playwright = pytest.importorskip("playwright.sync_api").sync_playwright
    # Playwright's sync API keeps an event loop running in this thread; Django's ORM calls here stay
    # plain sync code.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()


@pytest.fixture
def browser_page(chromium):
    return chromium.new_page(viewport={"width": 1400, "height": 900})


def end_live_server_sessions():
    """The session-wide live server answers keep-alive connections in threads that
    close their database connection only when the socket closes, which may be after
    pytest drops the test database ("being accessed by other users"). End them here."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = "
            "current_database() AND pid <> pg_backend_pid()"
        )


ARTIFACTS = Path(__file__).resolve().parent / "artifacts"


@pytest.fixture
def shots(request):
    """The test's screenshot folder, emptied of an earlier run's pictures."""
    folder = Path(os.environ.get("LAGO_SCREENSHOTS") or ARTIFACTS) / request.node.name
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.png"):
        old.unlink()
    yield folder
    print(f"screenshots in {folder}: {sorted(p.name for p in folder.glob('*.png'))}")


def log_in(page, url, username="operator", password="s3cret-pass"):
    page.goto(f"{url}/admin/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("input[type=submit]")
    page.wait_for_selector("#lago-dashboard")
