"""Store one page of parsed ads for a keyword: a fixed number of queries, one transaction.

What is stored and what is notified:

* Every ad the source returns is upserted into `Ad` (keyed by source + external
  id), whether or not it passes the keyword's filters: price history is worth
  keeping even for ads the keyword does not want today.
* Only ads that pass the keyword's filters (price range, compared as Decimal;
  no excluded word in the title) are linked to it (`KeywordAd`) and notified.
* `new`: the keyword links the ad for the first time. `price_drop`: the ad was
  already linked and its price fell. Rows go to every subscriber whose chat is
  active and whose subscription is not muted; the outbox's unique constraint
  makes a second keyword of the same chat a no-op (Notification.objects.fan_out).
* A moved price (up, down, to or from "on request") writes a `PriceChange`.
* Write less: an ad whose fields are all unchanged is not rewritten (every run
  sees the same ads again; rewriting each one left ≈60M dead tuples a month).
  Its `last_seen_at` therefore has a resolution of LAST_SEEN_RESOLUTION: it
  moves when the ad changes, or when the ad is seen again more than an hour
  after the stored value, and then only that column in one bulk UPDATE.
  An ad marked gone that is seen again counts as changed (its gone_at is cleared).
* Relists (Ad.objects.match_new_ads, tracker.relists): an ad new to the database that matches an ad
gone
  within RELIST_WINDOW_DAYS and names the same seller gets `relist_of`; the gone
  ad's last price counts as its previous price (a `PriceChange` when it differs), and its `new` rows
  carry
  that price as `old_price`, so the message says "relisted" instead of "new ad".
  A relist is news like a new ad: drop rules do not filter it (they judge drops
  of ads a chat already heard of); a cheaper relist still shows as a drop in the
  price history and the admin's "dropped in price" filter.
* A reduced ad seen for the first time (ParsedAd.old_price: the struck-through price a marketplace
  shows) gets a `PriceChange` old → new at first sight, and its `new` rows carry the old price.
* Price judgement (tracker.price_judgement): every new link and moved price is judged against the
  keyword's comparables, loaded once per page (none for a page without either); the link keeps
  the judgement, Subscription.wants sees it, and messages show it.
* `quiet_before` (a deep sweep's cursor): an ad linked for the first time whose
  (published_at, id) is at or before it is backlog, not news: linked, not notified.
"""

from dataclasses import dataclass, field
from datetime import timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from notifications.models import Notification, Subscription, TelegramChat
from scraping.counts import RunCounts
from tracker.comparables import Comparables
from tracker.models import Ad, KeywordAd, PriceChange
from tracker.relists import title_key

CONTENT_FIELDS = [
    "title",
    "price",
    "currency",
    "url",
    "location",
    "postcode",
    "image_url",
    "published_at",
    "seller_id",
    "living_area",
]
# gone_at is written as NULL: an ad seen again is back (tracker.models.AdQuerySet.mark_gone).
UPDATE_FIELDS = [*CONTENT_FIELDS, "title_key", "last_seen_at", "gone_at"]
LAST_SEEN_RESOLUTION = timedelta(hours=1)


@dataclass
class IngestResult:
    """A page's figures, and which of its ads (external ids) were new or dropped in price."""

    counts: RunCounts = field(default_factory=RunCounts)
    new: frozenset = frozenset()
    dropped: frozenset = frozenset()
    ad_pks: frozenset = frozenset()  # every Ad of the page: a sweep's "seen" set


def passes_filters(keyword, ad):
    """Does `ad` (a ParsedAd) match the keyword's price range and excluded words?"""
    if keyword.price_min is not None and (ad.price is None or ad.price < keyword.price_min):
        return False
    if keyword.price_max is not None and (ad.price is None or ad.price > keyword.price_max):
        return False
    title = ad.title.lower()
    return not any(word in title for word in keyword.excluded_list())


def ingest_page(keyword, ads, *, source, notify=True, now=None, quiet_before=None):
    """Upsert `ads` (ParsedAds) for `keyword` and queue its notifications; returns an
    IngestResult."""
    now = now or timezone.now()
    ads = list({ad.external_id: ad for ad in ads}.values())  # a page may repeat a top ad
    if not ads:
        return IngestResult()
    with transaction.atomic():
        stored = {
            row["external_id"]: row
            for row in Ad.objects.filter(
                source=source, external_id__in=[a.external_id for a in ads]
            ).values(
                "id", "external_id", "last_seen_at", "gone_at", "relist_of_id", *CONTENT_FIELDS
            )
        }
        relists = Ad.objects.match_new_ads(
            source, [a for a in ads if a.external_id not in stored], now
        )
        ad_ids = _upsert_ads(ads, stored, source, now, relists)
        # A relist's previous price is the gone ad's last one.
        old_prices = {external_id: row["price"] for external_id, row in stored.items()}
        old_prices.update({external_id: gone.price for external_id, gone in relists.items()})
        shown = _shown_old_prices(ads, old_prices)
        old_prices.update(shown)
        changes = _record_price_changes(ads, old_prices, ad_ids, now)
        # The ad each one relists, to leave its chain out of the comparables.
        parents = {ad_ids[external_id]: row["relist_of_id"] for external_id, row in stored.items()}
        parents.update({ad_ids[external_id]: gone.pk for external_id, gone in relists.items()})
        new_ids, dropped, judgements = _link(keyword, ads, ad_ids, old_prices, parents, now)
        news = new_ids - _backlog(ads, ad_ids, quiet_before)
        earlier = {ad_ids[external_id]: gone.price for external_id, gone in relists.items()}
        earlier.update({ad_ids[external_id]: price for external_id, price in shown.items()})
        notes = (
            _queue_notifications(keyword, ads, ad_ids, news, dropped, earlier, judgements, now)
            if notify
            else 0
        )
    by_id = {ad_id: external_id for external_id, ad_id in ad_ids.items()}
    counts = RunCounts(
        ads_seen=len(ads),
        ads_new=len(new_ids),
        price_drops=len(dropped),
        price_changes=changes,
        notifications=notes,
    )
    return IngestResult(
        counts,
        frozenset(by_id[i] for i in new_ids),
        frozenset(by_id[i] for i in dropped),
        frozenset(by_id),
    )


def _shown_old_prices(ads, known):
    """{external id: old price} of ads first seen reduced (the marketplace shows the old price
    struck through): that price is the ad's previous one, so the first sight records the change
    and the `new` message says what it cost before. An ad already stored has its own history."""
    return {
        ad.external_id: ad.old_price
        for ad in ads
        if ad.old_price is not None and ad.external_id not in known
    }


def _backlog(ads, ad_ids, cursor):
    """Pks of ads published at or before `cursor` (None: no backlog)."""
    if cursor is None:
        return set()
    return {ad_ids[a.external_id] for a in ads if a.published_at is None or a.sort_key <= cursor}


def _upsert_ads(ads, stored, source, now, relists):
    """Writes only what changed; returns external id -> pk.

    `stored` holds the page's known ads as read in this transaction. New and changed
    ads go in one INSERT ... ON CONFLICT DO UPDATE (an ad another worker inserts
    meanwhile is updated, not lost); unchanged ads are not written, except
    `last_seen_at` once it is LAST_SEEN_RESOLUTION old, in one UPDATE.
    """
    ad_ids = {external_id: row["id"] for external_id, row in stored.items()}
    changed = [a for a in ads if a.external_id not in stored or _differs(a, stored[a.external_id])]
    rewritten = {a.external_id for a in changed}
    stale = [
        row["id"]
        for external_id, row in stored.items()
        if external_id not in rewritten and row["last_seen_at"] <= now - LAST_SEEN_RESOLUTION
    ]
    if stale:
        Ad.objects.filter(pk__in=stale).update(last_seen_at=now)
    if not changed:
        return ad_ids
    rows = [
        Ad(
            source=source,
            external_id=a.external_id,
            title=a.title,
            price=a.price,
            currency=a.currency,
            url=a.url,
            location=a.location,
            postcode=a.postcode,
            image_url=a.image_url,
            published_at=a.published_at,
            seller_id=a.seller_id,
            living_area=a.living_area,
            title_key=title_key(a.title),
            relist_of=relists.get(a.external_id),  # not in UPDATE_FIELDS: set once, on insert
            first_seen_at=now,
            last_seen_at=now,
            gone_at=None,
        )
        for a in changed
    ]
    Ad.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=["source", "external_id"],
        update_fields=UPDATE_FIELDS,
    )
    # Not every backend returns the pks of updated rows: read the new ones back.
    new = [a.external_id for a in changed if a.external_id not in stored]
    if new:
        ad_ids.update(
            Ad.objects.filter(source=source, external_id__in=new).values_list("external_id", "id")
        )
    return ad_ids


def _differs(ad, row):
    return row["gone_at"] is not None or any(
        getattr(ad, name) != row[name] for name in CONTENT_FIELDS
    )


def _record_price_changes(ads, old_prices, ad_ids, now):
    changes = [
        PriceChange(
            ad_id=ad_ids[a.external_id],
            old_price=old_prices[a.external_id],
            new_price=a.price,
            seen_at=now,
        )
        for a in ads
        if a.external_id in old_prices and old_prices[a.external_id] != a.price
    ]
    PriceChange.objects.bulk_create(changes)
    return len(changes)


def _link(keyword, ads, ad_ids, old_prices, parents, now):
    """Link matching ads to the keyword and judge their prices; returns (newly linked ad ids,
    {ad id: price before the drop}, {ad id: Judgement}).

    A drop is judged against the price this keyword last saw, so a chat learns of
    a drop even when another keyword's run stored the new price first. Every new link and
    every moved price is judged against the keyword's comparables, loaded once for the page
    (before this page's links are written: its ads do not judge each other); the judgement is
    kept on the link.
    """
    matching = {ad_ids[a.external_id]: a for a in ads if passes_filters(keyword, a)}
    links = {
        link.ad_id: link for link in KeywordAd.objects.filter(keyword=keyword, ad_id__in=matching)
    }
    new_ids = set(matching) - set(links)
    moved = [link for ad_id, link in links.items() if link.price != matching[ad_id].price]
    judgements = _judge(
        keyword,
        {ad_id: matching[ad_id] for ad_id in new_ids | {m.ad_id for m in moved}},
        parents,
        now,
    )
    created = []
    for ad_id in new_ids:
        link = KeywordAd(keyword=keyword, ad_id=ad_id, found_at=now, price=matching[ad_id].price)
        link.store_judgement(judgements[ad_id])
        created.append(link)
    KeywordAd.objects.bulk_create(created, ignore_conflicts=True)
    dropped = {}
    for ad_id, link in links.items():
        seen = link.price if link.price is not None else old_prices.get(matching[ad_id].external_id)
        if _fell(seen, matching[ad_id].price):
            dropped[ad_id] = seen
    for link in moved:
        link.price = matching[link.ad_id].price
        link.store_judgement(judgements[link.ad_id])
    KeywordAd.objects.bulk_update(moved, ["price", *KeywordAd.JUDGEMENT_FIELDS])
    return new_ids, dropped, judgements


def _judge(keyword, ads, parents, now):
    """{ad id: Judgement} of `ads` ({ad id: ParsedAd}): one query for the page, none without
    ads."""
    if not ads:
        return {}
    judged = Comparables.load(keyword, now=now).judge_all(
        [(a.price, a.title, ad_id, parents.get(ad_id), a.living_area) for ad_id, a in ads.items()]
    )
    return dict(zip(ads, judged, strict=True))


def _fell(old, new):
    return old is not None and new is not None and new < old


def _queue_notifications(keyword, ads, ad_ids, new_ids, dropped, earlier, judgements, now):
    """`earlier`: {relist's ad id: the gone ad's last price}, the old price of its `new` rows.
    `judgements`: {ad id: Judgement}, for the chats' rules."""
    events = []
    for ad in ads:
        ad_id = ad_ids[ad.external_id]
        if ad_id in new_ids:
            events.append((ad_id, Notification.Kind.NEW, ad.price, earlier.get(ad_id)))
        elif ad_id in dropped:
            events.append((ad_id, Notification.Kind.PRICE_DROP, ad.price, dropped[ad_id]))
    if not events:  # a page of known ads: no subscriber query either
        return 0
    subs = list(
        Subscription.objects.filter(keyword=keyword, chat__status=TelegramChat.Status.ACTIVE)
        .filter(Q(muted_until__isnull=True) | Q(muted_until__lte=now))
        .values_list("chat_id", "drop_rule", "drop_value")
    )
    # Drop rules decide here: a chat gets no row for a drop it does not want. Events
    # with the same audience share one INSERT (usually one: every chat hears every drop).
    audiences = {}
    for event in events:
        ad_id, kind, price, old_price = event
        judgement = judgements.get(ad_id)
        chats = tuple(
            chat_id
            for chat_id, rule, value in subs
            if Subscription.wants(rule, value, kind, price, old_price, judgement)
        )
        if chats:
            audiences.setdefault(chats, []).append(event)
    return sum(
        Notification.objects.fan_out(keyword, group, chats, now)
        for chats, group in audiences.items()
    )
