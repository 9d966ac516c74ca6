"""Sources that need credentials (cookies, API keys) may say when they expire.

A source handler (see scraping.sources.base.Source) answers
`credentials_expire_at()` (an aware datetime or None) and
`unavailable_reason()` (a short text or None). willhaben needs no
credentials; the mechanism is here for the sources that do.
"""

import logging
from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _

from notifications.alerts import enqueue_admin_alert
from scraping.sources import UnknownSource, get_handler
from tracker.models import Keyword

logger = logging.getLogger(__name__)


def unavailable_reason(handler, now=None):
    """Why the source cannot run at all right now, or None."""
    reason = handler.unavailable_reason()
    if reason:
        return reason
    expiry = handler.credentials_expire_at()
    if expiry is not None and expiry <= (now or timezone.now()):
        return f"credentials expired at {timezone.localtime(expiry):%Y-%m-%d %H:%M}"
    return None


def check_credentials(now=None):
    """Tells admins (once a day per source, logged at ERROR) about a source that reports no
    session, and about credentials that expire soon or have expired."""
    now = now or timezone.now()
    day = timezone.localdate(now).isoformat()
    # order_by(): the default ordering (id) would make it DISTINCT (source, id), one row per
    # keyword.
    for slug in Keyword.objects.active().order_by().values_list("source", flat=True).distinct():
        try:
            handler = get_handler(slug)()
        except UnknownSource:
            continue  # the claim records unknown_source for each of its keywords
        reason = handler.unavailable_reason()
        if reason:
            logger.error("source %s is unavailable: %s; its keywords are skipped", slug, reason)
            enqueue_admin_alert(
                f"source_unavailable:{slug}:{day}",
                _(
                    "⛔ The %(source)s source is unavailable: %(reason)s. Its keywords are skipped "
                    "(source_unavailable) until it is fixed."
                )
                % {"source": slug, "reason": reason},
            )
            continue
        _check_expiry(slug, handler.credentials_expire_at(), now, day)


def _check_expiry(slug, expiry, now, day):
    if expiry is None or expiry - now > timedelta(days=settings.COOKIE_EXPIRY_WARN_DAYS):
        return
    when = f"{timezone.localtime(expiry):%Y-%m-%d %H:%M}"
    if expiry <= now:
        logger.error("credentials of source %s expired at %s: its keywords are skipped", slug, when)
        enqueue_admin_alert(
            f"credentials_expired:{slug}:{day}",
            _(
                "⛔ The %(source)s credentials expired at %(when)s. Its keywords are skipped "
                "(source_unavailable) until they are renewed."
            )
            % {"source": slug, "when": when},
        )
    else:
        logger.error("credentials of source %s expire at %s: renew them", slug, when)
        text = _("⚠️ The %(source)s credentials expire at %(when)s. Renew them before then.") % {
            "source": slug,
            "when": when,
        }
        enqueue_admin_alert(f"credentials_expiring:{slug}:{day}", text)
