"""`manage.py price_check` answers whether a price is good for what a keyword finds."""

import json
from decimal import Decimal as D
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from tests.factories import make_ad, make_keyword
from tracker.models import KeywordAd

pytestmark = pytest.mark.django_db

TARGET = "Specialized Tarmac SL7 Rennrad Carbon 56 cm"
OTHERS = ["Fahrradschloss Abus Bordo", "Fahrradhelm Uvex Gr. M", "Luftpumpe SKS", "Kettenöl Brunox"]


def link(keyword, price, title):
    ad = make_ad(title=title, price=price)
    KeywordAd.objects.create(keyword=keyword, ad=ad, price=price, found_at=timezone.now())


@pytest.fixture
def keyword():
    """20 bikes titled like the target at € 1.000 … € 1.190 (median € 1.095) and 20 cheap other
    things."""
    kw = make_keyword(name="Rennräder", query="rennrad")
    for i in range(20):
        link(kw, D(1000 + 10 * i), f"Specialized Tarmac Rennrad Carbon {50 + i % 6} cm")
    for i in range(20):
        link(kw, D(15 + i), OTHERS[i % 4])
    return kw


def run(*args):
    out = StringIO()
    call_command("price_check", *args, stdout=out)
    return out.getvalue()


def last_json(output):
    return json.loads(output.strip().splitlines()[-1])


def test_a_price_far_under_similar_ads_is_a_deal(keyword):
    result = last_json(run(str(keyword.pk), "673.59", "--title", TARGET, "--json"))
    assert result["n"] == 20
    assert result["median"] == 1095
    assert result["percent"] == pytest.approx(-38.5)
    assert result["label"] == "deal"
    assert set(result) >= {"n", "median", "mad", "z", "percent", "percentile", "label"}


def test_the_same_price_with_a_bait_word_is_suspicious(keyword):
    result = last_json(run(str(keyword.pk), "673.59", "--title", f"{TARGET} defekt", "--json"))
    assert result["label"] == "suspicious"


def test_the_keyword_by_name_or_search_words_and_a_comma_price(keyword):
    by_name = last_json(run("rennräder", "673,59", "--title", TARGET, "--json"))
    by_query = last_json(run("  RENNRAD ", "673.59", "--title", TARGET, "--json"))
    assert by_name == by_query and by_name["n"] == 20


def test_the_human_output_names_median_and_label(keyword):
    output = run(str(keyword.pk), "673.59", "--title", TARGET)
    assert "€ 1.095" in output and "deal" in output and "similar titles" in output


def test_too_few_comparables_say_so():
    kw = make_keyword()
    result = last_json(run(str(kw.pk), "100", "--json"))
    assert result["label"] == "too_few" and result["n"] == 0 and result["median"] is None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["999999", "100"], "no keyword with id 999999"),
        (["nothing like it", "100"], "no keyword named or searching"),
        (["rennrad", "abc"], "is not a number"),
        (["rennrad", "-5"], "must be above 0"),
        (["rennrad", "NaN"], "must be above 0"),
    ],
)
def test_bad_input_is_a_clear_error(keyword, args, message):
    with pytest.raises(CommandError, match=message):
        run(*args)


def test_two_keywords_with_the_same_search_ask_for_the_id(keyword):
    make_keyword(query="Rennrad")
    with pytest.raises(CommandError, match="more than one keyword"):
        run("rennrad", "100")
