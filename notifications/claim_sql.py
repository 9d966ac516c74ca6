"""The sender's claim as one `UPDATE … RETURNING` (NotificationQuerySet.claim).

Written out because the ORM cannot return rows from an UPDATE: through it a claim
took a transaction, the UPDATE and a SELECT reloading the claimed rows with their
chat, ad and keyword — per message, most of the sender's own cost (bench/history.py).
Here a claim is one statement; the rows were loaded once for the whole round.
"""

STATEMENT = """UPDATE {table} SET attempts = attempts + 1, next_attempt_at = %s, claimed_at = %s, claim_token = %s
WHERE {candidates}
RETURNING id, attempts, last_error
"""
# On PostgreSQL rows another sender is claiming right now are skipped, not waited for.
# The statement is its own transaction: the locks last until the UPDATE is done.
SKIP_LOCKED = "id IN (SELECT id FROM {table} WHERE id = ANY(%s) AND status = %s AND next_attempt_at <= %s FOR UPDATE SKIP LOCKED)"
PLAIN = "id IN ({placeholders}) AND status = %s AND next_attempt_at <= %s"


def claim_rows(connection, table, pks, pending, now, lease_until, token):
    """Claims the rows among `pks` in status `pending` and due at `now`; returns
    {pk: (attempts, last_error)} of those it took."""
    if not pks:
        return {}
    ops = connection.ops
    table = ops.quote_name(table)
    stamps = [ops.adapt_datetimefield_value(lease_until), ops.adapt_datetimefield_value(now)]
    if connection.features.has_select_for_update_skip_locked:
        candidates, params = SKIP_LOCKED.format(table=table), [list(pks), pending, stamps[1]]
    else:
        candidates, params = PLAIN.format(placeholders=", ".join(["%s"] * len(pks))), [*pks, pending, stamps[1]]
    with connection.cursor() as cursor:
        cursor.execute(STATEMENT.format(table=table, candidates=candidates), [*stamps, token, *params])
        return {pk: (attempts, error) for pk, attempts, error in cursor.fetchall()}
