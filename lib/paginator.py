"""A changelist paginator that does not count huge tables.

Django's admin runs SELECT COUNT(*) over the filtered changelist on every page:
over millions of scrape runs or notifications that is seconds. On PostgreSQL this
paginator asks the planner instead: the table's `pg_class.reltuples` when the list
is unfiltered, the row estimate of EXPLAIN when it is filtered. Below
EXACT_BELOW estimated rows it counts exactly, but stops at EXACT_BELOW rows: the
planner's guess for a text search (LIKE '%…%') is often far too low, and a
search matching 80,000 of 2.6M scrape runs was counted in full (0.7 s at six
months, bench/history.py's seed). A list found to be that big reports
EXACT_BELOW or the estimate, whichever is larger. Other databases (SQLite)
always count exactly. The admin shows the figure as the result count, so on
PostgreSQL "N results" and the page count are approximate for big lists.
"""

import json

from django.core.paginator import Paginator
from django.db import connections
from django.utils.functional import cached_property

EXACT_BELOW = 10_000


class EstimatedCountPaginator(Paginator):
    @cached_property
    def count(self):
        queryset = self.object_list
        connection = connections[queryset.db]
        if connection.vendor != "postgresql":
            return super().count
        estimate = estimated_count(queryset, connection)
        if estimate is not None and estimate >= EXACT_BELOW:
            return estimate
        counted = queryset.order_by()[:EXACT_BELOW].count()
        return counted if counted < EXACT_BELOW else max(estimate or 0, EXACT_BELOW)


def estimated_count(queryset, connection):
    """The planner's row estimate for `queryset`, or None if it has none."""
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
