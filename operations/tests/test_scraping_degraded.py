"""Done-when of issue 14: a failing marketplace makes Lago degraded and reaches an admin."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from notifications.models import Notification
from scraping.models import ScrapeRun
from tests.factories import make_chat, make_keyword
from tests.fakes.willhaben_factory import make_raw_ads
from tracker.models import Heartbeat

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


@pytest.fixture
def setup(willhaben_server, settings):
    settings.HTTP_RETRIES = 0
    settings.TELEGRAM_BOT_TOKEN = ""  # no bot to check: only scraping can spoil the verdict
    Heartbeat.beat("scheduler")
    make_chat(is_admin=True)
    return willhaben_server, make_keyword(name="rtx")


def scrape(keyword):
    call_command("scrape", str(keyword.pk), stdout=StringIO())


def failing_scrape(keyword):
    with pytest.raises(CommandError):
        scrape(keyword)


def status_exit():
    out = StringIO()
    try:
        call_command("status", stdout=out)
    except SystemExit as exc:
        return exc.code, out.getvalue()
    return 0, out.getvalue()


def alerts():
    return list(
        Notification.objects.filter(kind=Notification.Kind.ALERT)
        .order_by("id")
        .values_list("text", flat=True)
    )


def test_three_503_runs_degrade_alert_once_and_a_good_run_recovers(setup, client):
    server, keyword = setup
    server.fail_next(503, times=4)  # HTTP_RETRIES=0: one request per run
    for _ in range(2):
        failing_scrape(keyword)
    assert client.get("/health").json()["status"] == "ok"
    assert alerts() == []

    failing_scrape(keyword)
    response = client.get("/health")
    assert response.status_code == 200
    assert response.json()["status"] == "degraded"
    assert "scraping_failing:willhaben:http_5xx" in response.json()["problems"]
    code, out = status_exit()
    assert code == 2
    assert f"keyword #{keyword.pk} rtx: 3 failed runs in a row, last failed: http_5xx" in out
    assert "503" in out  # the full last error detail
    failing_scrape(keyword)  # the state holds: no second alert
    assert len(alerts()) == 1 and "server error" in alerts()[0] and "rtx" in alerts()[0]

    server.set_ads(make_raw_ads(3))
    scrape(keyword)
    response = client.get("/health")
    assert (response.status_code, response.json()["status"], response.json()["problems"]) == (
        200,
        "ok",
        [],
    )
    assert status_exit()[0] == 0
    assert len(alerts()) == 2 and "recovered" in alerts()[1]


def test_a_challenge_page_alerts_after_the_first_run(setup, client):
    server, keyword = setup
    server.mode = "html_challenge"
    failing_scrape(keyword)
    body = client.get("/health").json()
    assert body["status"] == "degraded"
    assert body["problems"][0].startswith("scraping_failing:willhaben:")
    assert len(alerts()) == 1 and "bot-protection page" in alerts()[0]


def test_skipped_runs_neither_count_nor_break_the_streak(setup, client):
    server, keyword = setup
    server.fail_next(503, times=10)
    failing_scrape(keyword)
    ScrapeRun.record_skip(keyword, "already_running")
    failing_scrape(keyword)
    ScrapeRun.record_skip(keyword, "source_unavailable")
    assert client.get("/health").json()["status"] == "ok"
    failing_scrape(keyword)
    assert client.get("/health").json()["status"] == "degraded"


def test_status_check_ignores_scraping(setup):
    server, keyword = setup
    server.mode = "html_challenge"
    failing_scrape(keyword)
    call_command("status", "--check", "scheduler", stdout=StringIO())  # no SystemExit


def test_no_success_for_stale_minutes_degrades(setup, client, settings):
    settings.SCRAPE_STALE_MINUTES = 0
    assert "scraping_stale:willhaben:no_success_0m" in client.get("/health").json()["problems"]


def test_zero_result_alert_names_the_failures(setup, settings):
    settings.ZERO_RESULT_STREAK = 3
    server, keyword = setup
    server.fail_next(503, times=3)
    for _ in range(3):
        failing_scrape(keyword)
    zero = [text for text in alerts() if "found no ads" in text]
    assert (
        len(zero) == 1
        and "3 runs: 3 × willhaben has a server error" in zero[0]
        and "site may have changed" not in zero[0]
    )


def test_status_shows_the_last_run_not_a_later_skip(setup):
    server, keyword = setup
    server.fail_next(503, times=1)
    failing_scrape(keyword)
    ScrapeRun.record_skip(keyword, "already_running")  # a second Run now click
    _, out = status_exit()
    row = next(
        line
        for line in out.splitlines()
        if line.strip().startswith(f"{keyword.pk} ") and "rtx" in line
    )
    assert "failed:http_5xx" in row


def test_metrics_show_the_source_down_and_the_failure_streak(setup, client):
    server, keyword = setup
    server.fail_next(503, times=3)
    for _ in range(3):
        failing_scrape(keyword)
    text = client.get("/metrics").content.decode()
    assert 'lago_source_up{source="willhaben"} 0.0' in text
    assert "lago_degraded 1.0" in text
    assert (
        "lago_keyword_consecutive_failures"
        f'{{keyword="rtx",keyword_id="{keyword.pk}",source="willhaben"}} 3.0'
    ) in text


def test_dashboard_badge_is_amber_with_the_reason(setup, admin_client):
    server, keyword = setup
    server.mode = "html_challenge"
    failing_scrape(keyword)
    html = admin_client.get("/admin/").content.decode()
    assert (
        '<span class="lago-badge lago-amber">degraded</span> <code>scraping_failing:willhaben:'
        in html
    )


def test_one_failed_run_is_singular(setup, settings):
    settings.SCRAPE_FAILURE_STREAK = 1
    server, keyword = setup
    server.fail_next(503, times=1)
    failing_scrape(keyword)
    out = status_exit()[1]
    assert f"keyword #{keyword.pk} rtx: 1 failed run in a row, last failed: http_5xx" in out
