"""Notification.objects.fan_out: the outbox rows a scrape page queues, written without
bulk_create."""

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from notifications.models import Notification
from tests.factories import make_ad, make_chat, make_keyword

pytestmark = pytest.mark.django_db
NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)


def events(ads, kind=Notification.Kind.NEW, price=Decimal("100.00"), old=None):
    return [(ad.pk, kind, price, old) for ad in ads]


def test_one_pending_row_per_event_and_chat_across_batches(settings):
    keyword = make_keyword()
    chats = [make_chat() for _ in range(3)]
    ads = [make_ad() for _ in range(150)]
    # 450 rows of 15 columns: several INSERTs on SQLite (999 parameters each).
    inserted = Notification.objects.fan_out(keyword, events(ads), [c.pk for c in chats], NOW)

    assert inserted == 450
    rows = Notification.objects.all()
    assert rows.count() == 450
    assert set(rows.values_list("chat_id", "ad_id")) == {(c.pk, a.pk) for c in chats for a in ads}
    assert set(
        rows.values_list(
            "status", "attempts", "keyword_id", "kind", "price", "old_price", "claim_token"
        )
    ) == {(Notification.Status.PENDING, 0, keyword.pk, "new", Decimal("100.00"), None, "")}
    # next_attempt_at is the page's time; created_at the field default (now), both read back as
    # aware datetimes.
    assert set(rows.values_list("next_attempt_at", flat=True)) == {NOW}
    assert all(created.tzinfo is not None for created in rows.values_list("created_at", flat=True))
    assert Notification.objects.due(NOW).count() == 450


def test_rows_a_chat_already_has_are_skipped_and_not_counted():
    keyword, chat = make_keyword(), make_chat()
    ads = [make_ad() for _ in range(4)]
    on_request = [(ads[3].pk, Notification.Kind.NEW, None, None)]
    assert Notification.objects.fan_out(keyword, events(ads[:3]) + on_request, [chat.pk], NOW) == 4

    again = (
        events(ads[:2])
        + on_request
        + events(ads[2:3], Notification.Kind.PRICE_DROP, Decimal("80.00"), Decimal("100.00"))
    )
    assert Notification.objects.fan_out(keyword, again, [chat.pk], NOW) == 1
    assert Notification.objects.count() == 5
    drop = Notification.objects.get(kind=Notification.Kind.PRICE_DROP)
    assert (drop.ad_id, drop.price, drop.old_price) == (
        ads[2].pk,
        Decimal("80.00"),
        Decimal("100.00"),
    )
