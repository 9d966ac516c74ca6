"""manage.py scrape against the fake willhaben server."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from scraping.models import ScrapeRun
from tests.factories import make_keyword
from tests.fakes.willhaben_factory import make_raw_ads
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
    assert ScrapeRun.objects.get().status == "done"


def test_adhoc_query_is_a_dry_run(willhaben_server):
    willhaben_server.set_ads(make_raw_ads(5))
    out = run("rtx 3080", "--pages", "1")
    assert "dry run" in out and Ad.objects.count() == 0
    assert willhaben_server.search_requests()[0].param("keyword") == "rtx 3080"


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
