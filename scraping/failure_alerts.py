"""Failure alerts: tell admins when a keyword starts failing, and when it recovers.

Runs after every finished run, whatever started it (tick, Run now, `manage.py
scrape`, a reaped zombie), from the state ScrapeRun.close() left on the keyword.
A keyword fails when its last SCRAPE_FAILURE_STREAK finished runs all failed or
were banned, or at once when its last run was banned. One alert per failing
spell (Keyword.failing_alert_at, set by a conditional update), one "recovered"
message when a successful run ends it.
"""

import logging

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _

from notifications.alerts import enqueue_admin_alert
from tracker.models import Keyword

logger = logging.getLogger(__name__)

DETAIL_LIMIT = 1000


def check_failures(keyword_id, now=None):
    """Opens or clears the keyword's failing alert; returns "opened", "recovered" or None."""
    now = now or timezone.now()
    keyword = Keyword.objects.filter(pk=keyword_id).first()
    if keyword is None:
        return None
    failing = (
        keyword.consecutive_failures >= settings.SCRAPE_FAILURE_STREAK
        or keyword.last_finished_status == "banned"
    )
    if failing and keyword.is_active:
        return _open(keyword, now)
    if keyword.last_finished_status == "done":
        return _clear(keyword, now)
    return None


def _open(keyword, now):
    opened = Keyword.objects.filter(pk=keyword.pk, failing_alert_at__isnull=True).update(
        failing_alert_at=now
    )
    if not opened:
        return None
    runs = keyword.consecutive_failures
    what = (
        _("was banned")
        if keyword.last_finished_status == "banned"
        else _("failed %(runs)s runs in a row") % {"runs": runs}
    )
    logger.error(
        "keyword %s (%s) on %s %s: %s %s",
        keyword.pk,
        keyword.display_name,
        keyword.source,
        what,
        keyword.last_error,
        keyword.last_error_detail,
    )
    detail = keyword.last_error_detail[:DETAIL_LIMIT]
    enqueue_admin_alert(
        f"scrape_failing:{keyword.pk}:{now.isoformat()}",
        _("🚨 %(source)s keyword #%(id)s “%(name)s” %(what)s: %(error)s")
        % {**_named(keyword), "what": what, "error": keyword.last_error}
        + (f"\n{detail}" if detail else ""),
    )
    return "opened"


def _clear(keyword, now):
    cleared = Keyword.objects.filter(pk=keyword.pk, failing_alert_at__isnull=False).update(
        failing_alert_at=None
    )
    if not cleared:
        return None
    logger.warning(
        "keyword %s (%s) on %s recovered", keyword.pk, keyword.display_name, keyword.source
    )
    enqueue_admin_alert(
        f"scrape_recovered:{keyword.pk}:{now.isoformat()}",
        _("✅ %(source)s keyword #%(id)s “%(name)s” recovered: the last run succeeded.")
        % _named(keyword),
    )
    return "recovered"


def _named(keyword):
    return {"source": keyword.source, "id": keyword.pk, "name": keyword.display_name}
