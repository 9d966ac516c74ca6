"""What an Apprise destination receives: a title and a body, in HTML, Markdown or plain text
(whichever the service takes best, apprise_channel.preferred_format), in the active language
(the sender overrides it with the destination's) and with the one price format.

The ad's lines are those of the Telegram message (notifications/messages.py); the image is a
link (Lago does not download marketplace images).
"""

import html
import re
from dataclasses import dataclass

from django.utils.translation import gettext as _

from lib import marketplaces
from lib.money import format_price
from notifications import messages, reports
from notifications.models.chats import WELCOME_TEXT

TITLE_LIMIT = 250
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|<>~])")


@dataclass
class Line:
    """One line of the body: text, or a link (text → url)."""

    text: str
    url: str = ""
    bold: bool = False


@dataclass
class DestinationMessage:
    title: str
    lines: list
    # PNG bytes Lago drew (the weekly report's chart), sent as an attachment.
    attachment: bytes | None = None

    def body(self, body_format):
        if body_format == "html":
            return "<br>\n".join(_html(line) for line in self.lines)
        if body_format == "markdown":
            return "  \n".join(_markdown(line) for line in self.lines)
        return "\n".join(_text(line) for line in self.lines)


def judgement_lines(notification):
    """The price judgement's lines for this row ("💡 23 % below the median …"), as the Telegram
    message has them (notifications.messages renders both)."""
    text = messages.judgement_line(messages.stored_judgement(notification))
    return [Line(line) for line in text.splitlines() if line]


def render(notification):
    """The message for one outbox row."""
    if notification.kind == "report":
        return render_report(notification)
    if notification.ad_id is None:
        text = _(WELCOME_TEXT) if notification.kind == "welcome" else notification.text
        return DestinationMessage("Lago", [Line(text or _("(empty alert)"))])
    ad = notification.ad
    if notification.kind == "price_drop":
        heading, lines = "📉 " + _("Price drop"), [Line(messages._drop_line(notification))]
        low = messages.lowest_price(ad)
        if low is not None:
            lines.append(Line(_("Lowest seen: %(price)s") % {"price": format_price(low)}))
    elif messages._is_relist(notification, ad):
        heading = _("♻️ Relisted")
        lines = [Line(text) for text in messages._relist_lines(notification, ad.relist_of)]
    else:
        heading = "🆕 " + _("New ad")
        reduced = notification.old_price is not None
        price = messages._drop_line(notification) if reduced else format_price(notification.price)
        lines = [Line(price, bold=True)]
    lines.extend(judgement_lines(notification))
    if ad.location:
        lines.append(Line(f"📍 {ad.postcode} {ad.location}".replace("  ", " ").strip()))
    if notification.keyword_id:
        name = notification.keyword.display_name
        lines.append(Line(f"🔎 {name} · {marketplaces.label(ad.source)}"))
    lines.append(Line(_("Open ad"), ad.url))
    if ad.image_url:
        lines.append(Line(_("Image"), ad.image_url))
    title = f"{heading}: {ad.title}"
    return DestinationMessage(_fit(title), [Line(ad.title, bold=True), *lines])


def render_digest(rows, backlog):
    """One message listing the first of a destination's due rows: (message, how many it lists)."""
    listed = rows[: messages.DIGEST_MAX_ITEMS]
    lines = []
    for n in listed:
        label, url = messages._digest_item(n)
        lines.append(Line(label, url))
    if backlog > len(listed):
        more = _("and %(count)d more to follow") % {"count": backlog - len(listed)}
        lines.append(Line("… " + more))
    title = "📬 " + messages.digest_header(listed, backlog)
    return DestinationMessage(_fit(title), lines), len(listed)


def render_report(notification):
    """A weekly report row: the caption a Telegram chat gets, its heading as the title, and the
    chart attached."""
    rendered = reports.render_report(notification)
    heading, *rest = rendered.plain.splitlines()
    lines = [Line(line) for line in rest if line]
    return DestinationMessage(_fit(heading), lines, attachment=rendered.photo_bytes)


def _fit(title):
    return title if len(title) <= TITLE_LIMIT else title[: TITLE_LIMIT - 1] + messages.ELLIPSIS


def _text(line):
    return f"{line.text}: {line.url}" if line.url else line.text


def _html(line):
    text = html.escape(line.text, quote=True)
    if line.url:
        return f'<a href="{html.escape(line.url, quote=True)}">{text}</a>'
    return f"<b>{text}</b>" if line.bold else text


def _markdown(line):
    text = _MARKDOWN_SPECIAL.sub(r"\\\1", line.text)
    if line.url:
        return f"[{text}]({line.url.replace(')', '%29').replace(' ', '%20')})"
    return f"**{text}**" if line.bold else text
