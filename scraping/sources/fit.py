"""Does a parsed ad fit the `Ad` columns? One hostile ad must not sink its page.

`fit_ad` returns the ad as it will be stored, or raises `BadAd` when it cannot be
stored faithfully (a price that is NaN/infinite, negative or too big for the column, an
id or URL too long or holding NUL). Text that can be shortened without losing the ad
(title, location, postcode) is clipped and freed of NUL characters, which PostgreSQL
text cannot hold. A seller id that does not fit is dropped: the seller is then unknown.
An image URL that is not an absolute http(s) URL is dropped: the sender hands it to
Telegram, which would upload any local file it names.
"""

from dataclasses import replace
from decimal import Decimal
from urllib.parse import urlsplit

from scraping.errors import ParseError
from tracker.models import Ad


class BadAd(ValueError):
    """The ad cannot be stored as the marketplace sent it; it is skipped, the page goes on."""


# What a parser raises for an item whose structure it does not know.
SHAPE_ERRORS = (KeyError, IndexError, TypeError, ValueError, AttributeError, RecursionError)


def fit_page(items, parse, *, kind, body):
    """(ads that fit, reasons for the skipped ones) of a page's raw `items`, each read by `parse`.

    One item with an unusable value or an unknown structure is skipped and named; a page where
    no item could be read and some had an unknown structure is a format change, not a page of
    bad ads: ParseError.
    """
    ads, bad, misshapen = [], [], []
    for item in items:
        try:
            ads.append(fit_ad(parse(item)))
        except BadAd as exc:
            bad.append(str(exc))
        except SHAPE_ERRORS as exc:
            misshapen.append(f"{kind} in an unknown format: {exc!r}"[:300])
    if misshapen and not ads:
        raise ParseError(f"unexpected {kind} format: {misshapen[0]}", body=body)
    return ads, bad + misshapen


def _max_length(name):
    return Ad._meta.get_field(name).max_length


def _price_limit():
    field = Ad._meta.get_field("price")
    return Decimal(10) ** (field.max_digits - field.decimal_places)


def fit_ad(ad):
    """The ad clipped to its columns, or BadAd saying why it cannot be stored."""
    external_id = _exact(ad.external_id, "external_id", required=True)
    url = _exact(ad.url, "url", required=True)
    price = ad.price
    if price is not None:
        if not price.is_finite():
            raise BadAd(f"ad {external_id}: price {price} is not a number")
        if price < 0:
            raise BadAd(f"ad {external_id}: price {price} is negative")
        if abs(price) >= _price_limit():
            raise BadAd(f"ad {external_id}: price {price} does not fit the price column")
    return replace(
        ad,
        old_price=_old_price(ad.old_price, price),
        external_id=external_id,
        url=url,
        title=_clip(ad.title, "title"),
        location=_clip(ad.location, "location"),
        postcode=_clip(ad.postcode, "postcode"),
        image_url=image_url(ad.image_url),
        seller_id=_fits(ad.seller_id, "seller_id"),
    )


def _old_price(old, price):
    """An old price that is a storable amount above the current one, else None (it only adds
    history; a doubtful one is left out rather than the ad)."""
    if old is None or price is None or not old.is_finite() or old <= price:
        return None
    return old if old < _price_limit() else None


def image_url(value):
    """`value` if it is an absolute http(s) URL that fits its column, else ""."""
    value = value or ""
    if "\x00" in value or len(value) > _max_length("image_url"):
        return ""
    try:
        parts = urlsplit(value)
    except ValueError:
        return ""
    return value if parts.scheme.lower() in ("http", "https") and parts.netloc else ""


def _exact(value, name, required=False):
    if required and not value:
        raise BadAd(f"ad without {name}")
    if "\x00" in value:
        raise BadAd(f"{name} {value[:80]!r} holds a NUL character")
    if len(value) > _max_length(name):
        raise BadAd(
            f"{name} is {len(value)} characters, the column holds {_max_length(name)}: "
            f"{value[:80]!r}"
        )
    return value


def _fits(value, name):
    """`value`, or "" when it does not fit its column whole (an id cut short is another id)."""
    return "" if "\x00" in value or len(value) > _max_length(name) else value


def _clip(value, name):
    return value.replace("\x00", "")[: _max_length(name)]
