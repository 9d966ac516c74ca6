"""The one error type of a marketplace peer: whatever fails (HTTP, format, query), it is a
SourceError.

`slug` goes on the run's `error` (http_5xx, timeout, parse_error, challenge, ...), `detail` on its
`detail`, and `banned` says the peer refuses us (403/429/challenge page) rather than being broken:
such a run ends `banned`, not `failed`. The scrape path catches this one type plus the catch-all for
bugs.
"""


def body_excerpt(body, limit=500):
    """The first `limit` bytes of a response as text fit for a database column.

    PostgreSQL text cannot hold NUL, and garbage responses often do.
    """
    text = body[:limit].decode("utf-8", "replace") if isinstance(body, bytes) else str(body)[:limit]
    return text.replace("\x00", "\\x00")


class SourceError(Exception):
    slug = "source_error"

    def __init__(self, message, *, detail="", banned=False, slug=None):
        super().__init__(message)
        self._detail = detail
        self.banned = banned
        if slug is not None:
            self.slug = slug

    @property
    def detail(self):
        return self._detail or str(self)


class BadQuery(SourceError):
    slug = "bad_query"


class ParseError(SourceError):
    """The response is not in the format we know; `detail` says why, then its first 500 bytes."""

    slug = "parse_error"

    def __init__(self, message, *, body=b""):
        detail = message.replace("\x00", "\\x00")
        if body:
            detail += f"; the response began: {body_excerpt(body)}"
        super().__init__(message, detail=detail)


class FetchError(SourceError):
    """A request failed for good (after retries).

    `status` is the HTTP status (None for a network failure); `transient` means a later
    run may well succeed.
    """

    def __init__(self, slug, message, *, status=None, banned=False, transient=False, body=b""):
        super().__init__(message, banned=banned, slug=slug)
        self.status = status
        self.transient = transient
        self.body = body[:500]

    @property
    def detail(self):
        # Read when recorded: the retry loop may still add to the message (time budget).
        return f"{self} (status {self.status})" + (
            f": {body_excerpt(self.body)}" if self.body else ""
        )
