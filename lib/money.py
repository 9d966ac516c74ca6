"""The one euro formatter: willhaben's own style, used by messages, admin, chart and commands."""

import re
from decimal import ROUND_HALF_UP, Decimal

from django.utils.translation import gettext_lazy as _


def euro(value) -> str:
    """2190 → "€ 2.190", 1234.5 → "€ 1.234,50" (Austrian notation: no cents when whole)."""
    amount = Decimal(value)
    if amount == amount.to_integral_value():
        number = f"{int(amount):,}".replace(",", ".")
    else:
        whole, cents = f"{amount.quantize(Decimal('0.01'), ROUND_HALF_UP):,.2f}".split(".")
        number = f"{whole.replace(',', '.')},{cents}"
    return f"€ {number}"


# willhaben's words ("Preis auf Anfrage", "zu verschenken" in German; locale/de).
PRICE_ON_REQUEST = _("price on request")
FREE = _("free")


def format_price(price) -> str:
    """euro(), or willhaben's words for a free item (0) and no price (None)."""
    if price is None:
        return str(PRICE_ON_REQUEST)
    return str(FREE) if Decimal(price) == 0 else euro(price)


def price_range(price_min=None, price_max=None) -> str:
    """A keyword's price bounds in words: "bis € 500", "ab € 100", "€ 100 – 250,50", or "" for
    none."""
    if price_min is not None and price_max is not None:
        return f"{euro(price_min)} – {euro(price_max)[2:]}"
    if price_max is not None:
        return f"bis {euro(price_max)}"
    if price_min is not None:
        return f"ab {euro(price_min)}"
    return ""


THOUSANDS = re.compile(r"\d{1,3}(\.\d{3})+")
DOT_DECIMAL = re.compile(r"\d+\.\d{1,2}")


def parse_euro(text) -> Decimal:
    """What euro() writes, and what people type, back to a Decimal: "€ 2.000", "2.000", "2000",
    "1.234,50", "-5"; raises ValueError for anything else.

    Austrian notation: a comma is the decimal mark and dots group thousands. A single dot followed
    by one or two digits ("2000.00", "12.5") can only be a decimal point."""
    value = str(text).replace("€", "").replace("\u00a0", "").replace(" ", "")
    sign, value = ("-", value[1:]) if value.startswith("-") else ("", value)
    if "," in value:
        whole, _comma, cents = value.partition(",")
    elif DOT_DECIMAL.fullmatch(value):
        whole, _dot, cents = value.partition(".")
    else:
        whole, cents = value, "0"
    if THOUSANDS.fullmatch(whole):
        whole = whole.replace(".", "")
    if not (whole.isascii() and whole.isdigit() and cents.isascii() and cents.isdigit()):
        raise ValueError(f"not an amount in euros: {text!r}")
    return Decimal(f"{sign}{whole}.{cents}")
