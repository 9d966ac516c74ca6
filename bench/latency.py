"""Benchmark: alert latency, from an ad going online to the Bot API receiving its message.

A real `qcluster` (the tick schedule as `setup_schedules` ships it, default workers) scrapes the
fake willhaben and sends to the fake Bot API, which enforces Telegram's limits (30 msg/s,
1 msg/s per chat) and answers 429 beyond them. 60 keywords at a 1-minute interval, 5
subscribed chats each. Once every keyword has had its first (quiet) run, a publisher adds a
new ad to 20 % of the keywords each minute, each at a random moment with its PUBLISHED set to
that moment, for LATENCY_BENCH_MINUTES minutes (default 4). Latency = the fake Bot API's
receipt - the moment of publishing, one sample per message (ad x subscriber); `missed` counts
ads that did not reach every subscriber within DRAIN_S after the last one was published.

Then *Run now* as the operator clicks it: gunicorn serves the admin on 127.0.0.1, the bench logs
in as its own superuser through the login form, opens the page of a keyword with a 60-minute
interval (so no scheduled run finds the ad first), publishes one new ad for it and POSTs the
page's Run now form with its CSRF token, RUN_NOW_CLICKS times; one sample per message (ad x
subscriber), from the POST to the fake Bot API's receipt.

Then a burst: 600 due notifications for 60 chats (10 each) queued at once and the sender
woken as a scrape that queued them would wake it; `burst_s` = wake to the last receipt.
(On a checkout without notifications.tasks there is nothing to wake: the tick finds them.)

    .venv/bin/python bench/latency.py                      # SQLite in a temporary file
    DATABASE_URL=postgres://... .venv/bin/python bench/latency.py
    LATENCY_BENCH_MINUTES=2 .venv/bin/python bench/latency.py   # a shorter run

The last line is one JSON object.
"""

import json
import math
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
from common import REPO, child_env, seed_notifications, setup_django, start_cluster, stop_cluster

from tests.processes import free_port

KEYWORDS, SUBSCRIBERS, SHARE = 60, 5, 0.2
INTERVAL_S = 60
MINUTES = float(os.environ.get("LATENCY_BENCH_MINUTES", "4"))
WARM_UP_S, DRAIN_S, BURST_WAIT_S = 240, 240, 180
BURST_CHATS, BURST_PER_CHAT = 60, 10
CHAT_ID_BASE, BURST_CHAT_ID_BASE = 5_100_000_000, 5_200_000_000  # private chats: 1 msg/s each
RUN_NOW_QUERY, RUN_NOW_INTERVAL_MINUTES, RUN_NOW_CLICKS, RUN_NOW_WAIT_S = "latenz-jetzt", 60, 5, 120
ADMIN_USER, ADMIN_PASSWORD = "bench", "bench-admin-password-33"
GUNICORN = str(Path(sys.executable).parent / "gunicorn")
CSRF_FIELD = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
RUN_NOW_FORM = re.compile(r'<form method="post" action="([^"]+)" class="lago-run-now">')


def seed(willhaben):
    """The keywords (one old ad each, so the first run has a cursor) and their subscribers, the
    Run now keyword (subscribed by the first chats) and the operator's account; returns the
    keywords' queries and the Run now keyword."""
    from django.contrib.auth import get_user_model

    from notifications.models import Subscription, TelegramChat
    from tests.fakes.willhaben_factory import make_raw_ad
    from tracker.models import Keyword

    old = datetime.now(UTC) - timedelta(hours=1)
    keywords = []
    for i in range(KEYWORDS):
        keyword = Keyword.objects.create(query=f"latenz{i}", interval_minutes=1)
        willhaben.ads_for_query[keyword.query] = [
            make_raw_ad(title=f"old {keyword.query}", published=old, seller=str(40_000_000 + i))
        ]
        keywords.append(keyword)
    clicked = Keyword.objects.create(query=RUN_NOW_QUERY, interval_minutes=RUN_NOW_INTERVAL_MINUTES)
    willhaben.ads_for_query[RUN_NOW_QUERY] = [
        make_raw_ad(title=f"old {RUN_NOW_QUERY}", published=old, seller="49000000")
    ]
    chats = TelegramChat.objects.bulk_create(
        [
            TelegramChat(chat_id=CHAT_ID_BASE + i, status=TelegramChat.Status.ACTIVE, title=f"c{i}")
            for i in range(KEYWORDS)
        ]
    )
    Subscription.objects.bulk_create(
        [
            Subscription(chat=chat, keyword=keywords[(j + k) % KEYWORDS])
            for j, chat in enumerate(chats)
            for k in range(SUBSCRIBERS)
        ]
        + [Subscription(chat=chat, keyword=clicked) for chat in chats[:SUBSCRIBERS]]
    )
    get_user_model().objects.create_superuser(ADMIN_USER, password=ADMIN_PASSWORD)
    return [keyword.query for keyword in keywords], clicked


def wait_until(predicate, timeout, what, proc):
    deadline = time.monotonic() + timeout
    while not predicate():
        if proc.poll() is not None:
            raise RuntimeError(f"qcluster exited with {proc.returncode} while waiting for {what}")
        if time.monotonic() > deadline:
            return False
        time.sleep(0.5)
    return True


def first_runs_done():
    from scraping.models import ScrapeRun

    done = ScrapeRun.objects.filter(status=ScrapeRun.Status.DONE)
    return done.values("keyword").distinct().count() >= KEYWORDS + 1  # and the Run now keyword


def put_new_ad(willhaben, query, token, *, price, seller):
    """Puts a new ad, published now, on top of `query`'s results in the fake willhaben."""
    from tests.fakes.willhaben_factory import make_raw_ad

    ad = make_raw_ad(
        title=f"{token} {query}",
        published=datetime.now(UTC),
        price=str(price),
        seller=str(seller),
    )
    # One reference swap: the server thread sees the old list or the new one.
    willhaben.ads_for_query[query] = [ad, *willhaben.ads_for_query[query]]


def publish(willhaben, queries):
    """Adds the new ads at random moments; returns {token: (query, monotonic publish time)}."""

    rng = random.Random(33)
    events = []
    for minute in range(math.ceil(MINUTES)):
        length = min(INTERVAL_S, (MINUTES - minute) * INTERVAL_S)
        for query in rng.sample(queries, round(KEYWORDS * SHARE * length / INTERVAL_S)):
            events.append((minute * INTERVAL_S + rng.uniform(0, length), query))
    published = {}
    start = time.monotonic()
    for n, (offset, query) in enumerate(sorted(events)):
        time.sleep(max(0.0, start + offset - time.monotonic()))
        token = f"bench-{n:05d}"
        put_new_ad(willhaben, query, token, price=100 + n, seller=50_000_000 + n)
        published[token] = (query, time.monotonic())
    return published


def receipts(telegram, tokens):
    """{token: [receipt times]} of the messages naming each token."""
    found = {token: [] for token in tokens}
    for message in list(telegram.messages):
        body = message["text"] or message["caption"] or ""
        named, start = set(), body.find("bench-")
        while start != -1:  # the title and the ad's link both name it: one receipt
            named.add(body[start : start + 11])
            start = body.find("bench-", start + 1)
        for token in named & found.keys():
            found[token].append(message["at"])
    return found


def runs_per_keyword_minute(start, end):
    """Scheduled runs per keyword and minute while the publisher ran (1.0: intervals hold)."""
    from scraping.models import ScrapeRun

    runs = ScrapeRun.objects.filter(
        kind=ScrapeRun.Kind.SCHEDULED, status=ScrapeRun.Status.DONE, started_at__range=(start, end)
    ).count()
    return round(runs / KEYWORDS / ((end - start).total_seconds() / 60), 2)


def percentile(samples, p):
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, math.ceil(p / 100 * len(ordered)) - 1)]


def start_web(port, log):
    """gunicorn with the product's WSGI app, as in production (DEBUG off)."""
    command = [GUNICORN, "lago.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "1"]
    command += ["--worker-class", "gthread", "--threads", "2", "--log-level", "warning"]
    return subprocess.Popen(
        command,
        env=child_env(ALLOWED_HOSTS="127.0.0.1"),
        cwd=REPO,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


class Operator:
    """The operator's browser: a cookie jar, the admin's login form, and the keyword page's Run now
    form posted with the CSRF token the page carries."""

    def __init__(self, base_url):
        self.client = httpx.Client(base_url=base_url, timeout=30)

    def page(self, url):
        response = self.client.get(url)
        response.raise_for_status()
        return response.text, CSRF_FIELD.search(response.text).group(1)

    def log_in(self, web):
        from django.urls import reverse

        login = reverse("admin:login")
        deadline = time.monotonic() + 60
        while True:
            try:
                _, token = self.page(login)
                break
            except httpx.TransportError:
                if web.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("gunicorn did not answer the admin login page") from None
                time.sleep(0.2)
        fields = {
            "username": ADMIN_USER,
            "password": ADMIN_PASSWORD,
            "next": reverse("admin:index"),
        }
        response = self.client.post(login, data={**fields, "csrfmiddlewaretoken": token})
        if response.status_code != 302:
            raise RuntimeError(f"admin login answered {response.status_code}, not a redirect")

    def open_keyword(self, keyword):
        """The keyword's change page: its Run now form's action and CSRF token."""
        from django.urls import reverse

        text, token = self.page(reverse("admin:tracker_keyword_change", args=[keyword.pk]))
        return RUN_NOW_FORM.search(text).group(1), token

    def click(self, action, token):
        """POSTs the Run now form; returns the monotonic time of the click."""
        clicked = time.monotonic()
        response = self.client.post(action, data={"csrfmiddlewaretoken": token})
        if response.status_code != 302:
            raise RuntimeError(f"Run now answered {response.status_code}, not a redirect")
        return clicked


def run_now(operator, keyword, willhaben, telegram, proc):
    """RUN_NOW_CLICKS times over a minute: a new ad for the keyword, then Run now on its page;
    returns {token: monotonic click time}. Each click waits for the previous run and its
    messages (a click while the keyword runs is skipped as already_running, by design)."""
    from django.db import connections

    from scraping.models import ScrapeRun

    rng = random.Random(34)
    clicks = {}
    start, slot = time.monotonic(), INTERVAL_S / RUN_NOW_CLICKS
    for n in range(RUN_NOW_CLICKS):
        # One click at a random moment of each fifth of a minute, so the clicks meet the tick's
        # scrape tasks (they share the queue) as often as an operator's would.
        time.sleep(max(0.0, start + (n + rng.random()) * slot - time.monotonic()))
        action, csrf = operator.open_keyword(keyword)
        token = f"bench-r{n:04d}"
        put_new_ad(willhaben, RUN_NOW_QUERY, token, price=900 + n, seller=49_000_001 + n)
        started = ScrapeRun.objects.filter(keyword=keyword).exclude(status=ScrapeRun.Status.SKIPPED)
        before = started.count()
        clicks[token] = operator.click(action, csrf)
        if started.count() == before:  # the page said "not started" (a skip)
            raise RuntimeError(f"Run now #{n} started no run of {RUN_NOW_QUERY}")
        wait_until(
            lambda token=token: len(receipts(telegram, [token])[token]) >= SUBSCRIBERS,
            RUN_NOW_WAIT_S,
            f"the messages of Run now #{n}",
            proc,
        )
        wait_until(
            lambda: not ScrapeRun.objects.running().filter(keyword=keyword).exists(),
            RUN_NOW_WAIT_S,
            f"the end of Run now #{n}'s run",
            proc,
        )
    connections.close_all()
    return clicks


def burst(telegram, proc):
    from django.db import connections

    from notifications.models import Notification

    try:
        from notifications.tasks import wake_sender
    except ImportError:  # a checkout from before send tasks: the next tick finds them
        wake_sender = None
    before = len(telegram.messages)
    seed_notifications(BURST_CHAT_ID_BASE, BURST_CHATS, BURST_PER_CHAT)
    started = time.monotonic()
    if wake_sender is not None:
        wake_sender()
    rows = Notification.objects.filter(chat__chat_id__gte=BURST_CHAT_ID_BASE)
    total = BURST_CHATS * BURST_PER_CHAT
    delivered = wait_until(
        lambda: rows.filter(status=Notification.Status.SENT).count() >= total,
        BURST_WAIT_S,
        "the burst",
        proc,
    )
    connections.close_all()
    at = [m["at"] for m in telegram.messages[before:] if m["chat_id"] >= BURST_CHAT_ID_BASE]
    return {
        "burst_s": round(max(at) - started, 1) if delivered and at else None,
        "burst_delivered": rows.filter(status=Notification.Status.SENT).count(),
        "burst_messages": len(at),
    }


def main():
    from tests.fakes.telegram import FakeTelegram
    from tests.fakes.willhaben import FakeWillhaben

    telegram = FakeTelegram().start()
    telegram.rate_limit(overall=30, per_chat=1)
    willhaben = FakeWillhaben().start()
    db = setup_django(
        TELEGRAM_BOT_TOKEN=telegram.token,
        TELEGRAM_API_BASE_URL=telegram.base_url,
        WILLHABEN_BASE_URL=willhaben.base_url,
    )
    from django.db import connections

    queries, clicked = seed(willhaben)
    connections.close_all()
    log = tempfile.NamedTemporaryFile(prefix="lago-latency-", suffix=".log", delete=False)
    port = free_port()
    web = start_web(port, log)
    operator = Operator(f"http://127.0.0.1:{port}")
    proc = start_cluster(log)
    try:
        operator.log_in(web)
        if not wait_until(first_runs_done, WARM_UP_S, "the first runs", proc):
            raise RuntimeError("not every keyword had its first run")
        window = [datetime.now(UTC)]
        published = publish(willhaben, queries)
        window.append(datetime.now(UTC))
        last = max(at for _, at in published.values())
        wait_until(
            lambda: all(
                len(times) >= SUBSCRIBERS for times in receipts(telegram, published).values()
            ),
            max(0.0, last + DRAIN_S - time.monotonic()),
            "the last messages",
            proc,
        )
        found = receipts(telegram, published)
        runs = runs_per_keyword_minute(*window)
        clicks = run_now(operator, clicked, willhaben, telegram, proc)
        figures = {"runs_per_keyword_minute": runs, **burst(telegram, proc)}
    except Exception:
        log.flush()
        print(Path(log.name).read_text(errors="replace")[-3000:], file=sys.stderr)
        raise
    finally:
        stop_cluster(proc)
        web.terminate()
        web.wait(timeout=30)
        operator.client.close()
        telegram.stop()
        willhaben.stop()
        log.close()
        Path(log.name).unlink(missing_ok=True)
    samples = [at - published[token][1] for token, times in found.items() for at in times]
    missed = sum(1 for times in found.values() if len(times) < SUBSCRIBERS)
    p50 = statistics.median(samples) if samples else None
    clicked_found = receipts(telegram, clicks)
    run_now_samples = [at - clicks[token] for token, times in clicked_found.items() for at in times]
    result = {
        "bench": "latency",
        "db": db,
        "minutes": MINUTES,
        "keywords": KEYWORDS,
        "subscribers": SUBSCRIBERS,
        "interval_s": INTERVAL_S,
        "ads": len(published),
        "messages": len(samples),
        "p50_s": round(p50, 1) if samples else None,
        "p90_s": round(percentile(samples, 90), 1) if samples else None,
        "p99_s": round(percentile(samples, 99), 1) if samples else None,
        "max_s": round(max(samples), 1) if samples else None,
        "overhead_p50_s": round(p50 - INTERVAL_S / 2, 1) if samples else None,
        "missed": missed,
        "run_now_clicks": len(clicks),
        "run_now_p50_s": round(statistics.median(run_now_samples), 1) if run_now_samples else None,
        "run_now_max_s": round(max(run_now_samples), 1) if run_now_samples else None,
        "run_now_missed": sum(1 for times in clicked_found.values() if len(times) < SUBSCRIBERS),
        **figures,
        "http_429": telegram.count_429,
        "sent_twice": telegram.sent_twice(),
    }
    print(
        f"{len(published)} ads, {len(samples)} messages: median {result['p50_s']} s, "
        f"p90 {result['p90_s']} s, p99 {result['p99_s']} s, max {result['max_s']} s, "
        f"{missed} missed; Run now (click to message) median {result['run_now_p50_s']} s, "
        f"max {result['run_now_max_s']} s; "
        f"burst of {BURST_CHATS * BURST_PER_CHAT} in {result['burst_s']} s, "
        f"{telegram.count_429} x 429, {result['sent_twice']} sent twice"
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
