"""The ad admin at 300,000 ads (issue 16): the title search reads the trigram index on
PostgreSQL, the list reads no whole table (no DISTINCT over ads for the source filter,
no EXISTS over every price change), 50 rows a page."""

import re

import pytest
from django.contrib import admin
from django.db import connection
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.factories import make_ad, make_keyword
from tracker.models import Ad, KeywordAd, PriceChange

pytestmark = pytest.mark.django_db


def search(term, user):
    request = RequestFactory().get("/admin/tracker/ad/", {"q": term})
    request.user = user
    model_admin = admin.site._registry[Ad]
    queryset, _ = model_admin.get_search_results(request, model_admin.get_queryset(request), term)
    return queryset


def test_title_search_is_case_insensitive_substring(admin_user):
    make_ad(title="Canyon Rennrad Ultimate")
    make_ad(title="Sofa")
    assert [a.title for a in search("rennrad", admin_user)] == ["Canyon Rennrad Ultimate"]


def test_every_word_must_be_in_the_title(admin_user):
    make_ad(title="Canyon Rennrad Ultimate")
    make_ad(title="Canyon Sofa")
    assert [a.title for a in search("canyon  RENNRAD", admin_user)] == ["Canyon Rennrad Ultimate"]


@pytest.mark.postgres
def test_title_search_reads_the_trigram_index(admin_user):
    make_ad(title="Canyon Rennrad Ultimate")
    sql, params = search("rennrad", admin_user).order_by().values("pk").query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("EXPLAIN " + sql, params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "ad_title_trgm_idx" in plan


def test_the_list_reads_no_whole_table(admin_client):
    keyword = make_keyword(source="willhaben")
    ad = make_ad(title="Rennrad", price=80)
    KeywordAd.objects.create(keyword=keyword, ad=ad)
    PriceChange.objects.create(ad=ad, old_price=100, new_price=80)
    with CaptureQueriesContext(connection) as queries:
        html = admin_client.get(reverse("admin:tracker_ad_changelist")).content.decode()
    ad_queries = [q["sql"] for q in queries.captured_queries if 'FROM "tracker_ad"' in q["sql"]]
    assert [sql for sql in ad_queries if "DISTINCT" in sql.upper()] == []
    # The one EXISTS allowed: "matched a keyword", an index probe on KeywordAd.ad per row.
    exists = [t for sql in ad_queries for t in re.findall(r'EXISTS\(SELECT .*? FROM "(\w+)"', sql)]
    assert set(exists) == {"tracker_keywordad"}
    assert '<span class="lago-down">' in html  # the price change column still shows the drop
    assert "?source=willhaben" in html  # the source filter lists the keywords' sources


def test_source_filter_filters(admin_client):
    make_ad(title="here", source="willhaben")
    make_ad(title="elsewhere", source="other")
    html = admin_client.get(
        reverse("admin:tracker_ad_changelist"), {"source": "other", "matched": "all"}
    ).content.decode()
    assert "elsewhere" in html and ">here<" not in html


def test_fifty_rows_a_page(admin_client):
    for i in range(51):
        make_ad(title=f"ad {i}")
    html = admin_client.get(reverse("admin:tracker_ad_changelist"), {"matched": "all"})
    assert html.content.decode().count('name="_selected_action"') == 50
