"""What a notification says: Telegram HTML (escaped) plus a plain-text twin for the fallback.

Limits are Telegram's: 4096 characters for a text message, 1024 for a photo caption.
We count the HTML source, which is never shorter than what Telegram counts.
"""

import html
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from django.conf import settings
from django.db.models import Min
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from lib import marketplaces
from lib.money import euro, format_price
from notifications.bot.keyboards import notification_keyboard
from notifications.models.chats import WELCOME_TEXT
from tracker.models import KeywordAd

TEXT_LIMIT = 4096
CAPTION_LIMIT = 1024
DIGEST_MAX_ITEMS = 25
ELLIPSIS = "…"


@dataclass
class Rendered:
    html: str
    plain: str
    photo_url: str | None = None
    # Inline buttons under the message (ad notifications: mute the keyword, snooze).
    reply_markup: object = None
    # An image Lago drew (the weekly report's chart), uploaded instead of a photo URL.
    photo_bytes: bytes | None = None


def esc(value) -> str:
    return html.escape(str(value), quote=True)


def drop_percent(old, new) -> int:
    return int(
        ((Decimal(new) - Decimal(old)) / Decimal(old) * 100).quantize(Decimal("1"), ROUND_HALF_UP)
    )


def lowest_price(ad):
    lows = [
        p
        for p in (ad.price, ad.price_changes.aggregate(low=Min("new_price"))["low"])
        if p is not None
    ]
    return min(lows) if lows else None


def render(notification) -> Rendered:
    """The message for one outbox row (ad, welcome or admin alert), in the active language
    (sender.py)."""
    if notification.kind == "welcome":
        text = _(WELCOME_TEXT)
        return Rendered(html=_fit(esc(text), TEXT_LIMIT), plain=_fit(text, TEXT_LIMIT))
    if notification.ad_id is None:
        text = notification.text or _("(empty alert)")
        return Rendered(html=_fit(esc(text), TEXT_LIMIT), plain=_fit(text, TEXT_LIMIT))
    ad = notification.ad
    photo = ad.image_url or None
    limit = CAPTION_LIMIT if photo else TEXT_LIMIT
    title = ad.title
    low = (
        lowest_price(ad) if notification.kind == "price_drop" else None
    )  # one query, not one per try below
    judged = judgement_line(stored_judgement(notification))
    while True:
        html_text, plain = (
            _ad_lines(notification, ad, title, low, judged, escape=True),
            _ad_lines(notification, ad, title, low, judged, escape=False),
        )
        excess = max(len(html_text), len(plain)) - limit
        if excess <= 0 or not title:
            buttons = notification_keyboard(
                notification.keyword_id,
                notification.price if notification.kind == "price_drop" else None,
            )
            return Rendered(
                html=_fit(html_text, limit),
                plain=_fit(plain, limit),
                photo_url=photo,
                reply_markup=buttons,
            )
        title = (
            title[: max(0, len(title) - excess - 1)] + ELLIPSIS if len(title) > excess + 1 else ""
        )


def _ad_lines(notification, ad, title, low, judged, escape):
    e = esc if escape else str
    bold = (lambda s: f"<b>{e(s)}</b>") if escape else str
    lines = []
    if notification.kind == "price_drop":
        lines.append("📉 " + _("Price drop"))
        lines.append(bold(title))
        lines.append(e(_drop_line(notification)))
        if low is not None:
            lines.append(e(_("Lowest seen: %(price)s") % {"price": format_price(low)}))
    elif _is_relist(notification, ad):
        lines.append(e(_("♻️ Relisted")))
        lines.append(bold(title))
        lines += [e(line) for line in _relist_lines(notification, ad.relist_of)]
    else:
        lines.append("🆕 " + _("New ad"))
        lines.append(bold(title))
        # A reduced ad first seen: its old price is the one the marketplace shows struck through.
        reduced = notification.old_price is not None
        lines.append(e(_drop_line(notification) if reduced else format_price(notification.price)))
    if judged:
        lines.append(e(judged))
    if ad.location:
        lines.append(e(f"📍 {ad.postcode} {ad.location}".replace("  ", " ").strip()))
    if ad.published_at:
        lines.append(e(f"🕒 {timezone.localtime(ad.published_at):%d.%m.%Y %H:%M}"))
    if notification.keyword_id:
        lines.append(e(f"🔎 {notification.keyword.display_name} · {marketplaces.label(ad.source)}"))
    link = _("Open ad")
    lines.append(f'<a href="{esc(ad.url)}">{esc(link)}</a>' if escape else ad.url)
    return "\n".join(lines)


def stored_judgement(notification):
    """The judgement the keyword's link keeps for the row's ad (scraping.ingest stores it), or
    None. Read at send time (Notification.objects.load_for_sending reads the batch's links in one
    query) rather than copied onto every chat's outbox row at fan-out; a link whose price has moved
    on since holds the judgement of another price, and then the message says nothing."""
    if notification.keyword_id is None or notification.kind not in ("new", "price_drop"):
        return None
    if hasattr(notification, "keyword_link"):  # Notification.objects.load_for_sending
        link = notification.keyword_link
    else:
        link = (
            KeywordAd.objects.filter(keyword_id=notification.keyword_id, ad_id=notification.ad_id)
            .only("price", *KeywordAd.JUDGEMENT_FIELDS)
            .first()
        )
    if link is None or link.price != notification.price:
        return None
    return link.judgement


def judgement_line(judgement) -> str:
    """An ad's price judgement as message text in the active language: "💡 23 % below the median
    (€ 450, 14 comparable)", after "⚠️ suspiciously cheap" for a bait price, or before "🆕 lowest
    price of this search in 90 days"; "" without a judgement or with too few comparables.

    `judgement`: anything with label, n, median, percent, lowest and per_m2 (a
    tracker.price_judgement.Judgement, KeywordAd.judgement), so every channel says the same.
    """
    if judgement is None or judgement.label in ("", "too_few") or judgement.median is None:
        return ""
    median = euro(judgement.median) + ("/m²" if judgement.per_m2 else "")
    percent = Decimal(judgement.percent).quantize(Decimal("1"), ROUND_HALF_UP)
    values = {"percent": abs(percent), "median": median, "count": judgement.n}
    if percent < 0:
        line = _("💡 %(percent)s %% below the median (%(median)s, %(count)s comparable)") % values
    elif percent > 0:
        line = _("💡 %(percent)s %% above the median (%(median)s, %(count)s comparable)") % values
    else:
        line = _("💡 at the median (%(median)s, %(count)s comparable)") % values
    if judgement.label == "suspicious":
        return _("⚠️ suspiciously cheap") + "\n" + line
    if judgement.lowest:
        days = settings.PRICE_COMPARE_DAYS
        return line + "\n" + _("🆕 lowest price of this search in %(days)s days") % {"days": days}
    return line


def _drop_line(notification):
    old, new = notification.old_price, notification.price
    if old is None or new is None or Decimal(old) == 0:
        return _("now %(price)s") % {"price": format_price(new)}
    values = {
        "old": format_price(old),
        "new": format_price(new),
        "percent": f"{drop_percent(old, new):+d}",
    }
    return (_("was %(old)s → now %(new)s (%(percent)s%%)") % values).replace("-", "−")


def _is_relist(notification, ad):
    """A `new` row of an ad that relists a gone one (tracker.relists); the earlier ad may since be
    deleted."""
    return notification.kind == "new" and ad.relist_of_id is not None and ad.relist_of is not None


def _relist_lines(notification, earlier):
    """The price now against the earlier listing's last price, and when that one was listed and
    went."""
    old = notification.old_price if notification.old_price is not None else earlier.price
    new = notification.price
    if old is not None and new is not None and old != new and Decimal(old) != 0:
        price = _("%(new)s, earlier %(old)s (%(percent)s%%)") % {
            "new": format_price(new),
            "old": format_price(old),
            "percent": f"{drop_percent(old, new):+d}".replace("-", "−"),
        }
    else:
        price = _("%(new)s, earlier %(old)s") % {"new": format_price(new), "old": format_price(old)}
    listed = _day(earlier.published_at or earlier.first_seen_at)
    if earlier.gone_at is None:  # the earlier listing came back meanwhile
        return [price, _("Listed before on %(date)s") % {"date": listed}]
    return [
        price,
        _("Listed before on %(date)s, gone on %(gone)s")
        % {"date": listed, "gone": _day(earlier.gone_at)},
    ]


def _day(moment):
    return f"{timezone.localtime(moment):%d.%m.%Y}"


def _fit(text, limit):
    return text if len(text) <= limit else text[: limit - 1] + ELLIPSIS


def render_digest(notifications, backlog) -> tuple[Rendered, int]:
    """One message listing the first rows of a chat whose backlog exceeds its budget.

    Returns the message and how many of `notifications` it lists (the rest stay queued).
    """
    header = "📬 " + digest_header(notifications, backlog)
    html_lines, plain_lines = [f"<b>{esc(header)}</b>"], [header]
    html_length, plain_length = len(html_lines[0]), len(header)  # of the lines joined by newlines
    listed = 0
    for n in notifications[:DIGEST_MAX_ITEMS]:
        label, url = _digest_item(n)
        h = f'• <a href="{esc(url)}">{esc(label)}</a>' if url else f"• {esc(label)}"
        p = f"• {label} {url}".rstrip()
        if max(html_length + 1 + len(h), plain_length + 1 + len(p)) > TEXT_LIMIT - 100:
            break
        html_lines.append(h)
        plain_lines.append(p)
        html_length, plain_length = html_length + 1 + len(h), plain_length + 1 + len(p)
        listed += 1
    if backlog > listed:
        tail = "… " + _("and %(count)d more to follow") % {"count": backlog - listed}
        html_lines.append(esc(tail))
        plain_lines.append(tail)
    return Rendered(html="\n".join(html_lines), plain="\n".join(plain_lines)), listed


def digest_header(notifications, backlog):
    """ "3 new ads for fahrrad, ski": the keywords of the listed rows, in order of first
    appearance."""
    rows = notifications[:DIGEST_MAX_ITEMS]
    names = list(dict.fromkeys(n.keyword.display_name for n in rows if n.keyword_id))
    values = {
        "count": backlog,
        "keywords": ", ".join(names[:5]) + (", …" if len(names) > 5 else ""),
    }
    if not names:
        return (
            ngettext("%(count)d new notification", "%(count)d new notifications", backlog) % values
        )
    if all(n.kind == "new" for n in rows):
        return (
            ngettext(
                "%(count)d new ad for %(keywords)s", "%(count)d new ads for %(keywords)s", backlog
            )
            % values
        )
    return (
        ngettext(
            "%(count)d new notification for %(keywords)s",
            "%(count)d new notifications for %(keywords)s",
            backlog,
        )
        % values
    )


def _digest_item(n):
    if n.ad_id is None:
        return (_(WELCOME_TEXT) if n.kind == "welcome" else n.text or _("alert"))[:200], ""
    price = format_price(n.price)
    if n.kind == "price_drop" and n.old_price is not None:
        price = f"{format_price(n.old_price)} → {price}"
    if _is_relist(n, n.ad):
        return _("♻️ %(title)s — %(price)s (relisted, earlier %(old)s)") % {
            "title": n.ad.title[:120],
            "price": price,
            "old": format_price(n.old_price if n.old_price is not None else n.ad.relist_of.price),
        }, n.ad.url
    return f"{n.ad.title[:120]} — {price}", n.ad.url
