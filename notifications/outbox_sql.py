"""The sender's two statements per message, written out: the claim and the "sent" mark.

The claim is one `UPDATE … RETURNING` (NotificationQuerySet.claim), which the ORM cannot
express: through it a claim took a transaction, the UPDATE and a SELECT reloading the
claimed rows with their chat, ad and keyword — per message, most of the sender's own cost
(bench/history.py). Here a claim is one statement; the rows were loaded once for the round.
Both statements take the ids as one array parameter on PostgreSQL, as placeholders on SQLite.
"""

STATEMENT = """UPDATE {table} SET attempts = attempts + 1, next_attempt_at = %s,
claimed_at = %s, claim_token = %s
WHERE {candidates}
RETURNING id, attempts, last_error
"""
# On PostgreSQL rows another sender is claiming right now are skipped, not waited for.
# The statement is its own transaction: the locks last until the UPDATE is done.
DUE = "{ids} AND status = %s AND next_attempt_at <= %s"
SKIP_LOCKED = "id IN (SELECT id FROM {table} WHERE " + DUE + " FOR UPDATE SKIP LOCKED)"
SETTLE = (
    "UPDATE {table} SET status = %s, last_error = '', sent_at = %s, message_id = %s "
    "WHERE {ids} AND claim_token IN ({tokens})"
)


def claim_rows(connection, table, pks, pending, now, lease_until, token):
    """Claims the rows among `pks` in status `pending` and due at `now`; returns
    {pk: (attempts, last_error)} of those it took."""
    if not pks:
        return {}
    ops = connection.ops
    table = ops.quote_name(table)
    stamps = [ops.adapt_datetimefield_value(lease_until), ops.adapt_datetimefield_value(now)]
    ids, params = _ids(connection, pks)
    locking = SKIP_LOCKED if connection.features.has_select_for_update_skip_locked else DUE
    candidates, params = locking.format(table=table, ids=ids), [*params, pending, stamps[1]]
    with connection.cursor() as cursor:
        cursor.execute(
            STATEMENT.format(table=table, candidates=candidates), [*stamps, token, *params]
        )
        return {pk: (attempts, error) for pk, attempts, error in cursor.fetchall()}


def settle_rows(connection, table, pks, tokens, sent, now, message_id):
    """Marks the rows among `pks` still held under one of `tokens` as `sent`; returns how many."""
    ops = connection.ops
    ids, id_params = _ids(connection, pks)
    sql = SETTLE.format(table=ops.quote_name(table), ids=ids, tokens=_placeholders(tokens))
    with connection.cursor() as cursor:
        cursor.execute(
            sql, [sent, ops.adapt_datetimefield_value(now), message_id, *id_params, *tokens]
        )
        return cursor.rowcount


def _ids(connection, pks):
    """(condition, params) on the id column: one array parameter on PostgreSQL, placeholders
    elsewhere."""
    if connection.vendor == "postgresql":
        return "id = ANY(%s)", [list(pks)]
    return f"id IN ({_placeholders(pks)})", list(pks)


def _placeholders(values):
    return ", ".join(["%s"] * len(values))
