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

import itertools
from collections import defaultdict
from datetime import timedelta
from typing import NamedTuple

import numpy
from django.conf import settings
from django.db import connections
from django.db.models import FloatField
from django.db.models.functions import Cast
from django.utils import timezone
from rapidfuzz import fuzz, process

from tracker.models import KeywordAd
from tracker.price_judgement import Judgement, judgement_of
from tracker.relists import CHAIN_LIMIT, title_key

# Titles are compared by their words in sorted order (rapidfuzz's token_sort_ratio: fuzz.ratio of
# the sorted words), so word order does not count ("Carbon Rennrad" is "Rennrad Carbon"). The
# comparables' words are sorted once at load and one rapidfuzz.process.cdist call scores a whole
# page against them: 10,000 comparables cost ~10 ms a page (token_set_ratio, which re-splits every
# title for every pair, cost ~250 ms; bench/price_check.py). On titles of a mixed search (bikes,
# helmets, locks with brands, models and sizes) 55 keeps about two thirds of the same kind of item
# and lets in about 6 % of other kinds; the median shrugs off those few strays. A near copy of the
# title scores above 90 ("specialized tarmac sl7 rennrad carbon 56 cm" / "specialized tarmac
# rennrad carbon 50 cm": 93), another kind about 30 (a lock beside that bike: 32).
TITLE_THRESHOLD = 55


def sorted_words(key):
    return " ".join(sorted(key.split()))


class Comparable(NamedTuple):
    ad_id: int
    price: float
    title_key: str
    relist_of_id: int | None
    area: float | None


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
        self._sorted_titles = [sorted_words(t) for t in self._titles]
        self._similar = {}

    @classmethod
    def load(cls, keyword, now=None):
        """The comparables of `keyword` as of `now`: one query (keywordad_found_idx)."""
        since = (now or timezone.now()) - timedelta(days=settings.PRICE_COMPARE_DAYS)
        # Prices and areas as floats: the statistics run on floats (price_judgement.judgement_of),
        # and the database converts them faster than Django turns 10,000 values into Decimals.
        rows = (
            KeywordAd.objects.filter(keyword=keyword, found_at__gte=since, price__gt=0)
            .annotate(
                price_float=Cast("price", FloatField()),
                area_float=Cast("ad__living_area", FloatField()),
            )
            .values_list("ad_id", "price_float", "ad__title_key", "ad__relist_of_id", "area_float")
        )
        # Run on the cursor: the columns already have their Python types, and Django's per-row
        # converters cost a tenth of a page's judging at 10,000 rows (bench/price_check.py).
        sql, params = rows.query.sql_with_params()
        with connections[rows.db].cursor() as cursor:
            cursor.execute(sql, params)
            return cls(map(Comparable._make, cursor.fetchall()))

    def judge_all(self, items):
        """[Judgement] of `items`: (price, title, ad id, relist_of id, area) each; their titles
        are scored against the comparables' together."""
        self._score({title_key(title) for _price, title, *_rest in items})
        return [
            self.judge(price, title, ad_id=ad_id, relist_of_id=relist_of_id, area=area)
            for price, title, ad_id, relist_of_id, area in items
        ]

    def judge(self, price, title="", *, ad_id=None, relist_of_id=None, area=None) -> Judgement:
        """The judgement of `price` for an ad titled `title` (`area` m² when known), leaving out
        the ad `ad_id` (which relists `relist_of_id`) and its relist chain."""
        chain = self.chain(ad_id, relist_of_id)
        per_m2 = area is not None and area > 0
        minimum = settings.PRICE_COMPARE_MIN

        def usable(rows):
            if not chain and not per_m2:
                return list(rows)
            return [r for r in rows if r.ad_id not in chain and (r.area or not per_m2)]

        key = title_key(title)
        self._score({key})
        similar = [self._by_title[t] for t in self._similar.get(key, ())]
        narrowed = usable(itertools.chain.from_iterable(similar))
        pool = narrowed if len(narrowed) >= minimum else usable(self.rows)
        if per_m2 and len(pool) < minimum:  # too few give an area: compare prices instead
            per_m2 = False
            narrowed = usable(itertools.chain.from_iterable(similar))
            pool = narrowed if len(narrowed) >= minimum else usable(self.rows)
        if per_m2:
            value = float(price) / float(area) if price is not None else None
            values = [r.price / r.area for r in pool]
        else:
            value, values = price, [r.price for r in pool]
        return judgement_of(value, values, title=title, narrowed=pool is narrowed, per_m2=per_m2)

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

    def _score(self, keys):
        """Finds the comparables' titles like each of `keys` (title keys) not scored yet, in
        one pass over them."""
        keys = [k for k in keys if k and k not in self._similar]
        if not keys or not self._titles:
            self._similar.update({k: [] for k in keys})
            return
        scores = process.cdist(
            [sorted_words(k) for k in keys],
            self._sorted_titles,
            scorer=fuzz.ratio,
            processor=None,  # title keys are already casefolded, without punctuation
            score_cutoff=TITLE_THRESHOLD,
            dtype=numpy.uint8,
            workers=1,  # the web and the workers share the cores
        )
        for key, row in zip(keys, scores, strict=True):
            self._similar[key] = [self._titles[i] for i in numpy.flatnonzero(row)]
