"""An outcome the database does not take is kept, retried, and written before anything else
is sent (notifications/outcome_log.py).

The database's failures are errors raised for the statements named through Django's public
`connection.execute_wrapper` hook; the Bot API is the fake one. Tests run outside a
transaction (transaction=True): the log never replaces the connection of an open one.
"""

import pytest
from django.db import OperationalError, connection
from django.utils import timezone

from notifications import sender
from notifications.models import Notification
from notifications.outcome_log import OutcomeLog
from notifications.sender import process_queue
from tests.factories import make_chat, make_notification

pytestmark = pytest.mark.django_db(transaction=True)

TABLE = Notification._meta.db_table


def sent_mark(sql):
    return sql.startswith(f"UPDATE \"{TABLE}\" SET status = %s, last_error = '', sent_at")


def give_back(sql):
    return sql.startswith(f'UPDATE "{TABLE}" SET "attempts" = ') and (
        "GREATEST" in sql or "MAX(" in sql
    )


class Refusing:
    """Fails the statements `matches` picks while `refusals` lasts (a count), noting each try
    as (messages the fake Bot API holds by then, refused)."""

    def __init__(self, matches, telegram, refusals):
        self.matches, self.telegram, self.refusals = matches, telegram, refusals
        self.tries = []

    def __call__(self, execute, sql, params, many, context):
        if self.matches(sql):
            refused = self.refusals > 0
            self.tries.append((len(self.telegram.messages), refused))
            if refused:
                self.refusals -= 1
                raise OperationalError("server closed the connection unexpectedly")
        return execute(sql, params, many, context)


def _rows(*rows):
    return [Notification.objects.get(pk=n.pk) for n in rows]


def test_a_sent_mark_lost_with_the_connection_is_written_before_the_next_send(telegram):
    first, second = make_notification(chat=make_chat()), make_notification(chat=make_chat())
    refusing = Refusing(sent_mark, telegram, refusals=2)
    with connection.execute_wrapper(refusing):
        assert process_queue() == 2
    # The first message's mark: refused twice, written at the third try, all before message 2.
    assert refusing.tries == [(1, True), (1, True), (1, False), (2, False)]
    assert [(n.status, n.attempts) for n in _rows(first, second)] == [("sent", 1), ("sent", 1)]
    assert len(telegram.messages) == 2 and telegram.sent_twice() == 0


def test_a_sent_mark_refused_past_the_deadline_is_kept_and_written_first_next_round(telegram):
    sender.reset_state(outcome_patience=0.3)
    first = make_notification(chat=make_chat())
    refusing = Refusing(sent_mark, telegram, refusals=10**6)
    with connection.execute_wrapper(refusing):
        with pytest.raises(OperationalError):
            process_queue()
        assert len(telegram.messages) == 1
        [stored] = _rows(first)
        assert (stored.status, stored.attempts) == ("pending", 1)  # still claimed, unrecorded

        second = make_notification(chat=make_chat())
        with pytest.raises(OperationalError):  # the database still refuses: nothing is sent
            process_queue()
        assert len(telegram.messages) == 1

        refusing.refusals = 0
        tried = len(refusing.tries)
        assert process_queue() == 1
    # The kept mark first, then the new row's message and its mark.
    assert refusing.tries[tried:] == [(1, False), (2, False)]
    assert [(n.status, n.attempts) for n in _rows(first, second)] == [("sent", 1), ("sent", 1)]
    assert len(telegram.messages) == 2 and telegram.sent_twice() == 0


def test_a_give_back_refused_at_the_rounds_end_is_written_first_next_round(telegram):
    """The first send meets an outage and ends the round; giving back the rows claimed ahead
    with it fails. The next round gives them back before it plans: sent at once, one attempt."""
    sender.reset_state(outcome_patience=0.3)
    rows = [make_notification(chat=make_chat()) for _ in range(3)]
    telegram.down = True
    refusing = Refusing(give_back, telegram, refusals=10**6)
    with connection.execute_wrapper(refusing):
        with pytest.raises(OperationalError):
            process_queue()
        assert sorted(n.attempts for n in _rows(*rows)) == [1, 1, 1]  # none given back

        telegram.down = False
        refusing.refusals = 0
        assert process_queue() == 2
    failed, *ahead = sorted(_rows(*rows), key=lambda n: n.last_error == "")
    assert failed.status == "pending" and failed.last_error  # backing off after its failure
    assert [(n.status, n.attempts) for n in ahead] == [("sent", 1), ("sent", 1)]


def test_the_log_writes_in_order_and_drops_nothing_it_could_not_write():
    database_up, written = False, []

    def write(name):
        def run():
            if not database_up:
                raise OperationalError("connection refused")
            written.append(name)

        return run

    log = OutcomeLog(patience=0.2)
    with pytest.raises(OperationalError):
        log.record("the first", write("first"))
    with pytest.raises(OperationalError):
        log.record("the second", write("second"))
    assert written == [] and len(log) == 2

    database_up = True
    log.flush()
    assert written == ["first", "second"] and len(log) == 0


def test_a_give_back_run_again_after_its_answer_was_lost_returns_one_attempt():
    n = make_notification(attempts=2)
    [row] = Notification.objects.load_for_sending([n.pk]).values()
    [claimed] = Notification.objects.claim([row], timezone.now(), 120)
    assert claimed.attempts == 3
    Notification.objects.give_back([claimed], timezone.now())
    Notification.objects.give_back([claimed], timezone.now())  # the first one's answer was lost
    assert Notification.objects.get(pk=n.pk).attempts == 2
