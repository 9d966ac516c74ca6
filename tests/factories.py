"""Small builders for test objects. Each takes overrides as keyword arguments."""

import itertools
from decimal import Decimal

from django.utils import timezone

from notifications.models import Destination, Notification, Subscription, TelegramChat
from tracker.models import Ad, Keyword

_seq = itertools.count(1)


def make_keyword(**kw):
    kw.setdefault("query", f"query {next(_seq)}")
    return Keyword.objects.create(**kw)


def make_ad(**kw):
    n = next(_seq)
    kw.setdefault("source", "willhaben")
    kw.setdefault("external_id", str(100000 + n))
    kw.setdefault("title", f"Ad {n}")
    kw.setdefault("price", Decimal("100.00"))
    kw.setdefault("url", f"https://www.willhaben.at/iad/object?adId={kw['external_id']}")
    kw.setdefault("published_at", timezone.now())
    return Ad.objects.create(**kw)


def make_chat(**kw):
    kw.setdefault("chat_id", 1000 + next(_seq))
    kw.setdefault("status", TelegramChat.Status.ACTIVE)
    return TelegramChat.objects.create(**kw)


def make_destination(**kw):
    kw.setdefault("title", f"destination {next(_seq)}")
    kw.setdefault("apprise_url", "json://127.0.0.1:9/hook")
    kw.setdefault("status", TelegramChat.Status.ACTIVE)
    return Destination.objects.create(**kw)


def make_subscription(chat=None, keyword=None, **kw):
    return Subscription.objects.create(
        chat=chat or make_chat(), keyword=keyword or make_keyword(), **kw
    )


def make_notification(**kw):
    kw.setdefault("chat", kw.get("chat") or make_chat())
    kw.setdefault("ad", kw.get("ad") or make_ad())
    kw.setdefault("kind", Notification.Kind.NEW)
    kw.setdefault("price", kw["ad"].price if kw["ad"] else None)
    return Notification.objects.create(**kw)


def keyword_form(**changes):
    """The POST data of a valid keyword add form (no subscriber rows), with `changes` applied."""
    data = {
        "name": "",
        "query": "rtx 3080",
        "source": "willhaben",
        "is_active": "on",
        "interval_minutes": "5",
        "price_min": "",
        "price_max": "",
        "excluded_words": "",
        "next_run_at_0": "2025-06-01",
        "next_run_at_1": "12:00:00",
        "subscriptions-TOTAL_FORMS": "0",
        "subscriptions-INITIAL_FORMS": "0",
        # The destinations' inline (the second inline of Subscription on the keyword page).
        "subscriptions-2-TOTAL_FORMS": "0",
        "subscriptions-2-INITIAL_FORMS": "0",
    }
    return {**data, **changes}
