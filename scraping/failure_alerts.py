"""Failure alerts: tell admins when keywords start failing, and when they recover.

Runs after every finished run, whatever started it (tick, Run now, `manage.py
scrape`, a reaped zombie), from the state ScrapeRun.close() left on the keyword.
A keyword fails when its last SCRAPE_FAILURE_STREAK finished runs all failed or
were banned, or at once when its last run was banned. One "recovered" message
when a successful run ends it.

A ban or an outage hits every keyword of a source, each at its next run: one alert per source
names them all. A keyword that starts failing joins its source's spell opened less than
GROUP_WINDOW ago (Keyword.failing_alert_at takes the spell's start, set by a conditional
update); the spell's alert goes out when the window has closed, or sooner once every active
keyword of the source is in it. Two keywords opening a spell in the same instant may each
send one: a small race kept for simplicity.
"""

import logging
from collections import defaultdict
from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from notifications.alerts import enqueue_admin_alert
from notifications.models import Notification
from scraping.error_texts import explain, plain_excerpt
from tracker.models import Keyword

logger = logging.getLogger(__name__)

# Long enough for the keywords claimed by the same few ticks to fail together.
GROUP_WINDOW = timedelta(minutes=5)
# Spells older than this are not sent any more (a scheduler down for a day); the dashboard
# still lists them.
SEND_HORIZON = timedelta(days=1)


def check_failures(keyword_id, now=None):
    """Opens or clears the keyword's failing state; returns "opened", "recovered" or None.

    Also sends every spell whose window has closed (the tick does too)."""
    now = now or timezone.now()
    keyword = Keyword.objects.filter(pk=keyword_id).first()
    if keyword is None:
        return None
    failing = (
        keyword.consecutive_failures >= settings.SCRAPE_FAILURE_STREAK
        or keyword.last_finished_status == "banned"
    )
    result = None
    if failing and keyword.is_active:
        result = _open(keyword, now)
    send_failure_alerts(now)
    if not failing and keyword.last_finished_status == "done":
        result = _clear(keyword, now)
    return result


def _open(keyword, now):
    spell = (
        Keyword.objects.filter(source=keyword.source, failing_alert_at__gt=now - GROUP_WINDOW)
        .exclude(pk=keyword.pk)
        .order_by("failing_alert_at")
        .values_list("failing_alert_at", flat=True)
        .first()
    )
    opened = Keyword.objects.filter(pk=keyword.pk, failing_alert_at__isnull=True).update(
        failing_alert_at=spell or now
    )
    if not opened:
        return None
    logger.error(
        "keyword %s (%s) on %s failing (%s, %s runs in a row): %s %s",
        keyword.pk,
        keyword.display_name,
        keyword.source,
        keyword.last_finished_status,
        keyword.consecutive_failures,
        keyword.last_error,
        keyword.last_error_detail,
    )
    return "opened"


def send_failure_alerts(now=None):
    """Sends each source's failing spell whose window has closed; returns how many alerts."""
    now = now or timezone.now()
    spells = defaultdict(list)
    for keyword in Keyword.objects.filter(failing_alert_at__gte=now - SEND_HORIZON).order_by(
        "source", "failing_alert_at", "id"
    ):
        spells[keyword.source, keyword.failing_alert_at].append(keyword)
    sent = 0
    for (source, since), keywords in spells.items():
        if since > now - GROUP_WINDOW and _others_may_join(source, since):
            continue
        if enqueue_admin_alert(_key(source, since), _failing_text(source, keywords)):
            logger.warning(
                "failing alert for %s sent: keywords %s", source, [k.pk for k in keywords]
            )
            sent += 1
    return sent


def _others_may_join(source, since):
    return Keyword.objects.active().filter(source=source).exclude(failing_alert_at=since).exists()


def _key(source, since):
    return f"scrape_failing:{source}:{since.isoformat()}"


def _failing_text(source, keywords):
    by_error = defaultdict(list)
    for keyword in keywords:
        by_error[keyword.last_error].append(keyword)
    lines = [
        ngettext(
            "🚨 %(source)s: %(n)d keyword is failing.",
            "🚨 %(source)s: %(n)d keywords are failing.",
            len(keywords),
        )
        % {"source": source, "n": len(keywords)}
    ]
    for error, affected in by_error.items():
        lines.append(str(explain(error, source)) + ".")
        lines.append(
            _("Affected: %(keywords)s")
            % {"keywords": ", ".join(f"#{k.pk} “{k.display_name}”" for k in affected)}
        )
        excerpt = plain_excerpt(affected[0].last_error_detail)
        if excerpt:
            lines.append(_("Detail: %(excerpt)s") % {"excerpt": excerpt})
    return "\n".join(lines)


def _clear(keyword, now):
    since = keyword.failing_alert_at
    cleared = Keyword.objects.filter(pk=keyword.pk, failing_alert_at__isnull=False).update(
        failing_alert_at=None
    )
    if not cleared:
        return None
    logger.warning(
        "keyword %s (%s) on %s recovered", keyword.pk, keyword.display_name, keyword.source
    )
    # A spell that ended before its alert went out needs no all-clear.
    if (
        since is not None
        and Notification.objects.filter(
            kind=Notification.Kind.ALERT, alert_key=_key(keyword.source, since)
        ).exists()
    ):
        enqueue_admin_alert(
            f"scrape_recovered:{keyword.pk}:{now.isoformat()}",
            _("✅ %(source)s keyword #%(id)s “%(name)s” recovered: the last run succeeded.")
            % {"source": keyword.source, "id": keyword.pk, "name": keyword.display_name},
        )
    return "recovered"
