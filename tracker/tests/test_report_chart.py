"""The market report's chart: a PNG of the agreed size, drawn in threads, even without prices."""

import datetime as dt
import struct
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

from django.utils import translation

from tracker.market_report import MarketReport, WeekPoint
from tracker.report_chart import HEIGHT, WIDTH, report_chart_png

NOW = dt.datetime(2026, 6, 1, 12, 0, tzinfo=dt.UTC)
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def report(prices=True):
    weeks = [
        WeekPoint(
            end=NOW - dt.timedelta(weeks=11 - i),
            n=5 if prices else 0,
            median=Decimal(1000 + 10 * i) if prices else None,
            p25=Decimal(900 + 10 * i) if prices else None,
            p75=Decimal(1200 + 10 * i) if prices else None,
        )
        for i in range(12)
    ]
    return MarketReport(1, "Rennrad", NOW, weeks, 3, 2, 12.5, [])


def png_size(data):
    """(width, height) from the PNG's IHDR chunk, which must come first."""
    assert data[:8] == PNG_SIGNATURE
    length, chunk = struct.unpack(">I4s", data[8:16])
    assert chunk == b"IHDR" and length == 13
    return struct.unpack(">II", data[16:24])


def test_chart_is_a_png_of_the_agreed_size():
    assert png_size(report_chart_png(report())) == (WIDTH, HEIGHT) == (800, 400)


def test_a_keyword_without_prices_still_gets_a_chart():
    assert png_size(report_chart_png(report(prices=False))) == (WIDTH, HEIGHT)


def test_charts_drawn_in_parallel_threads_are_all_whole():
    def draw(language):
        with translation.override(language):
            return report_chart_png(report())

    with ThreadPoolExecutor(max_workers=4) as pool:
        charts = list(pool.map(draw, ["de", "en", "de", "en"] * 2))
    assert all(png_size(c) == (WIDTH, HEIGHT) for c in charts)
    # Same language, same picture: no figure state leaks from one drawing into another.
    assert charts[0] == charts[2] == charts[4] and charts[1] == charts[3]
    # The axis labels follow the language.
    assert charts[0] != charts[1]
