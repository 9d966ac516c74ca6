"""Reading willhaben's values: an ad's price, publication time and seller, a result's counts.

Whatever the marketplace sends, a value is used as it is meant or refused: an ad's value that
cannot be used raises BadAd (the ad is skipped), a result count that is not plausible raises
ParseError (the page fails).
"""

import re
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation

from scraping.errors import ParseError
from scraping.sources.fit import BadAd

CENT = Decimal("0.01")
# More than willhaben lists in all (a few million ads): a count above it is hostile or broken.
MAX_COUNT = 100_000_000
# A price or a timestamp longer than this is no number we can use.
MAX_NUMBER_LENGTH = 32
# The seller as willhaben names it: ORGID in every recorded format (2022-2026), ORG_UUID
# beside it since; private sellers have them too. Relists need the same seller (tracker.relists).
SELLER_ATTRIBUTES = ("ORGID", "ORG_UUID")
SELLER_ID_RE = re.compile(r"[0-9A-Za-z-]{1,64}")


def count(result, name, default, body):
    """A count field of the search result as an int in 0..MAX_COUNT, or ParseError."""
    value = result.get(name, default)
    amount = number(value)
    if (
        amount is None
        or not amount.is_finite()
        or amount != amount.to_integral_value()
        or not 0 <= amount <= MAX_COUNT
    ):
        raise ParseError(
            f"{name} {repr(value)[:60]} is not a count between 0 and {MAX_COUNT}", body=body
        )
    return int(amount)


def number(value):
    """A JSON number or a short numeric string as a Decimal (maybe NaN or infinite), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return Decimal(value)
    if isinstance(value, str) and len(value) <= MAX_NUMBER_LENGTH:
        try:
            return Decimal(value.strip())
        except InvalidOperation:
            return None
    return None


def price(value):
    """Euros rounded to cents; None when missing ("price on request").

    BadAd for anything else that is not a plain amount: text, NaN, infinite, negative, too big,
    or a positive fraction that rounds to 0 cents (only a literal 0 means "free").
    """
    if not value:
        return None
    amount = number(value)
    if amount is None or not amount.is_finite():
        raise BadAd(f"price {value[:40]!r} is not a number")
    if amount < 0:
        raise BadAd(f"price {value[:40]!r} is negative")
    if amount == 0:
        return Decimal("0.00")  # also "-0" and "0e5": free
    try:
        cents = amount.quantize(CENT)
    except InvalidOperation:
        raise BadAd(f"price {value[:40]!r} does not fit the price column") from None
    if cents == 0:
        raise BadAd(f"price {value[:40]!r} rounds to 0 cents but is not 0")
    return cents


def published(epoch_ms, iso):
    """The publication time (UTC), from epoch milliseconds or else the ISO string."""
    try:
        if epoch_ms:
            if len(epoch_ms) > MAX_NUMBER_LENGTH:
                raise ValueError("too long")
            return datetime.fromtimestamp(int(epoch_ms) / 1000, tz=UTC)
        if iso:
            when = datetime.fromisoformat(iso[:MAX_NUMBER_LENGTH].replace("Z", "+00:00"))
            # A time without zone is compared with aware cursors: take it as UTC.
            return when if when.tzinfo is not None else when.replace(tzinfo=UTC)
    except (ValueError, OverflowError, OSError) as exc:
        raise BadAd(f"publication time {(epoch_ms or iso)[:40]!r} is unreadable: {exc}") from None
    return None


def seller(first):
    """The seller's id (ORGID, else ORG_UUID); "" when the page names none we can trust."""
    for name in SELLER_ATTRIBUTES:
        value = first(name).strip()
        if SELLER_ID_RE.fullmatch(value):
            return value
    return ""


# Larger than any flat or house (m²), and the most the living_area column holds.
MAX_AREA = Decimal("100000")


def living_area(text):
    """A real estate ad's living area in m² ("52", "52.5", "52,5"), or None when it gives none or
    one we cannot trust: it only refines the price judgement, so a doubtful area is dropped, not
    the ad."""
    text = (text or "").strip().replace(",", ".")
    if not text or len(text) > MAX_NUMBER_LENGTH:
        return None
    try:
        area = Decimal(text)
    except InvalidOperation:
        return None
    if not area.is_finite() or area <= 0 or area >= MAX_AREA:
        return None
    return area.quantize(CENT)
