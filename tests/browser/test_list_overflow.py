"""The five admin lists at 1366×768 with long real data: the results table fits its box, and no
value of a key column (status, price, attempts, counts, dates) is split across lines.

Screenshots: one per list, in the `shots` folder (conftest.py).
"""

import datetime as dt
from decimal import Decimal

import pytest
from django.utils import timezone

from notifications.models import Notification
from scraping.models import ScrapeRun
from tests.browser.conftest import log_in
from tests.factories import make_ad, make_chat, make_keyword, make_notification, make_subscription
from tracker.models import KeywordAd, PriceChange

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1366, "height": 768}
ROWS = 6
NAMES = [
    "Mietwohnungen Wien 1., 2., 3., 7., 8. und 9. Bezirk · 2–3 Zimmer Altbau Balkon · bis € 1.100",
    "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz/fahrraeder-radsport/rennraeder"
    "-4552?PRICE_FROM=500&PRICE_TO=2000&keyword=rennrad+carbon+shimano+ultegra",
    "Eigentumswohnung Graz Umgebung Balkon Tiefgarage Lift barrierefrei · bis € 1.250.000",
    "Geschirrspüler vollintegriert 60 cm Bosch Siemens Miele Besteckschublade · bis € 300",
]
TITLE = (
    "Wunderschöne Altbauwohnung mit Fernblick, Fischgrätparkett und Flügeltüren, "
    "komplett saniert, provisionsfrei direkt vom Eigentümer — Besichtigung jederzeit möglich"
)
LOCATION = "Wien, 21. Bezirk, Floridsdorf, Großjedlersdorf an der Brünner Straße"
CHAT_TITLE = "Wohnungssuche Familie Österreicher-Hinterberger · Wien und Niederösterreich Umland"
LONG_ERROR = (
    "Telegram antwortete 400 Bad Request: message is too long; the message text exceeded 4096 "
    "characters after the price history and the comparables had been added to it"
)

# The key columns of each list (Django's `field-<name>` cell classes): no value in them may
# be split across two lines.
LISTS = {
    "keywords": ("/admin/tracker/keyword/", ["last_run", "next_run", "ads_found", "subscribers"]),
    "ads": ("/admin/tracker/ad/", ["price_change", "published_at"]),
    "runs": ("/admin/scraping/scraperun/", ["status_badge", "started_at", "duration_s", "counts"]),
    "notifications": (
        "/admin/notifications/notification/",
        ["price_shown", "status_badge", "next_attempt"],
    ),
    "chats": (
        "/admin/notifications/telegramchat/",
        ["chat_id", "status_badge", "subscriptions_count", "created_at"],
    ),
}


@pytest.fixture
def long_data(django_user_model):
    django_user_model.objects.create_superuser("operator", "op@example.invalid", "s3cret-pass")
    now = timezone.now()
    chats = [
        make_chat(
            chat_id=-1001234567890 - i,
            title=f"{CHAT_TITLE} {i}",
            username=f"wohnungssuche_oesterreicher_hinterberger_{i}",
            status=["active", "pending", "blocked"][i % 3],
            status_reason="Bot wurde vom Benutzer blockiert (403 Forbidden: bot was blocked)"
            if i % 3 == 2
            else "",
            muted_until=now + dt.timedelta(days=400) if i % 2 else None,
            created_at=now - dt.timedelta(days=400 + i),
        )
        for i in range(ROWS)
    ]
    for i in range(ROWS):
        name = NAMES[i % len(NAMES)]
        keyword = make_keyword(
            name=name[:100],
            query=f"{name} {i}",
            interval_minutes=1440,
            next_run_at=now - dt.timedelta(days=3) if i % 2 else now + dt.timedelta(days=30),
        )
        ScrapeRun.objects.create(
            keyword=keyword,
            source="willhaben",
            kind=[ScrapeRun.Kind.SCHEDULED, ScrapeRun.Kind.SWEEP, ScrapeRun.Kind.MANUAL][i % 3],
            status=["done", "failed", "banned", "skipped"][i % 4],
            error=["", "unexpected_response_shape", "challenge", "concurrent_claim"][i % 4],
            started_at=now - dt.timedelta(days=40 + i),
            finished_at=now - dt.timedelta(days=40 + i) + dt.timedelta(seconds=1234.5),
            pages_fetched=250,
            ads_seen=123456,
            ads_new=98765,
            price_drops=54321,
        )
        for chat in chats:
            make_subscription(chat=chat, keyword=keyword)
        ad = make_ad(
            title=f"{TITLE} {i}",
            price=Decimal("1234567"),
            location=LOCATION,
            published_at=now - dt.timedelta(days=50 + i),
        )
        KeywordAd.objects.create(
            keyword=keyword,
            ad=ad,
            price=ad.price,
            price_label="deal",
            price_percent=Decimal("-38.5"),
            price_median=Decimal("2007426.50"),
            price_n=1234,
        )
        PriceChange.objects.create(
            ad=ad, old_price=None, new_price=Decimal("1246912"), seen_at=now - dt.timedelta(days=60)
        )
        PriceChange.objects.create(
            ad=ad, old_price=Decimal("1246912"), new_price=ad.price, seen_at=now
        )
        make_notification(
            chat=chats[i],
            ad=ad,
            kind=Notification.Kind.PRICE_DROP,
            price=ad.price,
            old_price=Decimal("1246912"),
            status=["pending", "dead", "sent"][i % 3],
            attempts=[4, 5, 1][i % 3],
            next_attempt_at=now + dt.timedelta(days=2),
            last_error=LONG_ERROR,
            sent_at=now - dt.timedelta(days=45) if i % 3 == 2 else None,
        )


def measure(page, columns):
    """How far the results table sticks out of its box, and the values of the key columns that
    are split across lines (a text node whose boxes stack vertically), the action bar's
    "0 of 6 selected" included."""
    return page.evaluate(
        r"""(columns) => {
            const table = document.querySelector('#result_list');
            const box = table.parentElement;
            const split = [];
            const cells = columns.flatMap((column) =>
                [...table.querySelectorAll(`tbody .field-${column}`)].map((cell) => [column, cell])
            );
            cells.push(['action bar', document.querySelector('.actions .action-counter')]);
            for (const [column, cell] of cells) {
                const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
                for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                    // Free text (an error, a reason) is marked lago-wrap: it may wrap.
                    if (!node.textContent.trim() || node.parentElement.closest('.lago-wrap')) {
                        continue;
                    }
                    const range = document.createRange();
                    range.selectNodeContents(node);
                    const rects = [...range.getClientRects()].filter((r) => r.width > 0);
                    const lines = rects.filter(
                        (r, i) => i === 0 || r.top >= rects[i - 1].bottom - 1
                    ).length;
                    if (lines > 1) split.push(`${column}: ${node.textContent.trim()}`);
                }
            }
            const widths = [...table.querySelectorAll('thead th')].map((th) => {
                const name = (th.className.match(/column-(\S+)/) || ['', 'checkbox'])[1];
                return `${name} ${Math.round(th.getBoundingClientRect().width)}`;
            });
            return {
                widths: widths.join(', '),
                rows: table.querySelectorAll('tbody tr').length,
                table_width: table.scrollWidth,
                box_width: box.clientWidth,
                page_overflow: document.documentElement.scrollWidth
                    - document.documentElement.clientWidth,
                split: split,
            };
        }""",
        columns,
    )


def test_five_lists_fit_1366_without_splitting_values(long_data, live_server, chromium, shots):
    page = chromium.new_page(viewport=LAPTOP, locale="de-AT")
    log_in(page, live_server.url)
    problems = {}
    for name, (path, columns) in LISTS.items():
        page.goto(f"{live_server.url}{path}")
        page.screenshot(path=shots / f"list-{name}.png", full_page=True)
        found = measure(page, columns)
        assert found["rows"] >= ROWS, f"{name}: {found['rows']} rows, expected {ROWS}"
        wrong = []
        if found["table_width"] > found["box_width"]:
            wrong.append(
                f"table {found['table_width']} px in a {found['box_width']} px box "
                f"({found['widths']})"
            )
        if found["page_overflow"] > 0:
            wrong.append(f"page scrolls {found['page_overflow']} px sideways")
        if found["split"]:
            wrong.append(f"split values: {sorted(set(found['split']))}")
        if wrong:
            problems[name] = wrong
    assert len(list(shots.glob("list-*.png"))) == len(LISTS)
    assert not problems, "\n".join(f"{name}: {wrong}" for name, wrong in problems.items())
