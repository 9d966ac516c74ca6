"""The operator's admin in a real headless Chromium (Debian's package, driven by Playwright).

Screenshots go to a temporary folder (printed; kept with LAGO_SCREENSHOTS=<dir>).
Skips when Chromium is absent outside CI; in CI (CI set) its absence is a failure.
"""

import datetime as dt
import os
from decimal import Decimal
from pathlib import Path

import pytest
from django.utils import timezone

from scraping.models import ScrapeRun
from tests.factories import make_ad, make_keyword
from tracker.models import KeywordAd, PriceChange

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

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def browser_page(monkeypatch):
    if not os.path.exists(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing in CI: .ci/run installs Debian's chromium package")
        pytest.skip(f"{CHROMIUM} not found: apt-get install chromium (CI installs it and fails without it)")
    sync_playwright = pytest.importorskip("playwright.sync_api").sync_playwright
    # Playwright's sync API keeps an event loop running in this thread; Django's ORM calls here stay plain sync code.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        yield page
        browser.close()
    end_live_server_sessions()


def end_live_server_sessions():
    """The session-wide live server answers keep-alive connections in threads that
    close their database connection only when the socket closes, which may be after
    pytest drops the test database ("being accessed by other users"). End them here."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


@pytest.fixture
def shots(tmp_path):
    folder = Path(os.environ.get("LAGO_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    yield folder
    print(f"screenshots in {folder}: {sorted(p.name for p in folder.glob('*.png'))}")


@pytest.fixture
def operator_data(django_user_model):
    django_user_model.objects.create_superuser("operator", "op@example.invalid", "s3cret-pass")
    kw = make_keyword(name="Lego Technic", query="lego 42100")
    ScrapeRun.objects.create(keyword=kw, source="willhaben", status="failed", error="timeout", finished_at=timezone.now())
    first_seen = timezone.now() - dt.timedelta(days=10)
    ad = make_ad(title="Lego Technic Liebherr R 9800", price=Decimal("380"), first_seen_at=first_seen)
    KeywordAd.objects.create(keyword=kw, ad=ad)
    for days, old, new in [(7, "450", "420"), (4, "420", None), (2, None, "380")]:
        seen_at = timezone.now() - dt.timedelta(days=days)
        PriceChange.objects.create(ad=ad, old_price=old and Decimal(old), new_price=new and Decimal(new), seen_at=seen_at)
    return kw, ad


def test_operator_logs_in_runs_a_keyword_and_sees_a_price_chart(operator_data, live_server, browser_page, shots):
    keyword, ad = operator_data
    page = browser_page
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", "operator")
    page.fill("#id_password", "s3cret-pass")
    page.click("input[type=submit]")
    page.wait_for_selector("#lago-dashboard")
    assert "timeout" in page.inner_text("#lago-dashboard")
    page.screenshot(path=shots / "1-dashboard.png", full_page=True)

    page.goto(f"{live_server.url}/admin/tracker/keyword/")
    page.check(f"input[name=_selected_action][value='{keyword.pk}']")
    page.select_option("select[name=action]", "run_now")
    page.click("button[name=index]")
    page.wait_for_selector(".messagelist")
    assert "als Lauf" in page.inner_text(".messagelist")  # "„…“ als Lauf N eingereiht." (German admin)
    assert ScrapeRun.objects.filter(keyword=keyword, status=ScrapeRun.Status.RUNNING).exists()
    page.screenshot(path=shots / "2-keywords-run-now.png", full_page=True)

    page.goto(f"{live_server.url}/admin/tracker/ad/{ad.pk}/change/")
    chart = page.locator("svg.price-chart")
    assert chart.count() == 1 and chart.is_visible()
    assert "€ 450" in chart.inner_html()
    page.screenshot(path=shots / "3-ad-price-history.png", full_page=True)
    assert len(list(shots.glob("*.png"))) == 3
