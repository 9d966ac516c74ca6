"""Relists: an ad that went (sold or removed) and came back under a new id.

A new ad matches an ad of the same source that went within the last RELIST_WINDOW_DAYS
when both have the same title key (`title_key`: case, punctuation, emoji and spacing
ignored), the same postcode, and prices within ±30 % of the gone ad's last price. Prices
are compared only when both are known: a known price never matches "on request", and two
"on request" ads match on title and postcode alone.

A match is linked as a relist (`relist_of`) only when both ads name the same seller
(`same_seller`): anyone can copy a title, a postcode and a price, and a copycat must not
take over another seller's history. When either ad names no seller, the admin merely
suggests the match on the ad's page (`possible_earlier_listings`); different sellers
never match.
"""

import unicodedata
from collections import defaultdict
from datetime import timedelta
from decimal import Decimal

from django.conf import settings
from django.db import models
from django.db.models import Exists, OuterRef

TITLE_KEY_LENGTH = 200
PRICE_TOLERANCE = Decimal("0.30")
# How far back the admin follows a chain of relists (each step is one query).
CHAIN_LIMIT = 10


def title_key(title):
    """The title as relists compare it: casefolded, letters and digits only, single spaces."""
    text = unicodedata.normalize("NFKC", title or "").casefold()
    words = "".join(ch if unicodedata.category(ch)[0] in "LN" else " " for ch in text).split()
    return " ".join(words)[:TITLE_KEY_LENGTH]


def prices_match(gone_price, new_price):
    """Within ±30 % of the gone ad's price; "on request" matches only "on request"."""
    if gone_price is None or new_price is None:
        return gone_price is None and new_price is None
    return abs(Decimal(new_price) - Decimal(gone_price)) <= Decimal(gone_price) * PRICE_TOLERANCE


def same_seller(gone_seller, new_seller):
    """Both ads name a seller and it is the same one: the match may be linked."""
    return bool(gone_seller) and gone_seller == new_seller


class RelistQuerySet(models.QuerySet):
    """Mixed into tracker.models.AdQuerySet."""

    def relist_candidates(self, source, keys, now):
        """Ads of `source` gone within RELIST_WINDOW_DAYS, not relisted yet, whose
        (title key, postcode) may be one of `keys`; the most recently gone first.

        One query for a whole page (ad_relist_idx); the caller pairs them exactly.
        """
        if not keys:
            return self.none()
        since = now - timedelta(days=settings.RELIST_WINDOW_DAYS)
        relisted = self.model.objects.filter(relist_of=OuterRef("pk"))
        return (
            self.filter(
                source=source,
                gone_at__gte=since,
                title_key__in={key for key, _ in keys},
                postcode__in={postcode for _, postcode in keys},
            )
            .exclude(Exists(relisted))
            .order_by("-gone_at", "-pk")
        )

    def match_new_ads(self, source, ads, now):
        """{external id: the gone Ad it relists} for `ads` (parsed ads of `source` new to the
        database: external_id, title, postcode, price, seller_id).

        Only matches naming the same seller are linked. One query for the page. The most
        recently gone match wins; each gone ad is taken by one new ad at most (the first on
        the page).
        """
        keyed = [(ad, (title_key(ad.title), ad.postcode)) for ad in ads]
        keyed = [(ad, key) for ad, key in keyed if key[0] and ad.seller_id]
        if not keyed:
            return {}
        candidates = defaultdict(list)
        found = self.relist_candidates(source, {key for _, key in keyed}, now)
        for gone in found.only("pk", "title_key", "postcode", "price", "seller_id"):
            candidates[(gone.title_key, gone.postcode)].append(gone)
        matches, taken = {}, set()
        for ad, key in keyed:
            for gone in candidates[key]:
                if (
                    gone.pk not in taken
                    and same_seller(gone.seller_id, ad.seller_id)
                    and prices_match(gone.price, ad.price)
                ):
                    matches[ad.external_id] = gone
                    taken.add(gone.pk)
                    break
        return matches

    def possible_earlier_listings(self, ad, limit=5):
        """Gone ads that `ad` may relist but that were not linked because a seller is unknown:
        gone within RELIST_WINDOW_DAYS before `ad` was first seen, not relisted yet, same
        title key and postcode, prices matching; the most recently gone first."""
        if ad.pk is None or ad.relist_of_id is not None or not ad.title_key:
            return []
        since = ad.first_seen_at - timedelta(days=settings.RELIST_WINDOW_DAYS)
        relisted = self.model.objects.filter(relist_of=OuterRef("pk"))
        candidates = (
            self.filter(
                source=ad.source,
                title_key=ad.title_key,
                postcode=ad.postcode,
                gone_at__gte=since,
                gone_at__lte=ad.first_seen_at,
            )
            .exclude(pk=ad.pk)
            .exclude(Exists(relisted))
            .order_by("-gone_at", "-pk")
        )
        if ad.seller_id:  # then only a gone ad without a seller is in doubt
            candidates = candidates.filter(seller_id="")
        return [gone for gone in candidates[:50] if prices_match(gone.price, ad.price)][:limit]


def earlier_listings(ad):
    """The ads `ad` relists, oldest first (at most CHAIN_LIMIT)."""
    chain, current = [], ad
    while current.relist_of_id is not None and len(chain) < CHAIN_LIMIT:
        current = type(ad).objects.filter(pk=current.relist_of_id).first()
        if current is None:
            break
        chain.append(current)
    return chain[::-1]
