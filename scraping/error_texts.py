"""Failures in words: what an error or skip slug means and what the operator can do about it.

The one table for the dashboard, the run and keyword pages and the admin alerts. Slugs stay
what machines read (/health, /metrics, logs); people read `explain()`. An unknown slug still gets
a sentence that names it, never an empty cell.
"""

import html
import re
from typing import NamedTuple

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

EXCERPT_LIMIT = 160

# slug -> (what happened, what to do); "%(source)s" is the marketplace's name.
TEXTS = {
    "challenge": (
        _("%(source)s shows a bot-protection page instead of results"),
        _("raise the interval or set SCRAPE_PROXY_URL"),
    ),
    "http_403": (
        _("%(source)s refuses our requests (403 Forbidden)"),
        _("wait, raise the interval or set SCRAPE_PROXY_URL"),
    ),
    "http_429": (
        _("%(source)s says we ask too often (429 Too Many Requests)"),
        _("raise the interval or pause some keywords"),
    ),
    "http_5xx": (
        _("%(source)s has a server error"),
        _("nothing to do: it usually passes; Lago keeps trying"),
    ),
    "timeout": (
        _("%(source)s did not answer in time"),
        _("usually passes; if it persists, check the server's network"),
    ),
    "connect_error": (
        _("no connection to %(source)s (network or DNS)"),
        _("check the server's network, DNS and SCRAPE_PROXY_URL"),
    ),
    "decode_error": (
        _("the answer of %(source)s could not be decoded"),
        _("usually passes; if it persists, report it with the run's detail"),
    ),
    "too_large": (
        _("the answer of %(source)s is larger than SCRAPE_MAX_RESPONSE_BYTES"),
        _("check the keyword's search; raise the limit only for a known reason"),
    ),
    "parse_error": (
        _("the answer of %(source)s is not in the format Lago knows"),
        _("the site may have changed: report it with the run's detail"),
    ),
    "bad_query": (
        _("%(source)s cannot search this keyword's query"),
        _("correct the search on the keyword's page"),
    ),
    "source_error": (
        _("%(source)s failed"),
        _("see the run's detail"),
    ),
    "unknown_source": (
        _("the keyword's source %(source)s is not enabled"),
        _("add it to SCRAPE_SOURCES or change the keyword's source"),
    ),
    "source_unavailable": (
        _("%(source)s cannot be used now (credentials missing or expired)"),
        _("set the source's credentials; the run's detail says which"),
    ),
    "internal_error": (
        _("a bug in Lago stopped the run"),
        _("report it with the run's detail (the traceback)"),
    ),
    "zombie": (
        _("the run did not finish: its worker died or hung"),
        _("check that qcluster is running and its log; the keyword runs again"),
    ),
    "enqueue_failed": (
        _("the run could not be handed to the task queue"),
        _("check the database; the keyword is due again at the next tick"),
    ),
    "already_running": (
        _("the previous run of this keyword was still running"),
        _("nothing to do; if it happens often, raise the interval"),
    ),
    "concurrent_claim": (
        _("another worker took this window first"),
        _("nothing to do: the keyword ran once, as it should"),
    ),
    # Not a run's error: /health's scraping_stale:<source>:no_success_<N>m problem.
    "no_success": (
        _("no run of %(source)s has succeeded for a long time (SCRAPE_STALE_MINUTES)"),
        _("open the source's last runs: their errors say why"),
    ),
}

OTHER_HTTP = (
    _("%(source)s answered with HTTP status %(status)s"),
    _("check the keyword's search; see the run's detail"),
)
UNKNOWN = (
    _("unknown error “%(slug)s”"),
    _("see the run's detail and the log"),
)


class Explanation(NamedTuple):
    text: str
    next_step: str

    def __str__(self):
        return gettext("%(text)s — %(next_step)s") % self._asdict()


def explain(slug, source=""):
    """The words for `slug` in the active language; `source` is the marketplace's name."""
    values = {"source": source or gettext("the marketplace"), "slug": slug}
    if slug in TEXTS:
        text, step = TEXTS[slug]
    elif re.fullmatch(r"http_\d{3}", slug or ""):
        text, step = OTHER_HTTP
        values["status"] = slug[5:]
    else:
        text, step = UNKNOWN
    return Explanation(str(text) % values, str(step) % values)


def plain_excerpt(detail, limit=EXCERPT_LIMIT):
    """A failure's detail fit for a person: no markup, one line, at most `limit` characters."""
    # Without script and style bodies a challenge page reads as its visible words.
    text = re.sub(r"(?is)<(script|style)\b.*?(</\1\s*>|$)", " ", detail or "")
    # Each tag becomes a space (strip_tags would glue "<title>a</title><p>b" into "ab"), and so
    # does a tag cut off at the end of a truncated body.
    text = " ".join(html.unescape(re.sub(r"<[!/?a-zA-Z][^>]*(>|$)", " ", text)).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
