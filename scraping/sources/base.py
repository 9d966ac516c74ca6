"""What every source handler returns and raises, and the handler base class."""

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from lib.money import price_range


@dataclass(frozen=True)
class ParsedAd:
    external_id: str
    title: str
    price: Decimal | None
    url: str
    currency: str = "EUR"
    location: str = ""
    postcode: str = ""
    image_url: str = ""
    published_at: datetime | None = None
    # A paid "top" ad placed above the newest-first list regardless of its date.
    is_top: bool = False
    # The marketplace's id of the seller ("" when it names none): relists need the same seller.
    seller_id: str = ""
    # The price the marketplace shows struck through beside a reduced one: stored as the ad's
    # previous price when the ad is first seen (scraping.ingest).
    old_price: Decimal | None = None
    # The seller takes offers ("VB"); not stored, the price is what counts.
    negotiable: bool = False
    # Living area in m² (real estate), None when the ad gives none: judged per m² (tracker).
    living_area: Decimal | None = None

    @property
    def sort_key(self):
        """(published_at, external id): the order the cursor is kept in."""
        return (self.published_at, self.external_id)


@dataclass
class Page:
    number: int
    ads: list[ParsedAd]
    rows_found: int
    # The page's tail is at or before the keyword's cursor: later pages hold only seen ads.
    reached_cursor: bool = False
    # No further page exists (short page, or page x rows >= rows found).
    is_last: bool = False
    extra: dict = field(default_factory=dict)


class Source:
    """The contract every marketplace implements.

    A source turns a keyword's query into pages of `ParsedAd`s through the shared HTTP client
    (scraping.http) and reports every failure as a `SourceError` (scraping.errors). The methods
    that raise NotImplementedError must be implemented; `describe` and the two availability
    hooks have defaults. The registry test checks every registered source against CONTRACT.
    """

    CONTRACT = ("fetch_pages", "validate_query", "describe", "parse")

    slug = ""
    # The largest page size the source allows: deep sweeps ask for it.
    max_rows = 30

    def fetch_pages(
        self, query, *, cursor=None, max_pages, price_min=None, price_max=None, rows=None
    ):
        """Yield `Page`s newest first, stopping at the cursor, the last page or `max_pages`.

        `cursor` is a (published_at, external id) tuple or None; `rows` the page size
        (None: the source's default). Raises `SourceError` for anything the marketplace
        does wrong.
        """
        raise NotImplementedError

    def validate_query(self, query, *, price_min=None, price_max=None):
        """Raise `BadQuery` (scraping.errors) for a query this source cannot search (a URL of
        another site, a page that is not a search), so the admin form refuses it before the
        first run."""
        raise NotImplementedError

    def parse(self, content, *, number, rows, cursor=None) -> Page:
        """One response body → a `Page`. An unreadable ad is left out and named in
        `page.extra["bad_ads"]`; a body that is not a result page raises `ParseError`."""
        raise NotImplementedError

    def describe(self, query, *, price_min=None, price_max=None) -> str:
        """A readable keyword name: the query and its price bounds ("fahrrad · bis € 500")."""
        return " · ".join(
            part for part in (query.strip(), price_range(price_min, price_max)) if part
        )

    def url_filters(self, query) -> list[str]:
        """The filters a pasted search URL carries beyond its words and prices, in words
        ("region: Wien"), for the keyword page; the source keeps them in its requests."""
        return []

    def query_price_range(self, query):
        """(min, max) the query itself asks for (a pasted URL's price filter), each None when
        absent: the keyword form copies them into empty price fields, so Lago filters by them
        too."""
        return None, None

    def unavailable_reason(self) -> str | None:
        """A skip reason slug when the source cannot run now (the scheduler asks first)."""
        return None

    @property
    def min_interval_minutes(self):
        """The shortest keyword interval this source allows (the keyword form refuses less)."""
        return 1

    def credentials_expire_at(self) -> datetime | None:
        """When the source's login stops working, for sources that need one."""
        return None
