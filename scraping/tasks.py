"""django-q2 tasks of the scraping app. Each is idempotent: the queue may
deliver a task twice (retry after a timeout, several clusters on one broker)."""

import logging
import traceback

from django.conf import settings
from django.utils import timezone

from notifications.tasks import wake_sender
from scraping import http
from scraping.models import ScrapeRun
from scraping.scrape import scrape_keyword
from scraping.zero_result_alerts import run_finished
from tracker.models import Keyword

logger = logging.getLogger(__name__)


def run_scrape(run_id):
    """Scrapes the keyword of a claimed run and records the outcome on it; a run that queued
    notifications wakes the sender, so they go out now rather than at the next tick."""
    run = ScrapeRun.objects.select_related("keyword").filter(pk=run_id).first()
    if run is None or run.status != ScrapeRun.Status.RUNNING or run.keyword is None:
        logger.info("run %s is no longer running: nothing to do (redelivered task)", run_id)
        return None
    keyword = run.keyword
    queued = 0
    try:
        with http.time_budget(settings.SCRAPE_TIME_BUDGET_S):
            # Records its Outcome on the run (a sweep by the run's kind).
            queued = scrape_keyword(keyword, run).counts.notifications
    except Exception as exc:
        logger.exception("scrape of keyword %s (run %s) crashed", keyword.pk, run.pk)
        run.close(
            ScrapeRun.Status.FAILED,
            "internal_error",
            f"{type(exc).__name__}: {exc}\n{traceback.format_exc()[-2000:]}",
        )
    Keyword.objects.filter(pk=keyword.pk).update(last_run_at=timezone.now())
    run_finished(keyword)
    if queued:
        wake_sender()
    return run.status
