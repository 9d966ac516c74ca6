"""Reading the values of one Kleinanzeigen result card: price, date and place as the page prints
them.

A value that cannot be used raises BadAd (the card is skipped, the page goes on). The texts are
German and made for people: `1.224 €`, `569 € VB`, `VB`, `Zu verschenken`, a reduced price with its
old one (`285.000 € 319.000 €`), `Heute, 14:05`, `Gestern`, `21.07.2026`, `40212 Stadtmitte (1 km)`.
"""

import re
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from decimal import Decimal, InvalidOperation
from zoneinfo import ZoneInfo

from scraping.sources.fit import BadAd

# The site prints its times in German local time.
BERLIN = ZoneInfo("Europe/Berlin")
# "1.224 €", "1.190.000 €", "12,50 €": German thousands dots and decimal comma.
AMOUNT_RE = re.compile(r"(\d{1,3}(?:\.\d{3})+|\d+)(?:,(\d{1,2}))?\s*€")
NEGOTIABLE_RE = re.compile(r"\bVB\b")
FREE_TEXT = "zu verschenken"
# Longer than any price line the site prints: a card carrying more is not a price we know.
MAX_PRICE_TEXT = 80
DAY_RE = re.compile(r"(\d{1,2})\.(\d{1,2})\.(\d{4})")
CLOCK_RE = re.compile(r"(\d{1,2}):(\d{2})")
RELATIVE_DAYS = {"heute": 0, "gestern": 1}
POSTCODE_RE = re.compile(r"^(\d{5})\s+(.*)$")
# The searcher's distance "(ca. 5 km)", a service radius "+ 200 km", a mobile service "Kommt zu
# dir".
DISTANCE_RE = re.compile(r"\(\s*(?:ca\.\s*)?[\d.,]+\s*km\s*\)|\+\s*[\d.,]+\s*km|Kommt zu dir", re.I)


@dataclass(frozen=True)
class Price:
    amount: Decimal | None
    # "VB": the seller takes offers (alone: no price at all).
    negotiable: bool = False
    # A reduced price: the struck-through one the card shows beside it.
    old_amount: Decimal | None = None


def price(text):
    """The card's price line as a Price; BadAd for a text that names no price we can read.

    `VB` alone is "no price" (None, as willhaben's price on request), `Zu verschenken` is free (0).
    A second amount is the old price of a reduced ad; it counts only when it is higher.
    """
    text = " ".join((text or "").split())
    if len(text) > MAX_PRICE_TEXT:
        raise BadAd(f"price text {text[:40]!r}… is longer than any price")
    negotiable = bool(NEGOTIABLE_RE.search(text))
    if text.lower() == FREE_TEXT:
        return Price(Decimal("0.00"))
    amounts = [_amount(whole, cents) for whole, cents in AMOUNT_RE.findall(text)]
    if not amounts:
        if not text or negotiable:
            return Price(None, negotiable=negotiable)
        raise BadAd(f"price {text[:40]!r} is not a price")
    if len(amounts) > 2:
        raise BadAd(f"price {text[:40]!r} holds {len(amounts)} amounts")
    current = amounts[0]
    old = amounts[1] if len(amounts) == 2 and amounts[1] > current else None
    return Price(current, negotiable=negotiable, old_amount=old)


def _amount(whole, cents):
    try:
        return Decimal(whole.replace(".", "") + "." + (cents or "0").ljust(2, "0")).quantize(
            Decimal("0.01")
        )
    except InvalidOperation:
        raise BadAd(f"price {whole!r} is not a number") from None


def published(text, now):
    """The card's date as an aware datetime, or None when the card shows none.

    `Heute, 14:05` and `Gestern, 09:12` are minutes in Berlin's time on `now`'s day (or the day
    before); a day alone (`Gestern`, `21.07.2026`) is that day's midnight in Berlin.
    """
    text = " ".join((text or "").split())
    if not text:
        return None
    today = now.astimezone(BERLIN).date()
    word = text.split(",")[0].strip().lower()
    if word in RELATIVE_DAYS:
        day = today - timedelta(days=RELATIVE_DAYS[word])
    else:
        match = DAY_RE.search(text)
        if match is None:
            raise BadAd(f"date {text[:40]!r} is not a date")
        try:
            day = datetime(int(match.group(3)), int(match.group(2)), int(match.group(1))).date()
        except ValueError as exc:
            raise BadAd(f"date {text[:40]!r} is not a date: {exc}") from None
    clock = CLOCK_RE.search(text)
    moment = time(0, 0)
    if clock is not None:
        hours, minutes = int(clock.group(1)), int(clock.group(2))
        if hours > 23 or minutes > 59:
            raise BadAd(f"time {text[:40]!r} is not a time of day")
        moment = time(hours, minutes)
    return datetime.combine(day, moment, tzinfo=BERLIN)


def place(text):
    """(postcode, place) from `40212 Stadtmitte (1 km)`; the distance is the searcher's, not the
    ad's, and is left out."""
    text = " ".join(DISTANCE_RE.sub(" ", text or "").split())
    match = POSTCODE_RE.match(text)
    if match is None:
        return "", text
    return match.group(1), match.group(2)
