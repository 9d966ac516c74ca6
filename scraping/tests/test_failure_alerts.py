"""A failing source is one admin alert naming its keywords, in words, never raw HTML."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from notifications.models import Notification
from scraping.failure_alerts import GROUP_WINDOW, check_failures, send_failure_alerts
from scraping.models import ScrapeRun
from scraping.zero_result_alerts import check_zero_results
from tests.factories import make_chat, make_keyword

pytestmark = pytest.mark.django_db

CHALLENGE_DETAIL = (
    "HTML page instead of JSON (bot challenge?) (status None): <!DOCTYPE html><html>"
    "<head><title>Just a moment...</title></head><body><p>Checking your browser</p>"
)


def alerts():
    return list(
        Notification.objects.filter(kind=Notification.Kind.ALERT)
        .order_by("id")
        .values_list("text", flat=True)
    )


def banned_run(keyword, now, error="challenge", detail=CHALLENGE_DETAIL):
    """A run that ended banned at `now`, and the monitor after it (as the scrape task does)."""
    run = ScrapeRun.objects.create(keyword=keyword, source=keyword.source, started_at=now)
    run.close(ScrapeRun.Status.BANNED, error, detail, now=now)
    return check_failures(keyword.pk, now)


def done_run(keyword, now):
    run = ScrapeRun.objects.create(keyword=keyword, source=keyword.source, started_at=now)
    run.close(ScrapeRun.Status.DONE, now=now)
    return check_failures(keyword.pk, now)


@pytest.fixture
def admin_chat():
    return make_chat(is_admin=True)


def test_three_banned_keywords_send_one_german_alert_naming_all_three(
    willhaben_server, settings, admin_chat
):
    settings.HTTP_RETRIES = 0
    willhaben_server.mode = "html_challenge"
    keywords = [make_keyword(name=name) for name in ("rennrad", "laptop", "sofa")]
    for keyword in keywords:
        with pytest.raises(CommandError):
            call_command("scrape", str(keyword.pk), stdout=StringIO())
    [text] = alerts()
    assert text.startswith("🚨 willhaben: 3 Suchbegriffe schlagen fehl.")
    assert "willhaben zeigt eine Bot-Abwehrseite statt Ergebnissen" in text
    assert "Intervall erhöhen oder SCRAPE_PROXY_URL setzen" in text
    for keyword in keywords:
        assert f"#{keyword.pk} “{keyword.name}”" in text
    assert "<" not in text and "DOCTYPE" not in text and "429" not in text


def test_keywords_failing_within_the_window_share_one_english_alert(admin_chat, english):
    now = timezone.now()
    first, second, _fine = (make_keyword(name=n) for n in ("rennrad", "laptop", "sofa"))
    assert banned_run(first, now) == "opened"
    assert banned_run(second, now + timedelta(minutes=2)) == "opened"
    assert send_failure_alerts(now + GROUP_WINDOW - timedelta(seconds=1)) == 0
    assert alerts() == []  # "sofa" may still fail: the window is open

    assert send_failure_alerts(now + GROUP_WINDOW) == 1
    assert send_failure_alerts(now + GROUP_WINDOW + timedelta(minutes=1)) == 0  # sent once
    [text] = alerts()
    assert text == (
        "🚨 willhaben: 2 keywords are failing.\n"
        "willhaben shows a bot-protection page instead of results — "
        "raise the interval or set SCRAPE_PROXY_URL.\n"
        f"Affected: #{first.pk} “rennrad”, #{second.pk} “laptop”\n"
        "Detail: HTML page instead of JSON (bot challenge?) (status None): Just a moment... "
        "Checking your browser"
    )


def test_a_failure_after_the_window_is_a_new_alert(admin_chat, english):
    now = timezone.now()
    first, later, _fine = (make_keyword(name=n) for n in ("rennrad", "laptop", "sofa"))
    banned_run(first, now)
    send_failure_alerts(now + GROUP_WINDOW)
    banned_run(later, now + GROUP_WINDOW + timedelta(minutes=1), "http_403", "403 Forbidden")
    send_failure_alerts(now + 2 * GROUP_WINDOW + timedelta(minutes=1))
    assert len(alerts()) == 2
    assert "“laptop”" in alerts()[1] and "“rennrad”" not in alerts()[1]
    assert "willhaben refuses our requests (403 Forbidden)" in alerts()[1]


def test_a_spell_that_ends_before_its_alert_says_nothing(admin_chat):
    now = timezone.now()
    keyword, _other = make_keyword(name="rennrad"), make_keyword(name="sofa")
    banned_run(keyword, now)
    assert done_run(keyword, now + timedelta(minutes=1)) == "recovered"
    send_failure_alerts(now + GROUP_WINDOW)
    assert alerts() == []


def test_recovery_after_the_alert_is_announced_in_german(admin_chat):
    now = timezone.now()
    keyword = make_keyword(name="rennrad")
    banned_run(keyword, now)  # the source's only keyword: no one else can join, sent at once
    assert len(alerts()) == 1
    done_run(keyword, now + timedelta(minutes=10))
    assert alerts()[1] == (
        f"✅ willhaben-Suchbegriff #{keyword.pk} „rennrad“ läuft wieder: der letzte Lauf war "
        "erfolgreich."
    )


def test_the_tick_sends_a_closed_window(admin_chat, willhaben_server):
    from scraping.tick import tick

    now = timezone.now() - GROUP_WINDOW - timedelta(minutes=1)
    keyword, _fine = make_keyword(name="rennrad"), make_keyword(name="sofa")
    banned_run(keyword, now)
    assert alerts() == []
    tick()
    assert len(alerts()) == 1 and "“rennrad”" in alerts()[0]


def test_zero_result_alert_names_the_failures_in_german(admin_chat, settings):
    settings.ZERO_RESULT_STREAK = 2
    now = timezone.now()
    keyword = make_keyword(name="rennrad")
    for minutes in (0, 1):
        run = ScrapeRun.objects.create(
            keyword=keyword, source="willhaben", started_at=now + timedelta(minutes=minutes)
        )
        run.close(ScrapeRun.Status.FAILED, "http_5xx", "HTTP 503 (status 503)")
    check_zero_results(keyword, now)
    [text] = alerts()
    assert text == (
        f"🔎 Suchbegriff #{keyword.pk} „rennrad“ hat keine Anzeigen gefunden: 2 Läufe: "
        "2 × willhaben hat einen Serverfehler."
    )
