"""manage.py scrape against the fake willhaben server."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from scraping.models import ScrapeRun
from tests.factories import make_keyword
from tests.fakes.willhaben_factory import make_raw_ad, make_raw_ads, set_price
from tracker.models import Ad

pytestmark = pytest.mark.django_db


def run(*args):
    out = StringIO()
    call_command("scrape", *args, stdout=out)
    return out.getvalue()


def test_scrape_keyword_id_stores_and_records_a_run(willhaben_server):
    willhaben_server.set_ads(make_raw_ads(40))
    keyword = make_keyword()
    out = run(str(keyword.pk))
    assert "page 1: 30 ads" in out and "page 2: 10 ads" in out
    assert out.count("new ") == 40 and "2 page(s), 40 ads, 40 new" in out
    assert Ad.objects.count() == 40
    assert (ScrapeRun.objects.get().status, ScrapeRun.objects.get().kind) == ("done", "manual")


def test_adhoc_query_is_a_dry_run(willhaben_server):
    willhaben_server.set_ads(make_raw_ads(5))
    out = run("rtx 3080", "--pages", "1")
    assert "dry run" in out and Ad.objects.count() == 0
    assert willhaben_server.search_requests()[0].param("keyword") == "rtx 3080"


def test_table_shows_prices_in_the_one_format(willhaben_server):
    willhaben_server.set_ads(
        [make_raw_ad(price="673.59"), make_raw_ad(price="0"), make_raw_ad(price=None)]
    )
    out = run("rtx 3080", "--pages", "1")
    assert "€ 673,59" in out and "zu verschenken" in out and "Preis auf Anfrage" in out
    assert "EUR" not in out


def test_dry_run_shows_known_ads(willhaben_server):
    willhaben_server.set_ads(make_raw_ads(5))
    keyword = make_keyword()
    run(str(keyword.pk))
    out = run(str(keyword.pk), "--dry-run")
    assert out.count("known ") == 5 and ScrapeRun.objects.count() == 1


def test_failure_exits_non_zero(willhaben_server):
    willhaben_server.mode = "html_challenge"
    with pytest.raises(CommandError, match="banned: challenge"):
        run(str(make_keyword().pk))
    assert ScrapeRun.objects.get().status == "banned"


def test_unknown_keyword_id():
    with pytest.raises(CommandError, match="no keyword"):
        run("999999")


def test_a_keyword_already_running_is_skipped_like_run_now(willhaben_server):
    keyword = make_keyword()
    ScrapeRun.objects.create(keyword=keyword, source=keyword.source)
    with pytest.raises(CommandError, match="not started: already_running"):
        run(str(keyword.pk))
    skip = ScrapeRun.objects.get(status=ScrapeRun.Status.SKIPPED)
    assert skip.error == "already_running" and skip.keyword == keyword
    assert willhaben_server.search_requests() == []


def test_a_run_by_hand_moves_the_next_window_like_run_now(willhaben_server, settings):
    settings.SCHEDULER_JITTER_S = 10
    willhaben_server.set_ads(make_raw_ads(3))
    keyword = make_keyword(interval_minutes=30)
    before = timezone.now()
    run(str(keyword.pk))
    keyword.refresh_from_db()
    # The jitter moves a window earlier, never later (scraping/claims.py).
    assert keyword.next_run_at >= before + timedelta(minutes=30, seconds=-10)


def test_marketplace_text_cannot_drive_the_terminal(willhaben_server):
    """ESC sequences, CR and newline in a title or id are printed as escapes, not obeyed."""
    title = "\x1b[2J\x1b]0;pwned\x07Grafikkarte\rnew  1  € 1  forged\n\x9b31mred"
    willhaben_server.set_ads([make_raw_ad(ad_id="77\x1b[8m", title=title)])
    out = run(str(make_keyword().pk))
    assert not any(ch in out for ch in "\x1b\x07\r\x9b")
    lines = out.splitlines()
    assert not any(line.startswith("new  1") or line.startswith("\\x9b") for line in lines)
    (row,) = [line for line in lines if "Grafikkarte" in line]
    assert row.startswith("new ") and "77\\x1b[8m" in row
    assert "\\x1b[2J\\x1b]0;pwned\\x07Grafikkarte\\rnew  1  € 1  forged\\n\\x9b31mred" in row


def test_bad_ads_are_reported_with_their_reason(willhaben_server):
    ads = make_raw_ads(3)
    set_price(ads[1], "\x1b[31m-50")
    willhaben_server.set_ads(ads)
    out = run(str(make_keyword().pk))
    assert "2 ads, 2 new" in out
    assert "skipped 1 ad(s) that cannot be stored" in out and "\x1b" not in out
