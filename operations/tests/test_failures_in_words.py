"""The dashboard and the run page say in words what failed and what to do; slugs stay small."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from scraping.models import ScrapeRun
from tests.factories import make_chat, make_keyword
from tracker.models import Heartbeat

pytestmark = pytest.mark.django_db


@pytest.fixture
def banned_keywords(willhaben_server, settings):
    """Two willhaben keywords whose last run met a bot-protection page."""
    settings.HTTP_RETRIES = 0
    settings.TELEGRAM_BOT_TOKEN = ""
    Heartbeat.beat("scheduler")
    make_chat(is_admin=True)
    willhaben_server.mode = "html_challenge"
    keywords = [make_keyword(name="rennrad"), make_keyword(name="laptop")]
    for keyword in keywords:
        with pytest.raises(CommandError):
            call_command("scrape", str(keyword.pk), stdout=StringIO())
    return keywords


def test_dashboard_explains_a_challenge_in_german(admin_client, banned_keywords):
    html = admin_client.get(reverse("admin:index")).content.decode()
    explained = (
        "willhaben zeigt eine Bot-Abwehrseite statt Ergebnissen. Was tun: Intervall erhöhen "
        "oder SCRAPE_PROXY_URL setzen."
    )
    # The health line, once per source and error, the slug beside it.
    assert html.count(f"<strong>willhaben:</strong> {explained}") == 1
    assert '<code class="lago-muted">challenge</code>' in html
    # Open alerts: the failing keywords, with the same words.
    alerts = html.split("Suchbegriffe mit offenen Meldungen", 1)[1].split("</div>", 1)[0]
    for keyword in banned_keywords:
        assert f'<a href="/admin/tracker/keyword/{keyword.pk}/change/">{keyword.name}</a>' in alerts
    assert alerts.count(explained) == 2 and "schlägt fehl seit" in alerts
    assert "Keine." not in alerts
    # Problem runs: words, not the raw detail.
    assert "gesperrt (429)" not in html and "&lt;!DOCTYPE" not in html


def test_dashboard_explains_a_challenge_in_english(admin_client, banned_keywords, english):
    html = admin_client.get(reverse("admin:index")).content.decode()
    assert (
        "<strong>willhaben:</strong> willhaben shows a bot-protection page instead of results. "
        "What to do: raise the interval or set SCRAPE_PROXY_URL."
    ) in html
    assert html.count("failing since") == 2


def test_run_page_says_what_happened_and_what_to_do(admin_client, banned_keywords):
    run = ScrapeRun.objects.filter(keyword=banned_keywords[0]).get()
    url = reverse("admin:scraping_scraperun_change", args=[run.pk])
    html = admin_client.get(url).content.decode()
    assert (
        "willhaben zeigt eine Bot-Abwehrseite statt Ergebnissen<br>Was tun: Intervall erhöhen "
        "oder SCRAPE_PROXY_URL setzen"
    ) in html
    assert ">gesperrt<" in html and "gesperrt (429)" not in html
    # The detail of an HTML answer as its plain words, not the page's markup.
    assert "(status None): Just a moment... Checking your browser" in html
    assert "&lt;!DOCTYPE" not in html and "&lt;title&gt;" not in html


def test_run_page_in_english(admin_client, english):
    keyword = make_keyword(name="rennrad")
    run = ScrapeRun.objects.create(keyword=keyword, source="willhaben")
    run.close(ScrapeRun.Status.FAILED, "zombie", "still running after 30 minutes")
    html = admin_client.get(reverse("admin:scraping_scraperun_change", args=[run.pk])).content
    assert (
        "the run did not finish: its worker died or hung<br>What to do: check that qcluster is "
        "running and its log; the keyword runs again"
    ) in html.decode()


def test_keywords_with_an_open_alert_include_failing_ones(admin_client, banned_keywords):
    url = reverse("admin:tracker_keyword_changelist") + "?alert=yes"
    html = admin_client.get(url).content.decode()
    for keyword in banned_keywords:
        assert f"/admin/tracker/keyword/{keyword.pk}/change/" in html


def test_keyword_page_lists_runs_with_their_failure_in_words(admin_client, banned_keywords):
    url = reverse("admin:tracker_keyword_change", args=[banned_keywords[0].pk])
    html = admin_client.get(url).content.decode()
    assert (
        '<span title="challenge">willhaben zeigt eine Bot-Abwehrseite statt Ergebnissen</span>'
    ) in html


def test_a_source_without_success_is_explained(admin_client, banned_keywords, settings):
    settings.SCRAPE_STALE_MINUTES = 0
    html = admin_client.get(reverse("admin:index")).content.decode()
    assert (
        "<strong>willhaben:</strong> kein Lauf von willhaben war seit langem erfolgreich "
        "(SCRAPE_STALE_MINUTES). Was tun: die letzten Läufe der Quelle öffnen: ihre Fehler sagen, "
        'warum. <code class="lago-muted">no_success</code>'
    ) in html
