"""kleinanzeigen.de: words or a pasted search URL -> result pages (server-rendered HTML) ->
ParsedAds.

A search page is `/s-[category/][location/][modifiers/]<words>/k0[c<id>][l<id>]`; page N adds the
modifier `seite:N`, a price range `preis:<min>:<max>`. The page lists `article.aditem` cards, newest
first below the paid top ads (`li.is-topad`), 25 to a page. Cards are read with selectolax (the
Lexbor HTML5 parser: CSS selectors, a few milliseconds for a 250 KB page).
"""

import math
import re
from dataclasses import dataclass, replace
from urllib.parse import quote, unquote, urlsplit

from django.conf import settings
from django.utils import timezone
from selectolax.lexbor import LexborHTMLParser

from lib.money import price_range
from scraping import http
from scraping.errors import BadQuery, FetchError, ParseError
from scraping.sources.base import Page, ParsedAd, Source
from scraping.sources.fit import BadAd, fit_page
from scraping.sources.kleinanzeigen_values import place, price, published

AD_URL_BASE = "https://www.kleinanzeigen.de"
PAGE_SIZE = 25
# More cards than any page holds (25 regular ones, a few top ads, ads of partner sites).
MAX_PAGE_ADS = 200
CARD = "article.aditem"
# The last path segment of a search: k0 (words before it), category, location, radius.
CODE_RE = re.compile(r"(k0)?(?:c(\d+))?(?:l(\d+))?(?:r(\d+))?")
SLUG_RE = re.compile(r"[a-z0-9äöüß][a-z0-9äöüß_-]*")
PRICE_SEGMENT_RE = re.compile(r"preis:(\d*):(\d*)")
# Modifiers a pasted URL may carry: kept (offers or wanted ads), or dropped because Lago sets them
# itself (paging, newest-first order) or cannot apply them to its cursor (price: see SearchQuery).
KEPT_MODIFIERS = {"anzeige:angebote", "anzeige:gesuche"}
DROPPED_MODIFIERS = ("seite:", "sortierung:")
# What the site writes on a search that finds nothing.
NO_RESULTS = ("keine ergebnisse", "keine anzeigen gefunden", "leider nichts gefunden")
# What a bot-protection or block page says instead of results.
CHALLENGE_MARKERS = (
    "captcha",
    "access denied",
    "just a moment",
    "checking your browser",
    "sicherheitsüberprüfung",
    "ungewöhnliche aktivität",
    "bist du ein mensch",
)
MAX_SCAN = 20_000  # characters of a non-result page searched for the markers above


@dataclass(frozen=True)
class SearchQuery:
    """A search as Lago asks for it: the URL's path without paging, sorting and radius.

    A pasted URL's price range stays in the request (the site filters) and is narrowed by the
    keyword's own bounds; `price_min`/`price_max` are the range that results.
    """

    words: str = ""
    category: str = ""
    location: str = ""
    modifiers: tuple = ()
    code: str = "k0"
    price_min: int | None = None
    price_max: int | None = None

    def path(self, page=1):
        segments = [s for s in (self.category, self.location) if s]
        segments += self.modifiers
        if self.price_min is not None or self.price_max is not None:
            low = "" if self.price_min is None else str(self.price_min)
            high = "" if self.price_max is None else str(self.price_max)
            segments.append(f"preis:{low}:{high}")
        if page > 1:
            segments.append(f"seite:{page}")
        if self.words:
            segments.append(self.words)
        return "/s-" + "/".join(quote(s, safe=":-") for s in [*segments, self.code])

    def narrowed(self, price_min, price_max):
        """The keyword's price bounds and the URL's: the narrower of each wins."""
        low = _pick(max, self.price_min, None if price_min is None else math.floor(price_min))
        high = _pick(min, self.price_max, None if price_max is None else math.ceil(price_max))
        return replace(self, price_min=low, price_max=high)


class KleinanzeigenSource(Source):
    slug = "kleinanzeigen"
    # The site pages 25 cards whatever is asked: a sweep reads more pages, not bigger ones.
    max_rows = PAGE_SIZE

    @property
    def min_interval_minutes(self):
        return settings.KLEINANZEIGEN_MIN_INTERVAL_MINUTES

    def fetch_pages(
        self, query, *, cursor=None, max_pages, price_min=None, price_max=None, rows=None
    ):
        search = build_query(query).narrowed(price_min, price_max)
        base = settings.KLEINANZEIGEN_BASE_URL.rstrip("/")
        for number in range(1, max_pages + 1):
            response = http.fetch(
                base + search.path(number),
                headers=request_headers(),
                min_gap_ms=settings.KLEINANZEIGEN_REQUEST_GAP_MS,
            )
            page = self.parse(response.content, number=number, rows=PAGE_SIZE, cursor=cursor)
            yield page
            if page.reached_cursor or page.is_last:
                return

    def validate_query(self, query, *, price_min=None, price_max=None):
        build_query(query)

    def describe(self, query, *, price_min=None, price_max=None):
        """`wohnung · Duesseldorf · bis € 1.500`: the words, the place of a pasted URL (as its
        slug spells it), the price range."""
        if not query.strip().lower().startswith(("http://", "https://")):
            return super().describe(query, price_min=price_min, price_max=price_max)
        try:
            search = build_query(query).narrowed(price_min, price_max)
        except BadQuery:
            return super().describe(query, price_min=price_min, price_max=price_max)
        words = " ".join(search.words.split("-")) or _label(search.category)
        parts = [words, _label(search.location), price_range(search.price_min, search.price_max)]
        return " · ".join(part for part in parts if part)

    def query_price_range(self, query):
        search = build_query(query)
        return search.price_min, search.price_max

    def parse(self, content, *, number, rows, cursor=None):
        return parse_page(content, number=number, cursor=cursor, now=timezone.now())


def request_headers():
    return {"Accept": "text/html", "Accept-Language": "de-DE,de;q=0.9"}


def build_query(query):
    """A SearchQuery from plain words or a pasted search URL; BadQuery for anything else."""
    query = query.strip()
    if query.lower().startswith(("http://", "https://")):
        return _from_url(query)
    # "/", "?", "#" would end the path segment, ":" make it a filter (`preis:…`).
    words = "-".join(re.sub(r"[/\\?#:]+", " ", query).split())
    if not words:
        raise BadQuery("no search words")
    return SearchQuery(words=words)


def _from_url(url):
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if not (host == "kleinanzeigen.de" or host.endswith(".kleinanzeigen.de")):
        raise BadQuery(f"not a kleinanzeigen.de URL: {host or url!r}")
    path = unquote(parts.path).rstrip("/")
    if not path.startswith("/s-") or path.startswith("/s-anzeige/"):
        raise BadQuery(f"not a search page (a search URL starts with /s-): {parts.path[:80]!r}")
    segments = path[len("/s-") :].split("/")
    code = CODE_RE.fullmatch(segments.pop())
    if code is None or not any(code.groups()[:3]):
        raise BadQuery(
            "the search URL must end in a search code such as k0, c203 or l2068: "
            f"{parts.path[:80]!r}"
        )
    has_words, category_id, location_id, _radius = code.groups()
    words = segments.pop() if has_words and segments else ""
    if has_words and not SLUG_RE.fullmatch(words.lower()):
        raise BadQuery(f"no search words before k0 in {parts.path[:80]!r}")
    slugs, modifiers, low, high = [], [], None, None
    for segment in segments:
        if segment in KEPT_MODIFIERS:
            modifiers.append(segment)
        elif match := PRICE_SEGMENT_RE.fullmatch(segment):
            low = int(match.group(1)) if match.group(1) else None
            high = int(match.group(2)) if match.group(2) else None
        elif segment.startswith(DROPPED_MODIFIERS):
            continue
        elif ":" in segment:
            raise BadQuery(f"the search URL has a filter Lago cannot keep: {segment[:40]!r}")
        elif SLUG_RE.fullmatch(segment.lower()):
            slugs.append(segment)
        else:
            raise BadQuery(f"not a search URL segment: {segment[:40]!r}")
    wanted = int(bool(category_id)) + int(bool(location_id))
    if len(slugs) > wanted:
        raise BadQuery(f"more path segments than the search code names: {parts.path[:80]!r}")
    category = slugs[0] if category_id and slugs else ""
    location = slugs[-1] if location_id and len(slugs) == wanted else ""
    # The radius (r<km>) is dropped: only the place itself is searched.
    code_text = ("k0" if has_words else "") + "".join(
        f"{letter}{value}"
        for letter, value in (("c", category_id), ("l", location_id))
        if value is not None
    )
    return SearchQuery(
        words=words,
        category=category,
        location=location,
        modifiers=tuple(modifiers),
        code=code_text,
        price_min=low,
        price_max=high,
    )


def _pick(choose, a, b):
    values = [v for v in (a, b) if v is not None]
    return choose(values) if values else None


def _label(slug):
    """ "wohnung-mieten" → "Wohnung Mieten"; a place or category as its slug spells it."""
    return " ".join(word.capitalize() if len(word) > 2 else word for word in slug.split("-"))


def parse_page(content, *, number, cursor=None, now):
    """One result page's cards; an unreadable card is skipped (`extra["bad_ads"]`), not the page.

    A protection page is FetchError(banned=True); a page with neither cards nor the site's
    "no results" text is a ParseError, never a silent zero.
    """
    tree = LexborHTMLParser(content)
    cards = tree.css(CARD)
    if not cards:
        _no_cards(tree, content)
        return Page(number=number, ads=[], rows_found=0, is_last=True)
    if len(cards) > MAX_PAGE_ADS:
        raise ParseError(f"{len(cards)} cards on one page (at most {MAX_PAGE_ADS})", body=content)
    ads, bad = fit_page(cards, lambda card: parse_card(card, now), kind="card", body=content)
    regular = [card for card in cards if not _is_top(card)]
    page = Page(
        number=number,
        ads=ads,
        rows_found=_rows_found(tree, len(cards)),
        reached_cursor=reaches_cursor(ads, cursor),
        is_last=not regular or tree.css_first("a.pagination-next") is None,
    )
    if bad:
        page.extra["bad_ads"] = bad
    return page


def _no_cards(tree, content):
    """Decide what a page without cards is: no results (return), a block page or a format change."""
    body = tree.body
    text = " ".join((body.text(separator=" ") if body is not None else "").split()).lower()
    if any(marker in text for marker in NO_RESULTS):
        return
    title = tree.css_first("title")
    scan = ((title.text() if title is not None else "") + " " + text[:MAX_SCAN]).lower()
    if any(marker in scan for marker in CHALLENGE_MARKERS):
        raise FetchError(
            "challenge",
            "bot-protection page instead of search results",
            banned=True,
            body=content,
        )
    raise ParseError("neither result cards nor a 'no results' text on the page", body=content)


def _rows_found(tree, default):
    """The total in "1 - 25 von 1.231 …" (the breadcrumb), else the cards of this page."""
    summary = tree.css_first(".breadcrump-summary")
    match = re.search(r"von\s+([\d.]+)", summary.text()) if summary is not None else None
    try:
        return int(match.group(1).replace(".", "")) if match else default
    except ValueError:
        return default


def _is_top(card):
    item = card.parent
    classes = (item.attributes.get("class") or "").split() if item is not None else []
    return "is-topad" in classes or card.css_first(".aditem-image--badges--badge-topad") is not None


def parse_card(card, now):
    """One `article.aditem` as a ParsedAd; BadAd for a value it cannot use."""
    attrs = card.attributes
    external_id = (attrs.get("data-adid") or "").strip()
    href = (attrs.get("data-href") or "").strip()
    if not external_id.isdigit():
        raise BadAd(f"card without a numeric data-adid: {external_id[:40]!r}")
    if not href.startswith("/s-anzeige/"):
        raise BadAd(f"ad {external_id}: data-href {href[:80]!r} is not an ad page")
    title_node = card.css_first("h2 a") or card.css_first("h2")
    title = " ".join(title_node.text().split()) if title_node is not None else ""
    try:
        amount = price(_text(card, ".aditem-main--middle--price-shipping--price"))
        when = published(_text(card, ".aditem-main--top--right"), now)
    except BadAd as exc:
        raise BadAd(f"ad {external_id}: {exc}") from None
    postcode, location = place(_text(card, ".aditem-main--top--left"))
    return ParsedAd(
        external_id=external_id,
        title=title,
        price=amount.amount,
        url=AD_URL_BASE + href,
        location=location,
        postcode=postcode,
        image_url=_image(card),
        published_at=when,
        is_top=_is_top(card),
        old_price=amount.old_amount,
        negotiable=amount.negotiable,
    )


def _text(card, selector):
    node = card.css_first(selector)
    return node.text(separator=" ") if node is not None else ""


def _image(card):
    image = card.css_first(".imagebox img")
    src = (image.attributes.get("src") or "") if image is not None else ""
    return src if src.startswith(("http://", "https://")) else ""


def reaches_cursor(ads, cursor):
    """True when the page's last regular ad is older than the cursor.

    Top ads are old ads placed on every page: they never stop paging. Dates may be whole days
    (`21.07.2026` is that midnight), so only an ad strictly older than the cursor proves the next
    page holds nothing new; an equal one costs at most one more page.
    """
    if cursor is None or cursor[0] is None:
        return False
    tail = [ad for ad in ads if not ad.is_top and ad.published_at is not None]
    return bool(tail) and tail[-1].published_at < cursor[0]
