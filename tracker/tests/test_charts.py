"""The price chart is a self-contained SVG that copes with odd histories."""

import datetime as dt
from decimal import Decimal
from types import SimpleNamespace
from xml.etree import ElementTree

from lib.money import euro
from tracker.charts import HEIGHT, WIDTH, ad_price_points, price_chart_svg

T0 = dt.datetime(2025, 1, 31, 23, 30, tzinfo=dt.UTC)  # 1 February in Vienna


def at(days):
    return T0 + dt.timedelta(days=days)


def parse(svg):
    return ElementTree.fromstring(svg)


def test_several_prices_draw_a_line_with_euro_and_vienna_date_labels():
    svg = price_chart_svg(
        [(at(0), Decimal("120")), (at(3), Decimal("99.5")), (at(6), Decimal("80"))]
    )
    root = parse(svg)
    assert root.get("width") == str(WIDTH) and root.get("height") == str(HEIGHT)
    assert '<path d="M' in svg
    assert "€ 120" in svg and "€ 80" in svg
    assert "01.02.2025" in svg  # 23:30 UTC is already the next day in Vienna


def test_one_point_is_a_dot_without_a_line():
    svg = price_chart_svg([(at(0), Decimal("50"))])
    parse(svg)
    assert "<path" not in svg and 'class="dot"' in svg


def test_equal_prices_do_not_divide_by_zero():
    svg = price_chart_svg([(at(0), Decimal("50")), (at(1), Decimal("50"))])
    parse(svg)
    assert "nan" not in svg.lower()


def test_price_on_request_leaves_a_gap():
    svg = price_chart_svg(
        [(at(0), Decimal("50")), (at(1), None), (at(2), Decimal("40")), (at(3), Decimal("30"))]
    )
    parse(svg)
    assert svg.count("<path") == 2
    assert 'class="gap"' in svg


def test_only_on_request_says_so():
    assert "Preis auf Anfrage" in price_chart_svg([(at(0), None)])


def test_free_point_says_zu_verschenken():
    svg = price_chart_svg([(at(0), Decimal("50")), (at(1), Decimal("0"))])
    parse(svg)
    assert "zu verschenken" in svg
    assert "kein Preisverlauf" in price_chart_svg([])


def test_text_is_escaped():
    svg = price_chart_svg([(at(0), Decimal("1"))], title='<script>alert("x")</script>')
    parse(svg)
    assert "<script>" not in svg


def test_euro_uses_austrian_separators():
    assert euro(Decimal("1234.5")) == "€ 1.234,50"


def test_ad_points_start_with_the_first_price_and_end_now():
    ad = SimpleNamespace(first_seen_at=at(0), price=Decimal("80"))
    changes = [SimpleNamespace(seen_at=at(2), old_price=Decimal("100"), new_price=Decimal("80"))]
    assert ad_price_points(ad, changes, at(5)) == [
        (at(0), Decimal("100")),
        (at(2), Decimal("80")),
        (at(5), Decimal("80")),
    ]


def test_a_gone_ads_chart_ends_when_it_went():
    ad = SimpleNamespace(first_seen_at=at(0), price=Decimal("80"), gone_at=at(3))
    changes = [SimpleNamespace(seen_at=at(2), old_price=Decimal("100"), new_price=Decimal("80"))]
    assert ad_price_points(ad, changes, at(5))[-1] == (at(3), Decimal("80"))


def test_points_of_one_day_are_labelled_with_their_times():
    """Two x labels both reading "01.02.2025" say nothing: same-day points carry the time."""
    svg = price_chart_svg([(at(0), Decimal("120")), (at(0) + dt.timedelta(hours=9), Decimal("99"))])
    texts = [t.text for t in parse(svg).iter("{http://www.w3.org/2000/svg}text")]
    assert "01.02.2025 00:30" in texts and "01.02.2025 09:30" in texts
    assert "01.02.2025 09:30: € 99" in svg  # the point's tooltip too
    days = price_chart_svg([(at(0), Decimal("120")), (at(3), Decimal("99"))])
    assert "00:30" not in days and "01.02.2025" in days
