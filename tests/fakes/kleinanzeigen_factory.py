"""Build Kleinanzeigen result cards and pages in the site's markup (see
shared/fixtures/kleinanzeigen).

The fake server builds its pages from here, never from the recorded page, so tests can shape
exactly the cards they need: prices as the site prints them ("1.224 €", "569 € VB", "VB",
"Zu verschenken"), a reduced price beside its old one, top ads, dates ("Heute, 14:05").
"""

import html
import itertools
import json
from dataclasses import dataclass

_ids = itertools.count(3_400_000_001)

CHALLENGE_PAGE = (
    "<!DOCTYPE html><html><head><title>Sicherheitsüberprüfung</title></head><body>"
    "<h1>Bitte bestätige, dass du ein Mensch bist</h1><div class='captcha'></div></body></html>"
).encode()


@dataclass
class Card:
    ad_id: str
    title: str
    price: str = "100 €"
    old_price: str = ""
    date: str = "Heute, 12:00"
    place: str = "40212 Stadtmitte"
    top: bool = False
    # Raw markup instead of the card (a broken card among good ones).
    raw: str = ""


def make_card(*, ad_id=None, title=None, **kw):
    ad_id = str(ad_id or next(_ids))
    return Card(ad_id=ad_id, title=title or f"Wohnung {ad_id}", **kw)


def make_cards(n, *, hour=23, **kw):
    """`n` cards newest first, one minute apart, all of today, from `hour`:59 down."""
    return [
        make_card(date=f"Heute, {hour - i // 60:02d}:{59 - i % 60:02d}", **kw) for i in range(n)
    ]


def ad_path(card):
    slug = "-".join(card.title.lower().split())
    return f"/s-anzeige/{slug}/{card.ad_id}-203-2081"


def card_html(card):
    if card.raw:
        return card.raw
    e = html.escape
    image = f"https://img.kleinanzeigen.de/api/v1/prod-ads/images/{card.ad_id}?rule=$_1.AUTO"
    ld = json.dumps({"title": card.title, "contentUrl": image, "@type": "ImageObject"})
    old = (
        f' <span class="aditem-main--middle--price-shipping--old-price">{e(card.old_price)}</span>'
        if card.old_price
        else ""
    )
    badge = (
        '<span class="aditem-image--badges--badge aditem-image--badges--badge-topad">TOP</span>'
        if card.top
        else ""
    )
    date = f'<i class="icon icon-small icon-calendar-open"></i> {e(card.date)}' if card.date else ""
    classes = "ad-listitem fully-clickable-card " + ("is-topad " if card.top else "")
    return f"""<li class="{classes}">
    <article class="aditem" data-adid="{e(card.ad_id)}" data-href="{e(ad_path(card))}">
        <div class="aditem-image">
            <script type="application/ld+json">{ld}</script>
            <a href="{e(ad_path(card))}"><div class="imagebox srpimagebox">
                <img src="{e(image)}" alt="{e(card.title)}"></div></a>
            <div class="aditem-image--badges">{badge}</div>
        </div>
        <div class="aditem-main">
            <div class="aditem-main--top">
                <div class="aditem-main--top--left">
                    <i class="icon icon-small icon-pin-gray"></i> {e(card.place)} (2 km)
                </div>
                <div class="aditem-main--top--right">{date}</div>
            </div>
            <div class="aditem-main--middle">
                <h2 class="text-module-begin"><a class="ellipsis"
                  href="{e(ad_path(card))}">{e(card.title)}</a></h2>
                <p class="aditem-main--middle--description">{e(card.title)} ...</p>
                <div class="aditem-main--middle--price-shipping">
                    <p class="aditem-main--middle--price-shipping--price">{e(card.price)}{old}</p>
                </div>
            </div>
        </div>
    </article>
</li>"""


def result_page(cards, *, page=1, total=None, next_path=None, words="wohnung"):
    """A search result page: breadcrumb summary, the card list, the pagination."""
    total = len(cards) if total is None else total
    first = (page - 1) * 25 + 1
    summary = f"{first} - {first + len(cards) - 1} von {total:,} Ergebnissen für „{words}“"
    pagination = (
        f'<a class="pagination-next" title="Nächste" href="{html.escape(next_path)}"></a>'
        if next_path
        else ""
    )
    items = "\n".join(card_html(card) for card in cards)
    return f"""<!DOCTYPE html><html lang="de"><head><title>{words} | kleinanzeigen.de</title></head>
<body><div class="breadcrump">
<span class="breadcrump-summary">{summary.replace(",", ".")}</span></div>
<div id="srchrslt-results"><ul id="srchrslt-adtable" class="itemlist ad-list it3">
{items}
</ul></div>
<div id="srchrslt-pagination"><div class="pagination">
<div class="pagination-nav">{pagination}</div></div></div>
</body></html>""".encode()


def empty_page(words="wohnung"):
    """What the site answers for a search that finds nothing."""
    return f"""<!DOCTYPE html><html lang="de"><head><title>{words} | kleinanzeigen.de</title></head>
<body><div id="srchrslt-results"><div class="outcomebox-warning">
<h2>Es wurden leider keine Ergebnisse für „{words}“ gefunden.</h2></div></div>
</body></html>""".encode()
