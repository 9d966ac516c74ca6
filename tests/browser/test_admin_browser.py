"""The operator's admin in a real headless Chromium (fixtures in conftest.py)."""

import datetime as dt
from decimal import Decimal

import pytest
from django.utils import timezone

from scraping.models import ScrapeRun
from tests.factories import make_ad, make_keyword
from tracker.models import KeywordAd, PriceChange

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def operator_data(django_user_model):
    django_user_model.objects.create_superuser("operator", "op@example.invalid", "s3cret-pass")
    kw = make_keyword(name="Lego Technic", query="lego 42100")
    ScrapeRun.objects.create(
        keyword=kw, source="willhaben", status="failed", error="timeout", finished_at=timezone.now()
    )
    first_seen = timezone.now() - dt.timedelta(days=10)
    ad = make_ad(
        title="Lego Technic Liebherr R 9800", price=Decimal("380"), first_seen_at=first_seen
    )
    KeywordAd.objects.create(keyword=kw, ad=ad)
    for days, old, new in [(7, "450", "420"), (4, "420", None), (2, None, "380")]:
        seen_at = timezone.now() - dt.timedelta(days=days)
        PriceChange.objects.create(
            ad=ad, old_price=old and Decimal(old), new_price=new and Decimal(new), seen_at=seen_at
        )
    return kw, ad


def test_operator_logs_in_runs_a_keyword_and_sees_a_price_chart(
    operator_data, live_server, browser_page, shots
):
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
    assert "als Lauf" in page.inner_text(
        ".messagelist"
    )  # "„…“ als Lauf N eingereiht." (German admin)
    assert ScrapeRun.objects.filter(keyword=keyword, status=ScrapeRun.Status.RUNNING).exists()
    page.screenshot(path=shots / "2-keywords-run-now.png", full_page=True)

    page.goto(f"{live_server.url}/admin/tracker/ad/{ad.pk}/change/")
    chart = page.locator("svg.price-chart")
    assert chart.count() == 1 and chart.is_visible()
    assert "€ 450" in chart.inner_html()
    page.screenshot(path=shots / "3-ad-price-history.png", full_page=True)
    assert len(list(shots.glob("*.png"))) == 3
