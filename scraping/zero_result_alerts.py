"""Zero-result alerts: a keyword that keeps finding nothing is usually
broken (a changed search URL, a block), not quiet. Alert once per streak."""

import logging
from collections import Counter

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _

from notifications.alerts import enqueue_admin_alert
from scraping.error_texts import explain
from scraping.failure_alerts import check_failures
from scraping.models import ScrapeRun
from tracker.models import Keyword

logger = logging.getLogger(__name__)


def run_finished(keyword, now=None):
    """Every monitor, after any run of `keyword` finished (tick, Run now, `manage.py scrape`)."""
    check_failures(keyword.pk, now)
    check_zero_results(keyword, now)


def check_zero_results(keyword, now=None):
    """Opens the keyword's alert when its last ZERO_RESULT_STREAK finished runs
    all saw 0 ads, and clears it when a run sees ads again. Skips neither
    count nor break the streak."""
    now = now or timezone.now()
    streak = settings.ZERO_RESULT_STREAK
    runs = ScrapeRun.objects.finished().filter(keyword=keyword).order_by("-started_at", "-id")
    rows = list(runs.values_list("ads_seen", "status", "error")[:streak])
    recent = [ads for ads, __, __ in rows]
    if recent and recent[0] > 0:
        _clear(keyword)
    elif len(recent) == streak and not any(recent):
        failures = Counter(  # slugs for the log, words for the message
            error for __, status, error in rows if status in ("failed", "banned")
        )
        _open(keyword, now, streak, failures)


def _open(keyword, now, streak, failures):
    # Conditional update: only the first caller of a streak alerts.
    opened = Keyword.objects.filter(pk=keyword.pk, zero_result_alert_at__isnull=True).update(
        zero_result_alert_at=now
    )
    if not opened:
        return
    keyword.zero_result_alert_at = now
    logger.error(
        "keyword %s (%s) found no ads in its last %d runs (%s)",
        keyword.pk,
        keyword.display_name,
        streak,
        dict(failures),
    )
    if failures:  # the runs failed: say how, not "the site may have changed"
        why = "; ".join(
            f"{n} × {explain(error, keyword.source).text}" for error, n in failures.most_common()
        )
        text = _("🔎 Keyword #%(id)s “%(name)s” found no ads: %(streak)s runs: %(why)s.")
    else:
        text = _(
            "🔎 Keyword #%(id)s “%(name)s” found no ads in its last %(streak)s runs. "
            "Check the query in the admin; the site may have changed or blocked us."
        )
        why = ""
    text %= {"id": keyword.pk, "name": keyword.display_name, "streak": streak, "why": why}
    enqueue_admin_alert(f"zero_results:{keyword.pk}:{now.isoformat()}", text)


def _clear(keyword):
    cleared = Keyword.objects.filter(pk=keyword.pk, zero_result_alert_at__isnull=False).update(
        zero_result_alert_at=None
    )
    if cleared:
        keyword.zero_result_alert_at = None
        logger.info("keyword %s finds ads again: zero-result alert cleared", keyword.pk)
