"""The ad admin's title search reads the trigram index on PostgreSQL (issue 16)."""

import pytest
from django.contrib import admin
from django.db import connection
from django.test import RequestFactory

from tests.factories import make_ad
from tracker.models import Ad

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
