"""What a changelist of a big table reads per page (issue 16): the keyword filter and the ads'
keyword names read three columns of the keywords, not whole rows, the names in one query per
page; the keyword filter's links stay Django's; price changes are a big table too (25 rows a
page)."""

import re
from decimal import Decimal
from html import unescape
from urllib.parse import parse_qs, urlsplit

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from scraping.models import ScrapeRun
from tests.factories import make_ad, make_keyword, make_notification
from tracker.models import KeywordAd, PriceChange

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]

# Columns of a keyword that neither its filter choice nor its name needs.
UNNEEDED = ['"next_run_at"', '"cursor_published_at"', '"zero_result_alert_at"']


def keyword_queries(client, url):
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    sql = [
        q["sql"] for q in queries.captured_queries if re.search(r'FROM "tracker_keyword"', q["sql"])
    ]
    return response.content.decode(), sql


@pytest.mark.parametrize(
    "url_name",
    [
        "admin:scraping_scraperun_changelist",
        "admin:tracker_ad_changelist",
        "admin:tracker_keywordad_changelist",
    ],
)
def test_keyword_filter_reads_three_columns_only(admin_client, url_name):
    make_keyword(name="Rennräder", query="rennrad")
    _html, sql = keyword_queries(admin_client, reverse(url_name))
    assert sql, "the keyword filter reads the keywords"
    assert [q for q in sql if any(column in q for column in UNNEEDED)] == []


def test_keyword_filter_links_filter_and_keep_the_other_parameters(admin_client):
    named, unnamed = make_keyword(name="Rennräder", query="rennrad"), make_keyword(query="sofa")
    ScrapeRun.objects.create(
        keyword=named, source="willhaben", status="failed", started_at=timezone.now()
    )
    ScrapeRun.objects.create(
        keyword=unnamed, source="willhaben", status="failed", started_at=timezone.now()
    )
    url = reverse("admin:scraping_scraperun_changelist")
    html = admin_client.get(url + "?status__exact=failed").content.decode()
    assert link(html, "Rennräder") == {
        "status__exact": ["failed"],
        "keyword__id__exact": [str(named.pk)],
    }
    assert link(html, "sofa") == {
        "status__exact": ["failed"],
        "keyword__id__exact": [str(unnamed.pk)],
    }
    assert link(html, "-") == {
        "status__exact": ["failed"],
        "keyword__isnull": ["True"],
    }  # runs of deleted keywords

    chosen = admin_client.get(url + f"?status__exact=failed&keyword__id__exact={named.pk}")
    assert [run.keyword_id for run in chosen.context["cl"].result_list] == [named.pk]
    assert re.search(
        r'<li class="selected">\s*<a href="[^"]*">Rennräder</a>', chosen.content.decode()
    )


def link(html, label):
    """The query of the filter link labelled `label`."""
    (href,) = re.findall(rf'<a href="(\?[^"]*)">{re.escape(label)}</a>', html)
    return parse_qs(urlsplit(unescape(href)).query)


def test_ad_list_names_the_keywords_from_three_columns(admin_client):
    keyword = make_keyword(name="Rennräder", query="rennrad")
    for _ in range(3):
        KeywordAd.objects.create(keyword=keyword, ad=make_ad())
    with CaptureQueriesContext(connection) as queries:
        html = admin_client.get(reverse("admin:tracker_ad_changelist")).content.decode()
    # The ad queries' EXISTS (only matched ads, by default) aside, one query reads the names.
    names = [
        q["sql"]
        for q in queries.captured_queries
        if '"tracker_keywordad"' in q["sql"] and "EXISTS" not in q["sql"].upper()
    ]
    assert len(names) == 1, names
    assert [q for q in names if any(column in q for column in UNNEEDED)] == []
    assert html.count('<td class="field-keyword_names">Rennräder</td>') == 3


def test_price_changes_are_listed_25_a_page(admin_client):
    ad = make_ad()
    PriceChange.objects.bulk_create(
        PriceChange(ad=ad, old_price=Decimal(100 + i), new_price=Decimal(99 + i)) for i in range(60)
    )
    response = admin_client.get(reverse("admin:tracker_pricechange_changelist"))
    assert len(response.context["cl"].result_list) == 25
    assert response.content.decode().count('class="action-select"') == 25


def failed_runs(n):
    keyword = make_keyword(name="Rennräder")
    ScrapeRun.objects.bulk_create(
        ScrapeRun(
            keyword=keyword,
            source="willhaben",
            status="failed",
            detail="boom",
            counters={"http_429": 1},
            started_at=timezone.now(),
        )
        for _ in range(n)
    )


def test_row_links_keep_the_filters(admin_client):
    failed_runs(2)
    url = reverse("admin:scraping_scraperun_changelist") + "?status__exact=failed"
    response = admin_client.get(url)
    run = response.context["cl"].result_list[0]
    link = (
        f'<a href="/admin/scraping/scraperun/{run.pk}/change/'
        f'?_changelist_filters=status__exact%3Dfailed">{run.pk}</a>'
    )
    assert link in response.content.decode()


def test_row_links_without_filters_are_the_change_pages(admin_client):
    failed_runs(1)
    response = admin_client.get(reverse("admin:scraping_scraperun_changelist"))
    run = response.context["cl"].result_list[0]
    assert (
        f'<a href="/admin/scraping/scraperun/{run.pk}/change/">{run.pk}</a>'
        in response.content.decode()
    )


@pytest.mark.parametrize(
    "url_name",
    ["admin:scraping_scraperun_changelist", "admin:notifications_notification_changelist"],
)
def test_no_facet_counts_on_big_tables(admin_client, url_name):
    failed_runs(1)
    with CaptureQueriesContext(connection) as queries:
        response = admin_client.get(reverse(url_name) + "?_facets=True")
    assert response.status_code == 200
    assert [q["sql"] for q in queries.captured_queries if "FILTER (WHERE" in q["sql"]] == []


def test_run_list_shows_the_keyword_name(admin_client):
    failed_runs(3)
    html = admin_client.get(reverse("admin:scraping_scraperun_changelist")).content.decode()
    assert html.count('<td class="field-keyword nowrap">Rennräder</td>') == 3


def test_price_change_list_links_the_ad_by_its_title(admin_client):
    ad = make_ad(title="Canyon Rennrad")
    PriceChange.objects.create(ad=ad, old_price=Decimal(100), new_price=Decimal(90))
    html = admin_client.get(reverse("admin:tracker_pricechange_changelist")).content.decode()
    assert ">Canyon Rennrad</a>" in html


def test_keyword_filter_escapes_the_names(admin_client):
    keyword = make_keyword(name='Rad <b>"&"</b>')
    html = admin_client.get(
        reverse("admin:scraping_scraperun_changelist") + "?q=x%26y"
    ).content.decode()
    assert (
        f'<a href="?q=x%26y&amp;keyword__id__exact={keyword.pk}">'
        "Rad &lt;b&gt;&quot;&amp;&quot;&lt;/b&gt;</a>"
    ) in html
    assert "<b>" not in html


def test_notification_list_names_the_ad(admin_client):
    make_notification(ad=make_ad(title="Canyon Rennrad"))
    html = admin_client.get(reverse("admin:notifications_notification_changelist")).content.decode()
    assert ">Canyon Rennrad</td>" in html
