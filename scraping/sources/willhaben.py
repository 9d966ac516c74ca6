"""willhaben.at: query or pasted search URL -> API request -> pages of ParsedAds.

The JSON search endpoint returns the object a search page embeds at
`props.pageProps.searchResult` in its `__NEXT_DATA__` script. We accept that
object bare, wrapped in the whole `__NEXT_DATA__`, or inside an HTML page, so
recorded pages and the live API parse through the same code.
"""

import json
import math
import re
from decimal import Decimal, InvalidOperation
from urllib.parse import parse_qs, parse_qsl, urlsplit

from django.conf import settings

from scraping import http
from scraping.errors import BadQuery, FetchError, ParseError
from scraping.sources.base import Page, ParsedAd, Source
from scraping.sources.fit import BadAd, fit_page
from scraping.sources.willhaben_filters import url_filters
from scraping.sources.willhaben_values import count, living_area, price, published, seller

API_PREFIX = "/webapi/iad/search/atz/seo/"
MARKETPLACE_PATH = "kaufen-und-verkaufen/marktplatz"
AD_URL_BASE = "https://www.willhaben.at/iad/"
# Without this header the API answers 400 with an empty body.
CLIENT_HEADER = "api@willhaben.at;responsive_web;server;1.0.0;desktop"
MAX_ROWS = 200  # the server caps `rows` here
# Paging parameters are ours to set; a pasted URL's values would break the paging rules.
PAGING_PARAMS = {"page", "rows", "sort", "publishedDateTo"}
NEXT_DATA_RE = re.compile(rb'<script id="__NEXT_DATA__"[^>]*>(.*?)</script>', re.S)
# More ads than any page holds (rows are capped at MAX_ROWS, a few paid ads sit on top).
MAX_PAGE_ADS = 2 * MAX_ROWS


class WillhabenSource(Source):
    slug = "willhaben"
    max_rows = MAX_ROWS

    def describe(self, query, *, price_min=None, price_max=None):
        """Words as typed; a pasted URL as its search words or category path, with its price
        bounds."""
        if not query.strip().lower().startswith(("http://", "https://")):
            return super().describe(query, price_min=price_min, price_max=price_max)
        try:
            path, params = _from_url(query.strip())
        except BadQuery:
            return super().describe(query, price_min=price_min, price_max=price_max)
        params = _narrow_price(params, "PRICE_FROM", price_min, max, math.floor)
        params = _narrow_price(params, "PRICE_TO", price_max, min, math.ceil)
        values = dict(params)
        words = values.get("keyword", "").strip() or _path_label(path)
        return super().describe(
            words or query,
            price_min=_bound(values.get("PRICE_FROM")),
            price_max=_bound(values.get("PRICE_TO")),
        )

    def fetch_pages(
        self, query, *, cursor=None, max_pages, price_min=None, price_max=None, rows=None
    ):
        path, params = build_request(query, price_min=price_min, price_max=price_max)
        rows = min(rows or settings.SCRAPE_ROWS, MAX_ROWS)
        url = settings.WILLHABEN_BASE_URL.rstrip("/") + API_PREFIX + path
        pin = None
        for number in range(1, max_pages + 1):
            page_params = [*params, ("rows", str(rows)), ("page", str(number))]
            if pin:
                # Page 2+ pin the result set so ads published meanwhile don't shift it.
                page_params.append(("publishedDateTo", pin))
            response = http.fetch(url, params=page_params, headers=request_headers())
            result = parse_body(response.content)
            page = build_page(
                result, number=number, rows=rows, cursor=cursor, body=response.content
            )
            pin = pin or next_link_pin(result)
            yield page
            if page.reached_cursor or page.is_last:
                return

    def validate_query(self, query, *, price_min=None, price_max=None):
        path, params = build_request(query, price_min=price_min, price_max=price_max)
        url_filters(params)

    def url_filters(self, query):
        """A pasted URL's filters besides words and prices ("region: Wien"); sent as they are."""
        if not query.strip().lower().startswith(("http://", "https://")):
            return []
        try:
            return url_filters(_from_url(query.strip())[1])
        except BadQuery as exc:
            return [str(exc)]

    def parse(self, content, *, number, rows, cursor=None):
        return build_page(
            parse_body(content), number=number, rows=rows, cursor=cursor, body=content
        )


def request_headers():
    return {"x-wh-client": CLIENT_HEADER, "Accept": "application/json"}


def build_request(query, *, price_min=None, price_max=None):
    """(API search path, [(param, value), ...]) for plain words or a pasted search URL."""
    query = query.strip()
    if query.lower().startswith(("http://", "https://")):
        path, params = _from_url(query)
    else:
        path, params = MARKETPLACE_PATH, [("keyword", query)]
    params = _narrow_price(params, "PRICE_FROM", price_min, max, math.floor)
    params = _narrow_price(params, "PRICE_TO", price_max, min, math.ceil)
    return path, [*params, ("sort", "1")]


def _from_url(url):
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if not (host == "willhaben.at" or host.endswith(".willhaben.at")):
        raise BadQuery(f"not a willhaben URL: {host or url!r}")
    path = parts.path
    for prefix in (API_PREFIX, "/iad/"):
        if path.startswith(prefix):
            path = path[len(prefix) :]
            break
    else:
        raise BadQuery(f"not a willhaben search URL: {parts.path!r}")
    params = [
        (k, v) for k, v in parse_qsl(parts.query, keep_blank_values=False) if k not in PAGING_PARAMS
    ]
    return path.strip("/"), params


# Path segments that name no search: the marketplace root and top-level sections.
GENERIC_SEGMENTS = {"kaufen-und-verkaufen", "marktplatz", "immobilien"}


def _path_label(path):
    """ "immobilien/mietwohnungen/wien" → "Mietwohnungen Wien" (category ids and listing suffixes
    dropped)."""
    segments = [
        re.sub(r"-\d+$", "", s)
        for s in path.split("/")
        if s and s not in GENERIC_SEGMENTS and not s.endswith("-angebote")
    ]
    return " ".join("-".join(w.capitalize() for w in s.split("-")) for s in segments[-2:] if s)


def _bound(value):
    try:
        return Decimal(value) if value else None
    except InvalidOperation:
        return None


def _narrow_price(params, name, bound, pick, rounding):
    """Combine the URL's price parameter with the keyword's bound (the narrower wins)."""
    if bound is None:
        return params
    values = [int(rounding(bound))]
    for key, value in params:
        if key == name:
            try:
                values.append(int(Decimal(value)))
            except InvalidOperation:
                pass  # a malformed URL value: the keyword's bound alone applies
    rest = [(k, v) for k, v in params if k != name]
    return [*rest, (name, str(pick(values)))]


def parse_body(content):
    """The `searchResult` object from a JSON body, a `__NEXT_DATA__` object or an HTML page."""
    stripped = content.lstrip()
    if stripped[:1] == b"<":
        match = NEXT_DATA_RE.search(content)
        if match is None:
            # An HTML page without our data is a bot challenge, not a format change.
            raise FetchError(
                "challenge", "HTML page instead of JSON (bot challenge?)", banned=True, body=content
            )
        stripped = match.group(1)
    try:
        data = json.loads(stripped)
    except ValueError as exc:
        raise ParseError(f"response is not JSON: {exc}", body=content) from None
    except RecursionError:
        raise ParseError("response JSON is nested too deeply", body=content) from None
    if isinstance(data, dict) and "props" in data:
        props = data.get("props")
        page_props = props.get("pageProps") if isinstance(props, dict) else None
        data = page_props.get("searchResult") if isinstance(page_props, dict) else None
    if not isinstance(data, dict) or not isinstance(data.get("advertSummaryList"), dict):
        raise ParseError("no searchResult.advertSummaryList in the response", body=content)
    return data


def build_page(result, *, number, rows, cursor, body=b""):
    """The page's ads; one ad that cannot be read is skipped (`extra["bad_ads"]`), not the page.

    The page fails (ParseError) when its counts are not plausible, when it holds more ads than
    any page can, or when none of its ads has the shape we know (the format changed).
    """
    raw_ads = result["advertSummaryList"].get("advertSummary") or []
    if not isinstance(raw_ads, list):
        raise ParseError(f"advertSummary is a {type(raw_ads).__name__}, not a list", body=body)
    if len(raw_ads) > MAX_PAGE_ADS:
        raise ParseError(f"{len(raw_ads)} ads on one page (at most {MAX_PAGE_ADS})", body=body)
    rows_found = count(result, "rowsFound", 0, body)
    rows_returned = count(result, "rowsReturned", len(raw_ads), body)
    ads, bad = fit_page(raw_ads, parse_ad, kind="ad", body=body)
    is_last = rows_returned < rows or number * rows >= rows_found
    page = Page(
        number=number,
        ads=ads,
        rows_found=rows_found,
        reached_cursor=reaches_cursor(ads, cursor),
        is_last=is_last,
    )
    if bad:
        page.extra["bad_ads"] = bad
    return page


def reaches_cursor(ads, cursor):
    """True when the page's oldest end is at or before the cursor.

    willhaben puts paid/bumped ads with old dates at the top of a newest-first
    list, so looking at "any ad older than the cursor" would stop paging early.
    The page's last non-top ad is the oldest of the sorted stream: once it is
    at or before the cursor, later pages hold only ads we have already seen.
    """
    if cursor is None or cursor[0] is None:
        return False
    tail = [ad for ad in ads if not ad.is_top and ad.published_at is not None]
    return bool(tail) and tail[-1].published_at <= cursor[0]


def next_link_pin(result):
    """The `publishedDateTo` of the response's nextLink, if there is one (a malformed link list has
    none)."""
    paging = result.get("pagingLinksList")
    links = paging.get("contextLink") if isinstance(paging, dict) else None
    for link in links if isinstance(links, list) else []:
        if isinstance(link, dict) and link.get("description") == "nextLink":
            target = link.get("relativePath") or link.get("uri") or ""
            if not isinstance(target, str):
                return None
            values = parse_qs(urlsplit(target).query).get("publishedDateTo")
            if values:
                return values[0]
    return None


def parse_ad(raw):
    """One `advertSummary` entry as a ParsedAd.

    Raises BadAd for a value it cannot use (the ad is skipped) and one of fit.SHAPE_ERRORS for an
    entry that is not the structure we know.
    """
    attrs = {a["name"]: a.get("values") or [] for a in raw["attributes"]["attribute"]}

    def first(name):
        values = attrs.get(name)
        return str(values[0]) if values else ""

    external_id = str(raw["id"])
    seo_url = first("SEO_URL").lstrip("/")
    try:
        amount = price(first("PRICE") or first("PRICE/AMOUNT"))
        published_at = published(first("PUBLISHED"), first("PUBLISHED_String"))
    except BadAd as exc:
        raise BadAd(f"ad {external_id[:64]!r}: {exc}") from None
    return ParsedAd(
        external_id=external_id,
        title=str(first("HEADING") or raw.get("description") or ""),
        price=amount,
        url=AD_URL_BASE + seo_url if seo_url else f"{AD_URL_BASE}object?adId={external_id}",
        location=first("LOCATION"),
        postcode=first("POSTCODE"),
        image_url=_image(raw),
        published_at=published_at,
        is_top="RESULT_LIST_TOPAD" in attrs,
        seller_id=seller(first),
        living_area=living_area(first("ESTATE_SIZE/LIVING_AREA") or first("ESTATE_SIZE")),
    )


def _image(raw):
    images = (raw.get("advertImageList") or {}).get("advertImage") or []
    return str(images[0].get("mainImageUrl") or "") if images else ""
