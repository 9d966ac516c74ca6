"""Heartbeat.beat: the tick and the bot's poll loop beat every time, so a beat is one statement."""

from datetime import timedelta

import pytest
from django.utils import timezone

from tracker.models import Heartbeat

pytestmark = pytest.mark.django_db


def test_a_beat_creates_then_moves_the_row_in_one_statement_each(django_assert_num_queries):
    with django_assert_num_queries(1):
        Heartbeat.beat("scheduler", detail="first")
    Heartbeat.objects.filter(name="scheduler").update(
        last_seen_at=timezone.now() - timedelta(hours=1)
    )
    started = timezone.now()
    with django_assert_num_queries(1):
        Heartbeat.beat("scheduler", detail="second")
    row = Heartbeat.objects.get(name="scheduler")
    assert row.detail == "second" and row.last_seen_at >= started
    assert Heartbeat.objects.count() == 1
