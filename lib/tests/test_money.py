"""The one price formatter: willhaben's style, German words for free and no price."""

from decimal import Decimal

import pytest

from lib.money import format_price


@pytest.mark.parametrize(
    "price,shown",
    [
        (Decimal("673.59"), "€ 673,59"),
        (Decimal("2190.00"), "€ 2.190"),
        (Decimal("1234.5"), "€ 1.234,50"),
        (Decimal("0"), "zu verschenken"),
        (Decimal("0.00"), "zu verschenken"),
        (None, "Preis auf Anfrage"),
    ],
)
def test_format_price(price, shown):
    assert format_price(price) == shown
