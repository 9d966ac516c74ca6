"""Bulk ingest of parsed ads: upsert, price history, links and outbox rows."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from notifications.models import Notification, TelegramChat
from scraping.ingest import ingest_page, passes_filters
from scraping.sources.base import ParsedAd
from tests.factories import make_chat, make_keyword, make_subscription
from tracker.models import Ad, KeywordAd, PriceChange

pytestmark = pytest.mark.django_db
T0 = datetime(2025, 6, 1, 12, tzinfo=UTC)


def parsed(n, *, price="100", start=0, title="Grafikkarte"):
    return [
        ParsedAd(
            external_id=str(5000 + start + i),
            title=f"{title} {start + i}",
            price=None if price is None else Decimal(price),
            url=f"https://www.willhaben.at/iad/x-{5000 + start + i}/",
            published_at=T0 - timedelta(minutes=start + i),
        )
        for i in range(n)
    ]


def test_upserts_every_ad_and_links_new_ones():
    keyword = make_keyword()
    result = ingest_page(keyword, parsed(30), source="willhaben")
    assert (result.counts.ads_seen, result.counts.ads_new) == (30, 30)
    assert Ad.objects.count() == 30 and KeywordAd.objects.count() == 30
    again = ingest_page(keyword, parsed(30), source="willhaben")
    assert (again.counts.ads_new, again.counts.price_changes, again.counts.notifications) == (
        0,
        0,
        0,
    )
    assert Ad.objects.count() == 30


def test_query_count_does_not_grow_with_the_page():
    keyword = make_keyword()
    make_subscription(keyword=keyword)
    ingest_page(keyword, parsed(5), source="willhaben")
    with CaptureQueriesContext(connection) as small:
        ingest_page(keyword, parsed(5, start=100), source="willhaben")
    with CaptureQueriesContext(connection) as large:
        ingest_page(keyword, parsed(150, start=200), source="willhaben")
    # A constant number of statements; SQLite's 999-parameter limit splits the big INSERTs of
    # ads, links and notifications in batches (150 links of 9 columns: two).
    assert len(small) <= 10
    assert len(large) <= len(small) + 5


def test_update_refreshes_fields_but_keeps_first_seen():
    keyword = make_keyword()
    ingest_page(keyword, parsed(1), source="willhaben", now=T0)
    renamed = [ParsedAd(**{**parsed(1)[0].__dict__, "title": "Renamed"})]
    ingest_page(keyword, renamed, source="willhaben", now=T0 + timedelta(hours=1))
    ad = Ad.objects.get()
    assert (
        ad.title == "Renamed"
        and ad.first_seen_at == T0
        and ad.last_seen_at == T0 + timedelta(hours=1)
    )


def test_price_drop_and_rise_history_with_one_drop_notification():
    keyword = make_keyword()
    sub = make_subscription(keyword=keyword)
    ingest_page(keyword, parsed(2), source="willhaben", notify=False)
    ads = parsed(2)
    ads = [
        ParsedAd(**{**ads[0].__dict__, "price": Decimal("90")}),
        ParsedAd(**{**ads[1].__dict__, "price": Decimal("120")}),
    ]
    result = ingest_page(keyword, ads, source="willhaben")
    assert (result.counts.price_drops, result.counts.price_changes) == (1, 2)
    assert sorted((c.old_price, c.new_price) for c in PriceChange.objects.all()) == [
        (Decimal("100.00"), Decimal("90.00")),
        (Decimal("100.00"), Decimal("120.00")),
    ]
    note = Notification.objects.get()
    assert (note.chat_id, note.kind, note.keyword) == (sub.chat_id, "price_drop", keyword)
    assert (note.price, note.old_price) == (Decimal("90"), Decimal("100"))
    assert ads[0].external_id in result.dropped


def test_price_to_and_from_on_request_is_history_not_a_drop():
    keyword = make_keyword()
    make_subscription(keyword=keyword)
    ingest_page(keyword, parsed(1), source="willhaben")
    result = ingest_page(keyword, parsed(1, price=None), source="willhaben")
    assert (
        result.counts.price_changes,
        result.counts.price_drops,
        result.counts.notifications,
    ) == (1, 0, 0)
    assert PriceChange.objects.get().new_price is None


def test_filtered_ads_are_stored_but_not_linked_or_notified():
    keyword = make_keyword(
        price_min=Decimal("50"), price_max=Decimal("99.99"), excluded_words="defekt, Bastler"
    )
    make_subscription(keyword=keyword)
    ads = [
        *parsed(1, price="99.99", start=0),
        *parsed(1, price="100.00", start=1),
        *parsed(1, price=None, start=2),
        *parsed(1, price="60", start=3, title="GPU DEFEKT"),
        *parsed(1, price="60", start=4, title="für bastler"),
    ]
    result = ingest_page(keyword, ads, source="willhaben", notify=True)
    assert Ad.objects.count() == 5
    assert list(KeywordAd.objects.values_list("ad__external_id", flat=True)) == ["5000"]
    assert result.counts.ads_new == 1 and Notification.objects.count() == 1
    assert [passes_filters(keyword, a) for a in ads] == [True, False, False, False, False]


def test_only_active_unmuted_subscribers_get_rows():
    keyword = make_keyword()
    active = make_subscription(keyword=keyword)
    make_subscription(keyword=keyword, chat=make_chat(status=TelegramChat.Status.BLOCKED))
    make_subscription(keyword=keyword, chat=make_chat(status=TelegramChat.Status.PENDING))
    make_subscription(keyword=keyword, muted_until=timezone.now() + timedelta(hours=1))
    ingest_page(keyword, parsed(3), source="willhaben")
    assert set(Notification.objects.values_list("chat_id", flat=True)) == {active.chat_id}
    assert Notification.objects.count() == 3


def test_two_keywords_of_one_chat_notify_the_ad_once():
    chat = make_chat()
    first, second = make_keyword(query="rtx"), make_keyword(query="grafikkarte")
    make_subscription(chat=chat, keyword=first)
    make_subscription(chat=chat, keyword=second)
    ingest_page(first, parsed(4), source="willhaben")
    ingest_page(second, parsed(4), source="willhaben")
    assert Notification.objects.filter(chat=chat).count() == 4
    assert KeywordAd.objects.count() == 8


def test_notify_false_links_without_outbox_rows():
    keyword = make_keyword()
    make_subscription(keyword=keyword)
    result = ingest_page(keyword, parsed(3), source="willhaben", notify=False)
    assert result.counts.ads_new == 3 and Notification.objects.count() == 0


def test_duplicate_ads_in_one_page_are_stored_once():
    keyword = make_keyword()
    ad = parsed(1)
    assert ingest_page(keyword, ad + ad, source="willhaben").counts.ads_seen == 1
    assert Ad.objects.count() == 1


def test_a_drop_stored_by_another_keyword_still_notifies_this_keywords_chat():
    first, second = make_keyword(query="gpu"), make_keyword(query="grafikkarte")
    first_sub, second_sub = make_subscription(keyword=first), make_subscription(keyword=second)
    ads = parsed(1, price="100")
    ingest_page(first, ads, source="willhaben")
    ingest_page(second, ads, source="willhaben")
    cheaper = parsed(1, price="80")
    ingest_page(first, cheaper, source="willhaben")
    result = ingest_page(second, cheaper, source="willhaben")
    assert result.counts.price_drops == 1
    drops = Notification.objects.filter(kind="price_drop")
    assert sorted(n.chat_id for n in drops) == sorted([first_sub.chat_id, second_sub.chat_id])
    assert {(n.old_price, n.price) for n in drops} == {(Decimal("100"), Decimal("80"))}


def ad_writes(queries):
    """UPDATE statements and upserts that touched the ad table."""
    return [
        q["sql"]
        for q in queries.captured_queries
        if 'UPDATE "tracker_ad"' in q["sql"]
        or ('INSERT INTO "tracker_ad"' in q["sql"] and "ON CONFLICT" in q["sql"])
    ]


def test_an_unchanged_page_writes_no_ad_row():
    keyword = make_keyword()
    ingest_page(keyword, parsed(20), source="willhaben", now=T0)
    with CaptureQueriesContext(connection) as queries:
        result = ingest_page(keyword, parsed(20), source="willhaben", now=T0 + timedelta(minutes=5))
    assert ad_writes(queries) == []
    assert result.counts.ads_seen == 20
    assert set(Ad.objects.values_list("last_seen_at", flat=True)) == {T0}


def test_last_seen_moves_hourly_in_one_update_of_that_column_only():
    keyword = make_keyword()
    ingest_page(keyword, parsed(20), source="willhaben", now=T0)
    later = T0 + timedelta(hours=1, minutes=1)
    with CaptureQueriesContext(connection) as queries:
        ingest_page(keyword, parsed(20), source="willhaben", now=later)
    (update,) = ad_writes(queries)
    assert update.startswith('UPDATE "tracker_ad" SET "last_seen_at"') and '"title"' not in update
    assert set(Ad.objects.values_list("last_seen_at", flat=True)) == {later}


def test_only_the_changed_ad_of_a_page_is_rewritten():
    keyword = make_keyword()
    ingest_page(keyword, parsed(20), source="willhaben", now=T0)
    page = parsed(20)
    page[3] = ParsedAd(**{**page[3].__dict__, "title": "Renamed"})
    with CaptureQueriesContext(connection) as queries:
        ingest_page(keyword, page, source="willhaben", now=T0 + timedelta(minutes=5))
    (upsert,) = ad_writes(queries)
    assert upsert.count("Renamed") == 1 and "Grafikkarte" not in upsert
    assert Ad.objects.get(external_id=page[3].external_id).title == "Renamed"
    assert Ad.objects.filter(last_seen_at=T0).count() == 19
