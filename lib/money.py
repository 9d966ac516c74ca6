"""The one euro formatter: willhaben's own style, used by messages, admin, chart and commands."""

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
