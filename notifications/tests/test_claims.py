"""Claims: a row is taken by exactly one sender, and comes back when a claim's lease ends."""

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from notifications.models import Notification
from tests.factories import make_notification


def loaded(n):
    return list(Notification.objects.load_for_sending([n.pk]).values())


@pytest.mark.django_db
def test_claimed_row_is_hidden_until_its_lease_ends():
    n = make_notification()
    now = timezone.now()
    [claimed] = Notification.objects.claim(loaded(n), now, 120)
    assert claimed.attempts == 1 and claimed.claim_token
    assert Notification.objects.claim(loaded(n), now, 120) == []
    [again] = Notification.objects.claim(loaded(n), now + timedelta(seconds=121), 120)
    assert again.claim_token != claimed.claim_token
    # The stale holder can no longer record an outcome over the new claim.
    assert Notification.objects.settle_sent([claimed], 1, now) == 0
    assert Notification.objects.settle_sent([again], 2, now) == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_workers_never_claim_the_same_row():
    rows = [make_notification() for _ in range(20)]
    now = timezone.now()
    won = []
    barrier = threading.Barrier(4)

    def worker():
        barrier.wait()
        try:
            won.extend(
                n.pk for row in rows for n in Notification.objects.claim(loaded(row), now, 120)
            )
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(won) == sorted(r.pk for r in rows)
