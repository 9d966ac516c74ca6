"""A source whose credentials expire: warned ahead of time, skipped once expired."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from notifications.models import Notification
from scraping.claims import claim_due_keywords
from scraping.credentials import check_credentials
from scraping.models import ScrapeRun
from scraping.sources import registry
from scraping.sources.base import Source
from tests.factories import make_chat, make_keyword

pytestmark = pytest.mark.django_db

EXPIRY = timezone.now().replace(microsecond=0) + timedelta(days=10)


class ExpiringSource(Source):
    """A test source whose cookie expires at EXPIRY."""

    slug = "expiring"

    def credentials_expire_at(self):
        return EXPIRY


@pytest.fixture
def expiring_keyword(monkeypatch, settings):
    settings.COOKIE_EXPIRY_WARN_DAYS = 5
    settings.SCHEDULER_JITTER_S = 0
    monkeypatch.setitem(
        registry.SOURCES, "expiring", ("Expiring test source", f"{__name__}.ExpiringSource")
    )
    make_chat(is_admin=True)
    return make_keyword(source="expiring")


def alert_keys():
    return sorted(Notification.objects.filter(kind="alert").values_list("alert_key", flat=True))


def test_no_warning_while_expiry_is_far(expiring_keyword):
    with time_machine.travel(EXPIRY - timedelta(days=6)):
        check_credentials()
        assert alert_keys() == []
        assert len(claim_due_keywords()) == 1


def test_warns_admins_once_a_day_before_expiry(expiring_keyword):
    with time_machine.travel(EXPIRY - timedelta(days=4, hours=1), tick=False) as traveller:
        check_credentials()
        check_credentials()
        assert len(alert_keys()) == 1
        assert alert_keys()[0].startswith("credentials_expiring:expiring:")
        assert len(claim_due_keywords()) == 1, "still usable before expiry"
        traveller.shift(timedelta(days=1))
        check_credentials()
        assert len(alert_keys()) == 2


def test_expired_credentials_skip_the_keywords_and_alert(expiring_keyword):
    with time_machine.travel(EXPIRY + timedelta(minutes=1)):
        check_credentials()
        assert claim_due_keywords() == []
    skip = ScrapeRun.objects.get()
    assert (skip.status, skip.error) == ("skipped", "source_unavailable")
    assert "credentials expired" in skip.detail
    [key] = alert_keys()
    assert key.startswith("credentials_expired:expiring:")
    text = Notification.objects.get().text
    assert (
        "abgelaufen" in text and "source_unavailable" in text
    )  # German: the site language (LANGUAGE_CODE de-at)


class NoSessionSource(Source):
    """A test source that reports no session."""

    slug = "nosession"

    def unavailable_reason(self):
        return "no session cookie"


def test_source_without_session_logs_error_and_alerts_once_a_day(monkeypatch, settings, caplog):
    monkeypatch.setitem(
        registry.SOURCES, "nosession", ("No-session test source", f"{__name__}.NoSessionSource")
    )
    make_chat(is_admin=True)
    make_keyword(source="nosession")
    check_credentials()
    check_credentials()
    assert [k.split(":")[:2] for k in alert_keys()] == [["source_unavailable", "nosession"]]
    assert [(r.levelname, r.getMessage()) for r in caplog.records if "nosession" in r.getMessage()][
        0
    ] == (
        "ERROR",
        "source nosession is unavailable: no session cookie; its keywords are skipped",
    )


def test_expiry_warning_logs_at_error(expiring_keyword, caplog):
    with time_machine.travel(EXPIRY - timedelta(days=4)):
        check_credentials()
    assert [r.levelname for r in caplog.records if "expire at" in r.getMessage()] == ["ERROR"]


def test_a_source_is_checked_once_however_many_keywords_use_it(monkeypatch, caplog):
    monkeypatch.setitem(
        registry.SOURCES, "nosession", ("No-session test source", f"{__name__}.NoSessionSource")
    )
    for _ in range(3):
        make_keyword(source="nosession")
    check_credentials()
    assert (
        len([r for r in caplog.records if "source nosession is unavailable" in r.getMessage()]) == 1
    )
