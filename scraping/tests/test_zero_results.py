"""The zero-result monitor alerts once per streak, clears on ads, ignores skips."""

import logging
from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from notifications.models import Notification
from scraping.models import ScrapeRun
from scraping.zero_result_alerts import check_zero_results
from tests.factories import make_chat, make_keyword

pytestmark = pytest.mark.django_db


@pytest.fixture
def kw(settings):
    settings.ZERO_RESULT_STREAK = 5
    return make_keyword(query="rare lamp")


def finish(kw, ads_seen, status="done"):
    now = timezone.now()
    ScrapeRun.objects.create(
        keyword=kw,
        source=kw.source,
        status=status,
        ads_seen=ads_seen,
        started_at=now,
        finished_at=now,
    )
    check_zero_results(kw)
    kw.refresh_from_db()


def alerts():
    return Notification.objects.filter(kind="alert")


def test_streak_alerts_once_and_clears(kw, caplog):
    admin = make_chat(is_admin=True)
    make_chat(is_admin=False)
    with time_machine.travel(timezone.now(), tick=False) as traveller:
        for _ in range(4):
            traveller.shift(timedelta(minutes=5))
            finish(kw, 0)
        assert kw.zero_result_alert_at is None and not alerts().exists()
        traveller.shift(timedelta(minutes=5))
        with caplog.at_level(logging.ERROR, logger="scraping.zero_result_alerts"):
            finish(kw, 0)
        assert kw.zero_result_alert_at == timezone.now()
        assert [n.chat_id for n in alerts()] == [admin.pk]
        assert "rare lamp" in alerts().get().text
        assert any("found no ads in its last 5 runs" in r.getMessage() for r in caplog.records)
        for _ in range(3):
            traveller.shift(timedelta(minutes=5))
            finish(kw, 0)
        assert alerts().count() == 1
        traveller.shift(timedelta(minutes=5))
        finish(kw, 3)
        assert kw.zero_result_alert_at is None


def test_a_new_streak_after_clearing_alerts_again(kw):
    make_chat(is_admin=True)
    with time_machine.travel(timezone.now(), tick=False) as traveller:
        for ads in [0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0]:
            traveller.shift(timedelta(minutes=5))
            finish(kw, ads)
    assert alerts().count() == 2
    assert kw.zero_result_alert_at is not None


def test_skips_neither_count_nor_break_the_streak(kw):
    with time_machine.travel(timezone.now(), tick=False) as traveller:
        for i in range(5):
            traveller.shift(timedelta(minutes=5))
            finish(kw, 0)
            if i < 4:
                ScrapeRun.record_skip(kw, "already_running")
                check_zero_results(kw)
                kw.refresh_from_db()
                assert kw.zero_result_alert_at is None
    assert kw.zero_result_alert_at is not None


def test_failed_and_banned_runs_count_toward_the_streak(kw):
    with time_machine.travel(timezone.now(), tick=False) as traveller:
        for status in ["failed", "banned", "done", "failed", "cancelled"]:
            traveller.shift(timedelta(minutes=5))
            finish(kw, 0, status=status)
    assert kw.zero_result_alert_at is not None
