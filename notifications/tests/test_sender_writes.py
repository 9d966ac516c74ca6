"""The sender's statements: a digest's rows are claimed and marked sent in one statement each,
whatever the row count; a round reads its rows once, not per message."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from notifications.messages import render, render_digest
from notifications.models import Notification, SendPace, TelegramChat
from notifications.pacing import bot_key
from notifications.sender import process_queue
from tests.factories import make_ad, make_chat, make_keyword, make_notification

pytestmark = pytest.mark.django_db


def _digest_queries(rows):
    chat = make_chat()
    for _ in range(rows):
        make_notification(chat=chat)
    with CaptureQueriesContext(connection) as ctx:
        assert process_queue() == rows
    assert set(Notification.objects.filter(chat=chat).values_list("status", flat=True)) == {
        Notification.Status.SENT
    }
    table = Notification._meta.db_table
    ours = _ours(ctx)
    updates = [sql for sql in ours if sql.startswith(f'UPDATE "{table}"')]
    return len(ours), updates


def test_a_digest_is_claimed_and_marked_sent_in_a_constant_number_of_statements(telegram, settings):
    settings.NOTIFY_DIGEST_THRESHOLD = 3
    small, small_updates = _digest_queries(4)
    large, large_updates = _digest_queries(12)
    assert len(telegram.messages) == 2
    assert large == small, f"a digest of 12 rows took {large} queries, one of 4 rows {small}"
    # The claim and the "sent" mark (with no inactive chat, nothing is cancelled: no UPDATE).
    assert len(large_updates) == 2, large_updates


def _round_queries(chats, telegram):
    """The statements of one process_queue() sending one digest to each of `chats` chats (the
    pace's excluded)."""
    for _ in range(chats):
        chat = make_chat()
        for _ in range(4):
            make_notification(chat=chat, keyword=make_keyword())
    with CaptureQueriesContext(connection) as ctx:
        assert process_queue() == 4 * chats
    return _ours(ctx)


def _ours(ctx):
    """The captured statements but the pace's (per message, in its own transaction: a savepoint
    in tests)."""
    pace = [SendPace._meta.db_table, "SAVEPOINT"]
    return [q["sql"] for q in ctx.captured_queries if not any(word in q["sql"] for word in pace)]


def test_a_round_loads_and_claims_its_rows_once_and_writes_one_statement_per_message(
    telegram, settings
):
    settings.NOTIFY_DIGEST_THRESHOLD = 3
    two = _round_queries(2, telegram)
    Notification.objects.all().delete()
    five = _round_queries(5, telegram)
    assert len(telegram.messages) == 7
    # Each message: its "sent" mark; the rows, chats, ads and keywords are read and claimed once a
    # round.
    assert len(five) - len(two) == 3 * 1, five


def test_the_digest_query_reads_no_chat_row(telegram, settings):
    """The chats were just read as sendable: joining each due row to its chat again made the
    planner, which expects few pending rows, scan the chat table once per row (30-50 ms for
    1,000 rows, bench/history.py)."""
    settings.NOTIFY_DIGEST_THRESHOLD = 3
    for chat in (make_chat(), make_chat()):
        for _ in range(4):
            make_notification(chat=chat)
    with CaptureQueriesContext(connection) as ctx:
        assert process_queue() == 8
    [digest_rows] = [
        q["sql"] for q in ctx.captured_queries if "ROW_NUMBER" in q["sql"] and "qualify" in q["sql"]
    ]
    assert TelegramChat._meta.db_table not in digest_rows


def test_the_last_answer_of_a_round_reaches_the_send_pace_after_the_send(telegram, settings):
    """An answer rides on the next reservation (SharedPacer.record); the round's last one has
    none, so the round writes it before it returns."""
    chat = make_chat()
    make_notification(chat=chat)
    with CaptureQueriesContext(connection) as ctx:
        assert process_queue() == 1
    statements = [q["sql"] for q in ctx.captured_queries]
    sent = max(
        i
        for i, sql in enumerate(statements)
        if sql.startswith(f'UPDATE "{Notification._meta.db_table}" SET status')
    )
    chat_key = f"{bot_key()}:{chat.chat_id}"
    assert any(
        SendPace._meta.db_table in sql and chat_key in sql for sql in statements[sent + 1 :]
    ), statements[sent:]


def test_a_claim_is_one_statement_and_returns_the_rows_current_attempts(django_assert_num_queries):
    n = make_notification()
    [row] = Notification.objects.load_for_sending([n.pk]).values()
    Notification.objects.filter(pk=n.pk).update(attempts=2, last_error="timed out")
    with django_assert_num_queries(1):
        [claimed] = Notification.objects.claim([row], timezone.now(), 120)
    assert (claimed.attempts, claimed.last_error) == (3, "timed out")
    stored = Notification.objects.get(pk=n.pk)
    assert (stored.attempts, stored.claim_token, stored.claimed_at) == (
        3,
        claimed.claim_token,
        claimed.claimed_at,
    )


def test_a_claim_leaves_rows_that_are_not_due_or_not_pending(django_assert_num_queries):
    due, later, sent = (
        make_notification(),
        make_notification(),
        make_notification(status=Notification.Status.SENT),
    )
    Notification.objects.filter(pk=later.pk).update(
        next_attempt_at=timezone.now() + timedelta(minutes=5)
    )
    loaded = Notification.objects.load_for_sending([sent.pk, later.pk, due.pk])
    rows = [loaded[n.pk] for n in (sent, later, due)]
    assert [n.pk for n in Notification.objects.claim(rows, timezone.now(), 120)] == [due.pk]


def test_rows_loaded_for_sending_render_without_further_queries(django_assert_num_queries):
    """load_for_sending() loads only some fields of chat, ad and keyword: rendering must need no
    others."""
    keyword = make_keyword(name="fahrrad")
    gone = make_ad(title="cube old", price=Decimal("500"), gone_at=timezone.now())
    rows = [
        make_notification(
            keyword=keyword,
            ad=make_ad(image_url="https://img.example/1.jpg", location="Wien", postcode="1010"),
        ),
        make_notification(
            keyword=keyword,
            kind=Notification.Kind.PRICE_DROP,
            price=Decimal("90"),
            old_price=Decimal("100"),
        ),
        make_notification(keyword=keyword, ad=make_ad(title="cube aim", relist_of=gone)),
        make_notification(
            ad=None, kind=Notification.Kind.ALERT, text="scraper failing", alert_key="k"
        ),
        make_notification(ad=None, kind=Notification.Kind.WELCOME),
    ]
    loaded = Notification.objects.load_for_sending([n.pk for n in rows])
    new, drop, relist, alert, welcome = (loaded[n.pk] for n in rows)
    with django_assert_num_queries(0):
        assert "fahrrad" in render(new).html and "Wien" in render(new).html
        render(alert), render(welcome)
        render_digest([new, alert, welcome], 3)
        new.chat.chat_id, new.chat.language, new.chat.status
        (
            new.attempts,
            new.last_error,
            new.claim_token,
            new.status,
            new.ad_id,
            new.keyword_id,
        )  # the outcome paths
    with django_assert_num_queries(
        1
    ):  # the lowest price seen: one aggregate over the price changes
        render(drop)
    with django_assert_num_queries(1):  # the earlier listing
        assert "500" in render(relist).plain
