"""The invariants the later features rely on are enforced by the database itself."""

from decimal import Decimal

import pytest
from django.db import IntegrityError, transaction

from notifications.models import Notification, Subscription
from scraping.models import ScrapeRun
from tests.factories import make_ad, make_chat, make_keyword, make_notification
from tracker.models import Ad, Keyword

pytestmark = pytest.mark.django_db


def rejected(fn):
    with pytest.raises(IntegrityError), transaction.atomic():
        fn()


def test_second_running_run_for_a_keyword_is_rejected():
    kw = make_keyword()
    ScrapeRun.objects.create(keyword=kw, source=kw.source)
    rejected(lambda: ScrapeRun.objects.create(keyword=kw, source=kw.source))


def test_finished_runs_do_not_block_a_new_running_run():
    kw = make_keyword()
    ScrapeRun.objects.create(keyword=kw, source=kw.source, status=ScrapeRun.Status.DONE)
    ScrapeRun.objects.create(keyword=kw, source=kw.source, status=ScrapeRun.Status.SKIPPED)
    ScrapeRun.objects.create(keyword=kw, source=kw.source)
    assert ScrapeRun.objects.running().count() == 1


def test_duplicate_ad_is_rejected():
    make_ad(external_id="42")
    rejected(lambda: make_ad(external_id="42"))


def test_same_external_id_on_another_source_is_allowed():
    make_ad(external_id="42")
    make_ad(external_id="42", source="elsewhere")
    assert Ad.objects.count() == 2


def test_duplicate_notification_is_rejected():
    chat, ad = make_chat(), make_ad(price=Decimal("95"))
    make_notification(chat=chat, ad=ad)
    rejected(lambda: make_notification(chat=chat, ad=ad))


def test_duplicate_notification_without_price_is_rejected():
    chat, ad = make_chat(), make_ad(price=None)
    make_notification(chat=chat, ad=ad, price=None)
    rejected(lambda: make_notification(chat=chat, ad=ad, price=None))


def test_bulk_insert_of_duplicate_notifications_keeps_one():
    chat, ad = make_chat(), make_ad(price=None)
    rows = [Notification(chat=chat, ad=ad, kind="new", price=None) for _ in range(3)]
    Notification.objects.bulk_create(rows, ignore_conflicts=True)
    assert Notification.objects.count() == 1


def test_a_new_price_is_a_new_notification():
    chat, ad = make_chat(), make_ad(price=Decimal("120"))
    make_notification(chat=chat, ad=ad, kind="price_drop", price=Decimal("100"))
    make_notification(chat=chat, ad=ad, kind="price_drop", price=Decimal("90"))
    make_notification(chat=chat, ad=ad, kind="new", price=Decimal("120"))
    assert Notification.objects.count() == 3


def test_duplicate_admin_alert_is_rejected():
    chat = make_chat(is_admin=True)
    Notification.objects.create(chat=chat, kind="alert", alert_key="zero:1:2026-12-02", text="x")
    rejected(
        lambda: Notification.objects.create(
            chat=chat, kind="alert", alert_key="zero:1:2026-12-02", text="x"
        )
    )
    Notification.objects.create(chat=chat, kind="alert", alert_key="zero:1:2026-12-03", text="y")


def test_duplicate_subscription_is_rejected():
    chat, kw = make_chat(), make_keyword()
    Subscription.objects.create(chat=chat, keyword=kw)
    rejected(lambda: Subscription.objects.create(chat=chat, keyword=kw))


def test_interval_below_one_minute_is_rejected():
    rejected(lambda: make_keyword(interval_minutes=0))


def test_inverted_price_range_is_rejected():
    rejected(lambda: make_keyword(price_min=Decimal("200"), price_max=Decimal("100")))


def test_new_keyword_is_due_at_once():
    kw = make_keyword()
    assert list(Keyword.objects.due()) == [kw]
    make_keyword(is_active=False)
    assert list(Keyword.objects.due()) == [kw]
