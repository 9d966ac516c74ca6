"""The statistics of a price judgement: pure functions, no database.

They take Decimals or floats (one kind per call) and answer in the same kind; the judgement runs
them on floats (thousands of comparables per ad, tracker.comparables) and rounds the answers to
cents.

Median and MAD (median absolute deviation) rather than mean and standard deviation: one ad at
€ 1 or € 99.999 among the comparables barely moves them. The modified z-score
0.6745 · (x − median) / MAD (Iglewicz and Hoaglin) is about as many standard deviations as a
normal set would give; |z| > 3.5 is their cut-off for an outlier.
"""

import re
from bisect import bisect_left
from decimal import ROUND_HALF_UP, Decimal
from statistics import median

Z_FACTOR = Decimal("0.6745")
OUTLIER_Z = -3.5
# MAD is 0 whenever more than half of the comparables share one price (ten bikes at a round
# € 100), and z would divide by it. The floor, 1 % of the median and at least € 1, keeps z finite
# and says "one per cent off the usual price is a normal difference"; the € 1 holds for cheap
# items, where a few cents must not count as an outlier.
MAD_FLOOR_SHARE = Decimal("0.01")
MAD_FLOOR_MIN = Decimal("1")

# Words in a title that say the ad is not what its price compares with: broken, for parts, a swap
# or a "wanted" ad. German and English (willhaben ads are written in both); each is matched as a
# whole word or phrase, ignoring case, so "Suche" matches "SUCHE Rennrad" but not "Suchergebnis".
BAIT_WORDS = (
    # German
    "defekt",
    "defekte",
    "defekter",
    "defektes",
    "bastler",
    "für bastler",
    "bastlerfahrzeug",
    "bastlergerät",
    "tausch",
    "tausche",
    "suche",
    "nur teile",
    "ersatzteilspender",
    "teilespender",
    "zum ausschlachten",
    "kaputt",
    "kaputte",
    "kaputter",
    "kaputtes",
    "nicht funktionsfähig",
    "ohne funktion",
    "gebrochen",
    # English
    "broken",
    "defective",
    "for parts",
    "parts only",
    "not working",
    "swap",
    "wanted",
    "looking for",
)
_BAIT_RE = re.compile(
    r"(?<!\w)(?:" + "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in BAIT_WORDS) + r")(?!\w)",
    re.IGNORECASE,
)


def mad(values, centre=None):
    """The median absolute deviation of `values` from `centre` (their median by default)."""
    centre = median(values) if centre is None else centre
    return median([abs(v - centre) for v in values])


def mad_floor(centre):
    """The smallest MAD z divides by: 1 % of the median, at least € 1 (see MAD_FLOOR_SHARE)."""
    if isinstance(centre, Decimal):
        return max(abs(centre) * MAD_FLOOR_SHARE, MAD_FLOOR_MIN)
    return max(abs(centre) * float(MAD_FLOOR_SHARE), float(MAD_FLOOR_MIN))


def modified_z(x, centre, spread):
    """0.6745 · (x − median) / MAD, the MAD raised to its floor."""
    return float(Z_FACTOR) * float(x - centre) / float(max(spread, mad_floor(centre)))


def percent_against(x, centre):
    """(x − median) / median in per cent, to one decimal: −23.0 is 23 % under the median."""
    if centre == 0:
        raise ValueError("percent against a median of 0")
    x, centre = _decimal(x), _decimal(centre)
    return ((x - centre) * 100 / centre).quantize(Decimal("0.1"), ROUND_HALF_UP)


def _decimal(value):
    """A float as the Decimal it prints as (673.59, not 673.590000000000031832...)."""
    return value if isinstance(value, Decimal) else Decimal(repr(value))


def percentile(x, values):
    """The share of `values` (not empty) cheaper than `x`, in per cent (0: none is cheaper)."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("percentile among no values")
    return 100.0 * bisect_left(ordered, x) / len(ordered)


def has_bait_words(text):
    """Does `text` name one of BAIT_WORDS, as a word?"""
    return bool(text) and _BAIT_RE.search(text) is not None


def label(*, n, percent, z, bait, min_count, deal_percent):
    """The PriceLabel value for a price `percent` against the median of `n` comparables.

    too_few: fewer than `min_count`. suspicious: an outlier far under the market (z < −3.5) whose
    title has bait words; such a price is not called a deal. deal: at least `deal_percent` under
    the median; high: at least as far over it; fair: between.
    """
    if n < min_count:
        return "too_few"
    if z is not None and z < OUTLIER_Z and bait:
        return "suspicious"
    if percent <= -deal_percent:
        return "deal"
    if percent >= deal_percent:
        return "high"
    return "fair"
