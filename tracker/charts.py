"""Price history as a server-rendered SVG: no JavaScript, no network, safe to embed.

`price_chart_svg(points)` takes (moment, price) pairs, oldest first; a price of
None means "price on request" and leaves a gap. The line is drawn as steps: a
price holds until the next change.
"""

from html import escape

from django.utils import timezone
from django.utils.translation import gettext

from lib.money import PRICE_ON_REQUEST, euro, format_price

WIDTH, HEIGHT = 640, 240
LEFT, RIGHT, TOP, BOTTOM = 80, 20, 20, 40


def local_date(moment):
    """The date in the operator's time zone (TIME_ZONE)."""
    return timezone.localtime(moment).strftime("%d.%m.%Y")


def local_date_time(moment):
    """The date and time in the operator's time zone: labels of points that share a day."""
    return timezone.localtime(moment).strftime("%d.%m.%Y %H:%M")


def _labeller(start, end):
    """Dates, or dates with times when the first and last point share a day (two labels
    "04.12.2026" say nothing)."""
    return local_date_time if local_date(start) == local_date(end) else local_date


def _scale(lo, hi, out_lo, out_hi):
    """A linear map lo..hi → out_lo..out_hi; a zero-width input maps to the middle."""
    if hi == lo:
        return lambda v: (out_lo + out_hi) / 2
    return lambda v: out_lo + (float(v) - float(lo)) * (out_hi - out_lo) / (float(hi) - float(lo))


def _segments(points, x, y):
    """Step paths, split wherever the price is on request (the last price holds until then)."""
    paths, current = [], []
    for moment, price in points:
        if price is None:
            if current:
                paths.append(current + [(x(moment), current[-1][1])])
            current = []
            continue
        if current:
            current.append((x(moment), current[-1][1]))
        current.append((x(moment), y(price)))
    if current:
        paths.append(current)
    return paths


def _path(coords):
    return " ".join(
        f"{'M' if i == 0 else 'L'}{cx:.1f},{cy:.1f}" for i, (cx, cy) in enumerate(coords)
    )


def _text(x, y, label, anchor="start", css="label"):
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" class="{css}">{escape(label)}</text>'
    )


def _axes(lo, hi, start, end):
    bottom = HEIGHT - BOTTOM
    label = _labeller(start, end)
    parts = [
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{bottom}" class="axis"/>',
        f'<line x1="{LEFT}" y1="{bottom}" x2="{WIDTH - RIGHT}" y2="{bottom}" class="axis"/>',
        _text(LEFT - 6, TOP + 4, euro(hi), "end"),
        _text(LEFT - 6, bottom, euro(lo), "end"),
        _text(LEFT, bottom + 18, label(start)),
    ]
    if end != start:
        parts.append(_text(WIDTH - RIGHT, bottom + 18, label(end), "end"))
    return parts


STYLE = (
    "<style>.axis{stroke:#888;stroke-width:1}.line{fill:none;stroke:#417690;stroke-width:2}"
    ".dot{fill:#417690}.gap{fill:#ba2121}.label{font:12px sans-serif;fill:#333}</style>"
)


def price_chart_svg(points, title="Price history"):
    """An SVG document fragment of fixed size; every text is escaped."""
    points = sorted(points, key=lambda p: p[0])
    head = (
        '<svg xmlns="http://www.w3.org/2000/svg" class="price-chart" '
        f'width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img"><title>{escape(title)}</title>{STYLE}'
    )
    prices = [p for _, p in points if p is not None]
    if not prices:
        return (
            head
            + _text(
                WIDTH / 2,
                HEIGHT / 2,
                str(PRICE_ON_REQUEST) if points else gettext("no price history"),
                "middle",
            )
            + "</svg>"
        )
    lo, hi = min(prices), max(prices)
    start, end = points[0][0], points[-1][0]
    x = _scale(start.timestamp(), end.timestamp(), LEFT + 10, WIDTH - RIGHT - 10)
    y = _scale(lo, hi, HEIGHT - BOTTOM - 10, TOP + 10)
    tx = lambda m: x(m.timestamp())  # noqa: E731 (a one-line adapter)
    parts = _axes(lo, hi, start, end)
    label = _labeller(start, end)
    parts += [
        f'<path d="{_path(seg)}" class="line"/>' for seg in _segments(points, tx, y) if len(seg) > 1
    ]
    for moment, price in points:
        if price is None:
            gap = escape(str(PRICE_ON_REQUEST))
            parts.append(
                f'<circle cx="{tx(moment):.1f}" cy="{HEIGHT - BOTTOM:.1f}" r="4" class="gap">'
                f"<title>{gap}</title></circle>"
            )
        else:
            tip = f"{label(moment)}: {format_price(price)}"
            parts.append(
                f'<circle cx="{tx(moment):.1f}" cy="{y(price):.1f}" r="4" class="dot">'
                f"<title>{escape(tip)}</title></circle>"
            )
    return head + "".join(parts) + "</svg>"


def ad_price_points(ad, changes, now):
    """The points for one ad: the first price, each change, and the current price until `now`
    (or until the ad went, for a sold or removed ad)."""
    if getattr(ad, "gone_at", None) is not None:
        now = min(now, ad.gone_at)
    changes = sorted(changes, key=lambda c: c.seen_at)
    first_price = changes[0].old_price if changes else ad.price
    points = [(ad.first_seen_at, first_price)] + [(c.seen_at, c.new_price) for c in changes]
    if now > points[-1][0]:
        points.append((now, ad.price))
    return points
