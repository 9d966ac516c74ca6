"""A real qcluster, the real schedule, the fake willhaben and the fake Bot API:
a new ad on the marketplace reaches the subscribed Telegram chat."""

import signal
import subprocess
from datetime import timedelta

import pytest
from django.conf import settings
from django.core.management import call_command
from django.utils import timezone
from django_q.tasks import async_task

from scraping.models import ScrapeRun
from tests.factories import make_subscription
from tests.fakes.willhaben_factory import make_raw_ads
from tests.processes import PYTHON, child_env, wait_for

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(180),
]


def test_a_new_ad_reaches_the_subscribed_chat(willhaben_server, telegram):
    willhaben_server.set_ads(make_raw_ads(3, newest=timezone.now()))
    sub = make_subscription()
    # The keyword ran before (its cursor is an hour old), so these ads are new.
    sub.keyword.cursor_published_at = timezone.now() - timedelta(hours=1)
    sub.keyword.cursor_ad_id = "1"
    sub.keyword.save()
    call_command("setup_schedules")
    env = child_env(
        Q_WORKERS=2,
        WILLHABEN_BASE_URL=willhaben_server.base_url,
        SCRAPE_MIN_REQUEST_GAP_MS=0,
        TELEGRAM_BOT_TOKEN=telegram.token,
        TELEGRAM_API_BASE_URL=telegram.base_url,
    )
    cluster = subprocess.Popen(
        [PYTHON, "manage.py", "qcluster"],
        env=env,
        cwd=settings.BASE_DIR,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        # The cluster's scheduler fires the first tick (it looks every 30 s): claim + scrape task.
        wait_for(
            lambda: ScrapeRun.objects.filter(status="done").exists(),
            90,
            "the scheduled tick's scrape",
        )
        run = ScrapeRun.objects.get(status="done")
        assert (run.ads_seen, run.ads_new) == (3, 3)
        # The next minute's tick sends; enqueue it rather than wait a real minute.
        async_task("scraping.tick.tick")
        wait_for(lambda: len(telegram.messages) >= 3, 60, "three messages at the fake Bot API")
    finally:
        cluster.send_signal(signal.SIGTERM)
        output = cluster.communicate(timeout=60)[0]
    assert {m["chat_id"] for m in telegram.messages} == {sub.chat.chat_id}, output[-3000:]
    assert telegram.sent_twice() == 0
