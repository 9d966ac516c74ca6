"""The judgement's statistics reproduce values computed by hand."""

from decimal import Decimal as D

import pytest

from tracker.price_stats import (
    has_bait_words,
    label,
    mad,
    mad_floor,
    median,
    modified_z,
    percent_against,
    percentile,
)


def test_median_of_an_odd_count_is_the_middle_value():
    assert median([D(3), D(1), D(2)]) == D(2)


def test_median_of_an_even_count_is_the_mean_of_the_two_middle_values():
    assert median([D(4), D(1), D(3), D(2)]) == D("2.5")


def test_median_with_ties():
    # 1 5 5 5 -> (5 + 5) / 2
    assert median([D(5), D(5), D(5), D(1)]) == D(5)


def test_median_of_nothing_is_an_error():
    with pytest.raises(ValueError):
        median([])


def test_mad_ignores_one_outlier():
    # median 3; deviations 2 1 0 1 97 -> sorted 0 1 1 2 97 -> 1
    assert mad([D(1), D(2), D(3), D(4), D(100)]) == D(1)


def test_z_of_a_far_price():
    # 0.6745 * (10 - 3) / 1 (MAD 1; floor max(0.03, 1) = 1)
    assert modified_z(D(10), D(3), D(1)) == pytest.approx(4.7215)


def test_mad_zero_uses_the_floor_of_one_per_cent_of_the_median():
    prices = [D(1000)] * 6 + [D(900), D(2000)]
    assert mad(prices) == D(0)
    assert mad_floor(D(1000)) == D(10)
    # 0.6745 * (900 - 1000) / 10
    assert modified_z(D(900), D(1000), D(0)) == pytest.approx(-6.745)


def test_mad_floor_is_at_least_one_euro():
    assert mad_floor(D(20)) == D(1)
    # 0.6745 * (15 - 20) / 1
    assert modified_z(D(15), D(20), D(0)) == pytest.approx(-3.3725)


def test_percent_against_the_median_to_one_decimal():
    assert percent_against(D(77), D(100)) == D("-23.0")
    # (673.59 - 1095) / 1095 * 100 = -38.4849...
    assert percent_against(D("673.59"), D(1095)) == D("-38.5")
    assert percent_against(D(115), D(100)) == D("15.0")


def test_percentile_is_the_share_cheaper():
    assert percentile(D(3), [D(1), D(2), D(3), D(4)]) == 50.0
    assert percentile(D(0.5), [D(1), D(2)]) == 0.0
    assert percentile(D(9), [D(1), D(2)]) == 100.0


def test_percentile_with_ties_counts_only_strictly_cheaper():
    assert percentile(D(5), [D(5), D(5), D(5), D(1)]) == 25.0


def judged(**overrides):
    args = {
        "n": 8,
        "percent": D(0),
        "z": 0.0,
        "bait": False,
        "min_count": 8,
        "deal_percent": 15,
    }
    return label(**(args | overrides))


def test_one_less_than_the_minimum_count_is_too_few():
    assert judged(n=7, percent=D(-50)) == "too_few"
    assert judged(n=8, percent=D(-50)) == "deal"


def test_labels_by_percent():
    assert judged(percent=D("-15.0")) == "deal"
    assert judged(percent=D("-14.9")) == "fair"
    assert judged(percent=D("14.9")) == "fair"
    assert judged(percent=D("15.0")) == "high"


def test_far_under_the_market_with_a_bait_word_is_suspicious_not_a_deal():
    assert judged(percent=D(-60), z=-3.6, bait=True) == "suspicious"
    assert judged(percent=D(-60), z=-3.6, bait=False) == "deal"
    assert judged(percent=D(-20), z=-3.4, bait=True) == "deal"


@pytest.mark.parametrize(
    "title",
    [
        "iPhone 12 DEFEKT",
        "Rennrad für Bastler",
        "Tausche PS5 gegen Xbox",
        "SUCHE Rennrad 56 cm",
        "Laptop, nur Teile",
        "Handy kaputt",
        "MacBook broken screen",
        "GPU for parts",
        "Switch swap",
        "Wanted: road bike",
    ],
)
def test_bait_words_are_found_in_either_language(title):
    assert has_bait_words(title)


@pytest.mark.parametrize(
    "title",
    [
        "Suchergebnis Rennrad",
        "Besuche willkommen",
        "Tauschbörse",
        "Defektfrei geprüft",
        "Rennrad Carbon 56",
        "",
    ],
)
def test_bait_words_match_whole_words_only(title):
    assert not has_bait_words(title)
