"""A round claims the next message of every ready chat in one statement, gives back what it
did not send, and renews a claim too old to outlast another send."""

from collections import OrderedDict, deque

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from notifications import sender
from notifications.models import Notification
from notifications.round_claims import RoundClaims
from notifications.sender import Unit, process_queue
from tests.factories import make_chat, make_notification

pytestmark = pytest.mark.django_db


def _claims(captured):
    return [
        q["sql"]
        for q in captured
        if q["sql"].startswith(
            f'UPDATE "{Notification._meta.db_table}" SET attempts = attempts + 1'
        )
    ]


def test_one_claim_takes_the_next_message_of_every_ready_chat(telegram):
    rows = [make_notification(chat=make_chat()) for _ in range(5)]
    with CaptureQueriesContext(connection) as ctx:
        assert process_queue() == 5
    assert len(_claims(ctx.captured_queries)) == 1
    assert {n.status for n in Notification.objects.filter(pk__in=[n.pk for n in rows])} == {
        Notification.Status.SENT
    }
    assert telegram.sent_twice() == 0


def test_no_more_is_claimed_ahead_than_the_round_may_send(telegram, settings):
    settings.NOTIFY_DIGEST_THRESHOLD = 1  # five digests planned, whatever the limit
    for _ in range(5):
        chat = make_chat()
        make_notification(chat=chat), make_notification(chat=chat)
    with CaptureQueriesContext(connection) as ctx:
        assert process_queue(limit=2) == 4
    assert Notification.objects.filter(status=Notification.Status.PENDING, attempts=0).count() == 6
    updates = [
        q["sql"]
        for q in ctx.captured_queries
        if q["sql"].startswith(f'UPDATE "{Notification._meta.db_table}"')
    ]
    gave_back = [sql for sql in updates if "GREATEST" in sql or "MAX(" in sql]
    assert gave_back == []  # nothing was claimed only to be given back


def test_what_was_claimed_ahead_and_not_sent_is_given_back_uncharged(telegram):
    """The first send meets an outage and ends the round: the other chats' rows, claimed with
    it, are due again at once with no attempt used."""
    for _ in range(3):
        make_notification(chat=make_chat())
    telegram.down = True
    before = timezone.now()
    assert process_queue() == 0
    rows = {n.pk: n for n in Notification.objects.all()}
    assert sorted(n.attempts for n in rows.values()) == [0, 0, 1]
    given_back = [n for n in rows.values() if n.attempts == 0]
    assert all(
        n.status == Notification.Status.PENDING and before <= n.next_attempt_at <= timezone.now()
        for n in given_back
    )


def _plan(*chats):
    plan = OrderedDict()
    for chat in chats:
        n = make_notification(chat=chat)
        plan[chat.chat_id] = deque([Unit(chat.chat_id, [n.pk])])
    rows = Notification.objects.load_for_sending(
        [u.pks[0] for units in plan.values() for u in units]
    )
    for units in plan.values():
        units[0].rows = [rows[units[0].pks[0]]]
    return plan


def test_a_claim_too_old_for_another_send_is_renewed_before_its_send(settings):
    settings.NOTIFY_CLAIM_LEASE_S, settings.TELEGRAM_TIMEOUT_S = 120, 10
    plan = _plan(make_chat(), make_chat())
    first, second = (units[0] for units in plan.values())
    claims = RoundClaims(plan, sender.pacer())
    assert claims.take(first, room=5) == first.rows
    old_token = second.rows[0].claim_token  # claimed ahead with the first
    assert old_token == first.rows[0].claim_token
    second.claimed_at -= (
        120 - 10 - 4
    )  # old enough that the lease could run out during one more send
    [renewed] = claims.take(second, room=5)
    stored = Notification.objects.get(pk=renewed.pk)
    assert renewed.claim_token != old_token and stored.claim_token == renewed.claim_token
    assert stored.attempts == 1  # given back (its attempt returned), then claimed again
