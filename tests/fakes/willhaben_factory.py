"""Build willhaben ads and search results in the real API format (see shared/fixtures/willhaben).

The fake server builds its responses from here, never from the recorded fixtures,
so tests can shape exactly the ads they need.
"""

import itertools
import uuid
from datetime import UTC, datetime, timedelta

_ids = itertools.count(900_000_001)
BASE_TIME = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
# The one private seller of every ad unless a test names another (relists need the same seller).
SELLER = "20198250"


def epoch_ms(when):
    return int(when.timestamp() * 1000)


def make_raw_ad(
    *,
    ad_id=None,
    title=None,
    price="100",
    published=None,
    top=False,
    bumped=False,
    location="Wien",
    postcode="1010",
    seller=SELLER,
):
    """One `advertSummary` entry. `price=None` leaves PRICE out (price on request);
    `seller=None` leaves the seller out (ORGID and ORG_UUID, as the recorded pages carry them)."""
    ad_id = str(ad_id or next(_ids))
    title = title or f"Test ad {ad_id}"
    published = published or BASE_TIME
    attrs = {
        "HEADING": title,
        "LOCATION": location,
        "POSTCODE": postcode,
        "PUBLISHED": str(epoch_ms(published)),
        "PUBLISHED_String": published.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "SEO_URL": f"kaufen-und-verkaufen/d/{title.lower().replace(' ', '-')}-{ad_id}/",
        "ADID": ad_id,
        "ISPRIVATE": "1",
    }
    if seller is not None:
        attrs["ORGID"] = str(seller)
        attrs["ORG_UUID"] = str(uuid.uuid5(uuid.NAMESPACE_URL, f"willhaben-seller-{seller}"))
    if price is not None:
        attrs["PRICE"] = str(price)
        attrs["PRICE_FOR_DISPLAY"] = f"€ {price}"
    if bumped:
        attrs["IS_BUMPED"] = "1"
    if top:
        attrs["RESULT_LIST_TOPAD"] = "topad_result"
    return {
        "id": ad_id,
        "verticalId": 5,
        "adTypeId": 67,
        "description": title,
        "attributes": {"attribute": [{"name": k, "values": [v]} for k, v in attrs.items()]},
        "advertImageList": {
            "advertImage": [
                {"id": 1, "mainImageUrl": f"https://cache.willhaben.at/mmo/{ad_id}_hoved.jpg"}
            ]
        },
    }


def make_raw_ads(n, *, newest=None, step=timedelta(minutes=1), **kw):
    """`n` ads, newest first, one `step` apart starting at `newest`."""
    newest = newest or BASE_TIME
    return [make_raw_ad(published=newest - i * step, **kw) for i in range(n)]


def published_ms(raw):
    return int(_attr(raw, "PUBLISHED"))


def set_price(raw, price):
    """Change an ad's price in place (None: price on request)."""
    attrs = [
        a for a in raw["attributes"]["attribute"] if a["name"] not in ("PRICE", "PRICE_FOR_DISPLAY")
    ]
    if price is not None:
        attrs += [
            {"name": "PRICE", "values": [str(price)]},
            {"name": "PRICE_FOR_DISPLAY", "values": [f"€ {price}"]},
        ]
    raw["attributes"]["attribute"] = attrs


def _attr(raw, name):
    for a in raw["attributes"]["attribute"]:
        if a["name"] == name:
            return a["values"][0]
    return None


def search_result(ads, *, rows_found, rows_requested, page, path, next_pin=None):
    """A `searchResult` object: what /webapi/iad/search/atz/seo/... returns."""
    links = [
        {
            "id": "0",
            "description": "selfLink",
            "relativePath": f"/search/atz/seo/{path}?page={page}&rows={rows_requested}",
        }
    ]
    if next_pin is not None:
        rel = (
            f"/search/atz/seo/{path}?publishedDateTo={next_pin}"
            f"&page={page + 1}&rows={rows_requested}"
        )
        links.append(
            {
                "id": "2",
                "description": "nextLink",
                "relativePath": rel,
                "uri": "https://api.willhaben.at/restapi/v2" + rel,
            }
        )
    return {
        "id": 131,
        "rowsRequested": rows_requested,
        "rowsFound": rows_found,
        "rowsReturned": len(ads),
        "pageRequested": page,
        "searchDate": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S+0000"),
        "advertSummaryList": {"advertSummary": ads},
        "pagingLinksList": {"contextLink": links},
    }
