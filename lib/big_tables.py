"""Big tables in the admin and /stats: a capped count, the list settings, the planner's estimate.

Django's admin counts the filtered list (SELECT COUNT(*)) on every page; over 2.6M scrape runs
that is most of the page (bench/README.md, history.py). CappedCountPaginator counts at most
EXACT_BELOW rows: a list that big shows "10000 results" and pages through its first 10,000 rows,
the newest; older ones are a filter or a sort away.
"""

import json

from django.contrib import admin
from django.core.paginator import Paginator
from django.utils.functional import cached_property

EXACT_BELOW = 10_000


class CappedCountPaginator(Paginator):
    @cached_property
    def count(self):
        # Without the ordering: counting needs no sort, and the LIMIT stops the scan early.
        return self.object_list.order_by()[:EXACT_BELOW].count()


class BigTableAdmin(admin.ModelAdmin):
    """The list settings of a table with millions of rows: counted only up to a cap, no facet
    counts (a COUNT per filter choice), 25 rows a page (rendering the rows is most of the page:
    bench/README.md, history.py)."""

    list_per_page = 25
    paginator = CappedCountPaginator
    show_full_result_count = False
    show_facets = admin.ShowFacets.NEVER


def estimated_count(queryset, connection):
    """The PostgreSQL planner's row estimate for `queryset`, or None if it has none
    (operations.stats)."""
    with connection.cursor() as cursor:
        if not queryset.query.where:
            cursor.execute(
                "SELECT reltuples FROM pg_class WHERE oid = %s::regclass",
                [queryset.model._meta.db_table],
            )
            row = cursor.fetchone()
            # -1: never vacuumed or analysed; fall through to EXPLAIN.
            if row and row[0] >= 0:
                return int(row[0])
        sql, params = queryset.order_by().values("pk").query.sql_with_params()
        cursor.execute("EXPLAIN (FORMAT JSON) " + sql, params)
        plan = cursor.fetchone()[0]
    if isinstance(plan, str):
        plan = json.loads(plan)
    return int(plan[0]["Plan"]["Plan Rows"])
