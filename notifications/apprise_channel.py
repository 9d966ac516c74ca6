"""The only module that talks to Apprise: e-mail, ntfy, Matrix, Discord, … by URL.

A destination's URL is a secret (passwords, tokens, webhook paths): it leaves this module only
masked (`mask`), and every text Apprise gives back about a failure is scrubbed of it first.
Apprise's own log lines can carry such a token (a webhook's path), so they do not reach our
handlers; what a failure says reaches the caller as a `DeliveryError`, the one error type.

Each call runs under Apprise's call timeout (APPRISE_TIMEOUT_S): a slow service costs the sender
at most that long, and the caller never holds a database transaction across it.
"""

import functools
import logging
import re
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

import apprise
from apprise.attachment.memory import AttachMemory
from django.conf import settings
from django.utils.translation import gettext as _

from lib.log_filters import learn_secrets, redact

logger = logging.getLogger(__name__)
logging.getLogger("apprise").propagate = False

MASK = "****"
# Parts of a URL shorter than this are not scrubbed from error texts (they would blank out
# ordinary words); a password inside a URL is still caught by the log redaction.
MIN_SECRET_LENGTH = 4
ERROR_LIMIT = 500


@dataclass
class DeliveryError(Exception):
    """Anything but "delivered". permanent: this URL cannot work as it is (Apprise refuses it)."""

    reason: str
    permanent: bool = False

    def __post_init__(self):
        super().__init__(self.reason)

    def __str__(self):
        return self.reason


@functools.cache
def known_schemes():
    """Every scheme this Apprise speaks (mailto, ntfys, json, …), from its public details()."""
    schemes = set()
    for service in apprise.Apprise().details()["schemas"]:
        for key in ("protocols", "secure_protocols"):
            schemes.update(p.lower() for p in service.get(key) or ())
    return frozenset(schemes)


def parse(url):
    """Apprise's service object for `url`; ValueError saying what is wrong (without the URL)."""
    url = (url or "").strip()
    scheme, sep, _rest = url.partition("://")
    if not sep or not scheme:
        raise ValueError(
            _("Not an Apprise URL: it starts with a service, e.g. mailtos:// or ntfy://.")
        )
    if scheme.lower() not in known_schemes():
        raise ValueError(_("Apprise knows no service “%(scheme)s://”.") % {"scheme": scheme[:20]})
    service = apprise.Apprise.instantiate(url)
    if service is None:
        raise ValueError(
            _("Apprise cannot read this %(scheme)s:// URL: check it against the service's page.")
            % {"scheme": scheme.lower()}
        )
    return service


def mask(url):
    """The URL as it may be shown: Apprise's privacy form (passwords and tokens masked), the user
    part masked too (ntfy's token sits there alone), without the query."""
    try:
        shown = parse(url).url(privacy=True)
    except ValueError:
        return MASK
    scheme, _sep, rest = shown.partition("?")[0].partition("://")
    authority, slash, path = rest.partition("/")
    if "@" in authority:
        userinfo, host = authority.rsplit("@", 1)
        user = userinfo.split(":", 1)[0] if ":" in userinfo else ""
        authority = f"{user}:{MASK}@{host}" if user else f"{MASK}@{host}"
    return f"{scheme}://{authority}{slash}{path}"


def secrets(url):
    """The parts of `url` that must not appear in any text: its password (or its user part when
    that stands alone, as ntfy's token does), and whatever Apprise's privacy form leaves out
    (tokens in the path)."""
    found = set()
    try:
        parts = urlsplit(url)
        found.add(parts.password or ("" if "@" not in parts.netloc else parts.username))
    except ValueError:
        pass
    try:
        service = parse(url)
        shown = set(_pieces(service.url(privacy=True)))
        found.update(p for p in _pieces(service.url()) if p not in shown)
    except ValueError:
        pass
    found.update({unquote(s) for s in found if s})
    return sorted((s for s in found if s and len(s) >= MIN_SECRET_LENGTH), key=len, reverse=True)


def _pieces(url):
    return [p for p in re.split(r"[/:@?&=#,]+", url) if p]


def scrub(text, url):
    """`text` without any secret of `url` (nor any other credential the log redaction knows)."""
    for secret in secrets(url):
        text = text.replace(secret, MASK)
    return redact(text)


def preferred_format(url):
    """The body format the service takes best: "html", "markdown" or "text"."""
    formats = parse(url).notify_format
    first = formats[0] if isinstance(formats, list | tuple) else formats
    return str(getattr(first, "value", first))


def send(url, title, body, body_format="text", attachment=None):
    """Delivers one message, with `attachment` (PNG bytes Lago drew) when given; DeliveryError
    (scrubbed of the URL's secrets) when it is not delivered."""
    # Whatever fails from here (a log line, an error-tracking event with this frame's variables)
    # comes out without the URL's secrets.
    learn_secrets(secrets(url))
    try:
        service = parse(url)
    except ValueError as exc:
        raise DeliveryError(str(exc), permanent=True) from None
    timeout = settings.APPRISE_TIMEOUT_S
    # The service's own connect/read timeouts, capped: a slow host fails inside the call timeout.
    service.socket_connect_timeout = min(service.socket_connect_timeout, timeout)
    service.socket_read_timeout = min(service.socket_read_timeout, timeout)
    sender = apprise.Apprise()
    sender.add(service)
    try:
        result = sender.notify(
            body=body,
            title=title,
            body_format=body_format,
            timeout=timeout,
            attach=_attachments(attachment),
        )
    except Exception as exc:  # noqa: BLE001 - a plugin's bug must not leave this module unscrubbed
        raise DeliveryError(scrub(f"Apprise failed: {exc!r}", url)[:ERROR_LIMIT]) from None
    if result:
        return
    lines = [
        entry.asdict().get("message", "")
        for entry in result.logs()
        if entry.asdict().get("level") in ("WARNING", "ERROR", "CRITICAL")
    ]
    status = getattr(result.status, "name", str(result.status)).lower()
    reason = "; ".join(line for line in lines if line) or f"Apprise: {status}"
    raise DeliveryError(scrub(reason, url)[:ERROR_LIMIT])


def _attachments(png):
    """Apprise's attachment of PNG bytes held in memory (never a path or URL from data)."""
    if png is None:
        return None
    return [AttachMemory(content=png, name="market-report.png", mimetype="image/png")]
