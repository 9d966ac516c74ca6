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
    """A marketplace handler. Subclasses implement `fetch_pages`."""

    slug = ""
    # The largest page size the source allows: deep sweeps ask for it.
    max_rows = 30

    def fetch_pages(
        self, query, *, cursor=None, max_pages, price_min=None, price_max=None, rows=None
    ):
        """Yield `Page`s newest first, stopping at the cursor, the last page or `max_pages`.

        `cursor` is a (published_at, external id) tuple or None; `rows` the page size
        (None: the source's default). Raises `SourceError`
        (scraping.errors) for anything the marketplace does wrong.
        """
        raise NotImplementedError

    def describe(self, query, *, price_min=None, price_max=None) -> str:
        """A readable keyword name: the query and its price bounds ("fahrrad · bis € 500")."""
        return " · ".join(
            part for part in (query.strip(), price_range(price_min, price_max)) if part
        )

    def unavailable_reason(self) -> str | None:
        """A skip reason slug when the source cannot run now (the scheduler asks first)."""
        return None

    def credentials_expire_at(self) -> datetime | None:
        """When the source's login stops working, for sources that need one."""
        return None
