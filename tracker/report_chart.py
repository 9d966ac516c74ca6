"""The market report's chart: the weekly median price with its interquartile band, as PNG bytes.

Rendered with matplotlib's object API on the Agg canvas (Figure + FigureCanvasAgg): no pyplot, so
no global figure registry and no GUI backend, and each call draws on a figure of its own, which
keeps it safe in threads (the sender, gunicorn's threads). Texts are in the active language; prices
are written by lib.money, like every other price Lago shows.
"""

import io

from django.utils import timezone
from django.utils.translation import gettext as _
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from lib.money import euro

WIDTH, HEIGHT, DPI = 800, 400, 100  # pixels of the PNG
LINE, BAND = "#1f6feb", "#9ec5fe"


def report_chart_png(report) -> bytes:
    """PNG bytes of `report`'s weeks (tracker.market_report.MarketReport); weeks without prices
    leave gaps."""
    figure = Figure(figsize=(WIDTH / DPI, HEIGHT / DPI), dpi=DPI)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    labels = [timezone.localtime(w.end).strftime("%d.%m.") for w in report.weeks]
    xs = list(range(len(labels)))

    def values(name):
        return [None if getattr(w, name) is None else float(getattr(w, name)) for w in report.weeks]

    lows, highs, medians = values("p25"), values("p75"), values("median")
    priced = [x for x in xs if medians[x] is not None]
    axes.fill_between(
        xs,
        [v if v is not None else float("nan") for v in lows],
        [v if v is not None else float("nan") for v in highs],
        color=BAND,
        alpha=0.6,
        linewidth=0,
        label=_("middle half of the prices"),
    )
    axes.plot(
        xs,
        [v if v is not None else float("nan") for v in medians],
        color=LINE,
        marker="o",
        linewidth=2,
        label=_("median price"),
    )
    axes.set_xticks(xs, labels, rotation=45, fontsize=8)
    axes.yaxis.set_major_formatter(FuncFormatter(lambda value, _pos: euro(round(value))))
    axes.set_xlabel(_("week ending"))
    axes.set_ylabel(_("price"))
    axes.set_title(report.keyword_name)
    if not priced:
        axes.text(0.5, 0.5, _("no prices yet"), transform=axes.transAxes, ha="center", va="center")
        axes.set_yticks([])
    axes.grid(axis="y", alpha=0.3)
    axes.legend(loc="upper left", fontsize=8)
    figure.tight_layout()
    out = io.BytesIO()
    figure.savefig(out, format="png", dpi=DPI)
    return out.getvalue()
