"""The comparables of an ad: what its keyword found lately, the ground its price is judged on.

For a keyword: its KeywordAd rows found in the last PRICE_COMPARE_DAYS, live or gone (a gone ad
counts with the last price the keyword saw: the best stand-in for what it sold for), with a price
above 0 (no "on request", nothing free). One indexed query (keywordad_found_idx: keyword,
found_at) loads them; ingest loads them once per page and judges every ad of the page against
the same set, never once per ad.

For one ad, out of that set go the ad itself and its relist chain (Ad.relist_of, both ways):
a relist is the same item, and its old price must not vouch for the new one.

Then, when the ad gives a living area and at least PRICE_COMPARE_MIN comparables do too, prices
are compared per m². And when at least PRICE_COMPARE_MIN of them have a title like the ad's, only
those count (Judgement.narrowed): a search for "fahrrad" finds bikes, helmets and locks.
"""

from collections import defaultdict
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

from django.conf import settings
from django.utils import timezone
from rapidfuzz import fuzz, process

from tracker.models import KeywordAd
from tracker.price_judgement import Judgement, judgement_of
from tracker.relists import CHAIN_LIMIT, title_key

# token_set_ratio compares the words two titles share with the rest of each, in any order: a
# bare "Rennrad" matches "Rennrad Carbon 56 cm" (100), word order and extra words ("top
# Zustand") barely count. On titles of mixed searches, items of the same kind scored 70-100
# ("rennrad carbon 56" / "rennrad carbon ultegra rh 56": 76), other kinds 30-40 (a helmet or a
# lock beside a bike); 60 sits in that gap, on the side of keeping comparables, since the
# median shrugs off a few strays.
TITLE_SCORER = fuzz.token_set_ratio
TITLE_THRESHOLD = 60


@dataclass(frozen=True)
class Comparable:
    ad_id: int
    price: Decimal
    title_key: str
    relist_of_id: int | None
    area: Decimal | None


class Comparables:
    """One keyword's comparables, loaded once; `judge` any number of prices against them."""

    def __init__(self, rows):
        self.rows = list(rows)
        self._parent = {r.ad_id: r.relist_of_id for r in self.rows if r.relist_of_id}
        self._children = defaultdict(list)
        for child, parent in self._parent.items():
            self._children[parent].append(child)
        # Titles repeat (dealers, relists): each distinct one is scored once.
        self._by_title = defaultdict(list)
        for row in self.rows:
            self._by_title[row.title_key].append(row)
        self._titles = list(self._by_title)
        self._similar = {}

    @classmethod
    def load(cls, keyword, now=None):
        """The comparables of `keyword` as of `now`: one query (keywordad_found_idx)."""
        since = (now or timezone.now()) - timedelta(days=settings.PRICE_COMPARE_DAYS)
        rows = KeywordAd.objects.filter(
            keyword=keyword, found_at__gte=since, price__gt=0
        ).values_list("ad_id", "price", "ad__title_key", "ad__relist_of_id", "ad__living_area")
        return cls(Comparable(*row) for row in rows)

    def judge(self, price, title="", *, ad_id=None, relist_of_id=None, area=None) -> Judgement:
        """The judgement of `price` for an ad titled `title` (`area` m² when known), leaving out
        the ad `ad_id` (which relists `relist_of_id`) and its relist chain."""
        chain = self.chain(ad_id, relist_of_id)
        pool = [r for r in self.rows if r.ad_id not in chain]
        per_m2 = False
        if area is not None and area > 0:
            sized = [r for r in pool if r.area]
            if len(sized) >= settings.PRICE_COMPARE_MIN:
                pool, per_m2 = sized, True
        pool, narrowed = self._narrow(pool, title_key(title))
        if per_m2:
            value = price / area if price is not None else None
            values = [r.price / r.area for r in pool]
        else:
            value, values = price, [r.price for r in pool]
        return judgement_of(value, values, title=title, narrowed=narrowed, per_m2=per_m2)

    def chain(self, ad_id, relist_of_id):
        """`ad_id`, the ads it relists and the ads relisting it, as far as the comparables and
        the ad's own link tell (at most CHAIN_LIMIT steps each way)."""
        chain = {i for i in (ad_id, relist_of_id) if i is not None}
        current = relist_of_id
        for _ in range(CHAIN_LIMIT):
            current = self._parent.get(current)
            if current is None or current in chain:
                break
            chain.add(current)
        frontier = list(chain)
        for _ in range(CHAIN_LIMIT):
            frontier = [c for p in frontier for c in self._children.get(p, ()) if c not in chain]
            if not frontier:
                break
            chain.update(frontier)
        return chain

    def _narrow(self, pool, key):
        """(`pool` narrowed to titles like `key`, True) when at least PRICE_COMPARE_MIN remain,
        else (`pool`, False)."""
        if not key:
            return pool, False
        similar = self._similar.get(key)
        if similar is None:
            found = process.extract(
                key,
                self._titles,
                scorer=TITLE_SCORER,
                processor=None,  # title_key is already casefolded and stripped of punctuation
                score_cutoff=TITLE_THRESHOLD,
                limit=None,
            )
            similar = self._similar[key] = {title for title, _, _ in found}
        narrowed = [r for r in pool if r.title_key in similar]
        if len(narrowed) >= settings.PRICE_COMPARE_MIN:
            return narrowed, True
        return pool, False
