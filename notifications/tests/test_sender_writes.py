"""The sender writes a digest's rows in bulk: one claim and one "sent" statement, whatever the row count."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from notifications.models import Notification, SendPace
from notifications.sender import process_queue
from tests.factories import make_chat, make_notification

pytestmark = pytest.mark.django_db


def _digest_queries(rows):
    chat = make_chat()
    for _ in range(rows):
        make_notification(chat=chat)
    with CaptureQueriesContext(connection) as ctx:
        assert process_queue() == rows
    assert set(Notification.objects.filter(chat=chat).values_list("status", flat=True)) == {Notification.Status.SENT}
    table = Notification._meta.db_table
    ours = [q["sql"] for q in ctx.captured_queries if SendPace._meta.db_table not in q["sql"]]  # the pace: per message
    updates = [sql for sql in ours if sql.startswith(f'UPDATE "{table}"')]
    return len(ours), updates


def test_a_digest_is_claimed_and_marked_sent_in_a_constant_number_of_statements(telegram, settings):
    settings.NOTIFY_DIGEST_THRESHOLD = 3
    small, small_updates = _digest_queries(4)
    large, large_updates = _digest_queries(12)
    assert len(telegram.messages) == 2
    assert large == small, f"a digest of 12 rows took {large} queries, one of 4 rows {small}"
    # cancel_for_inactive_chats, the claim, the "sent" mark.
    assert len(large_updates) == 3, large_updates
