"""Every error and skip slug reads as words with a next step, in German and English."""

import pytest
from django.utils import translation

from scraping.error_texts import TEXTS, explain, plain_excerpt
from scraping.models import ScrapeRun

# What the code writes to ScrapeRun.error: scraping/errors.py and http.py, the sources, the
# scrape path, the tick, enqueueing and the skip reasons of claims.py.
SLUGS = [
    "challenge",
    "http_403",
    "http_429",
    "http_5xx",
    "timeout",
    "connect_error",
    "decode_error",
    "too_large",
    "parse_error",
    "bad_query",
    "source_error",
    "unknown_source",
    "source_unavailable",
    "internal_error",
    "zombie",
    "enqueue_failed",
    "already_running",
    "concurrent_claim",
    "no_success",  # /health's scraping_stale problem
]


def test_every_slug_the_code_writes_has_its_own_words():
    assert sorted(TEXTS) == sorted(SLUGS)


@pytest.mark.parametrize("slug", SLUGS)
def test_each_slug_is_explained_in_german_and_english(slug):
    with translation.override("en"):
        english = explain(slug, "willhaben")
    with translation.override("de"):
        german = explain(slug, "willhaben")
    for words in (english, german):
        assert words.text and words.next_step and "%(" not in str(words) and slug not in str(words)
    assert german.text != english.text and german.next_step != english.next_step


def test_a_challenge_in_german_says_what_to_do():
    with translation.override("de"):
        assert str(explain("challenge", "willhaben")) == (
            "willhaben zeigt eine Bot-Abwehrseite statt Ergebnissen — "
            "Intervall erhöhen oder SCRAPE_PROXY_URL setzen"
        )


def test_a_challenge_in_english_says_what_to_do():
    with translation.override("en"):
        assert str(explain("challenge", "willhaben")) == (
            "willhaben shows a bot-protection page instead of results — "
            "raise the interval or set SCRAPE_PROXY_URL"
        )


def test_other_http_statuses_and_unknown_slugs_fall_back_to_words_naming_them():
    with translation.override("de"):
        assert explain("http_404", "willhaben").text == ("willhaben antwortete mit HTTP-Status 404")
        assert explain("new_thing").text == "unbekannter Fehler „new_thing“"
        assert explain("new_thing").next_step == "siehe Detail des Laufs und das Log"
    with translation.override("en"):
        assert explain("http_404", "willhaben").text == "willhaben answered with HTTP status 404"
        assert explain("").text == "unknown error “”"


def test_a_banned_run_is_not_labelled_429():
    with translation.override("de"):
        assert str(ScrapeRun.Status.BANNED.label) == "gesperrt"


def test_plain_excerpt_has_no_markup_one_line_and_a_cap():
    body = (
        "HTML page instead of JSON (bot challenge?) (status None): <!DOCTYPE html><html><head>"
        "<title>Just a moment...</title><style>body { color: red }</style>"
        "<script>var x = '<b>';</script></head>\n\n<body><p>Enable   JavaScript</p><div cla"
    )
    assert plain_excerpt(body) == (
        "HTML page instead of JSON (bot challenge?) (status None): Just a moment... "
        "Enable JavaScript"
    )
    long = plain_excerpt("<p>" + "word " * 100 + "</p>", limit=40)
    assert len(long) == 40 and long.endswith("…") and "<" not in long
    assert plain_excerpt("") == ""
