"""A seeded database with known figures, shared by the health, stats, metrics and status tests."""

import datetime as dt
import json
import threading
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, HTTPServer
from types import SimpleNamespace

import pytest
import time_machine
from django.db.models import Q

from notifications.models import Notification
from scraping.models import ScrapeRun
from tests.factories import make_ad, make_chat, make_keyword
from tracker.models import Heartbeat, Keyword, PriceChange

NOW = dt.datetime(2025, 6, 1, 12, 0, tzinfo=dt.UTC)


def ago(**kw):
    return NOW - dt.timedelta(**kw)


@pytest.fixture
def clock():
    """Time stands still at NOW until the test moves it (traveller.shift / move_to)."""
    with time_machine.travel(NOW, tick=False) as traveller:
        yield traveller


@pytest.fixture(autouse=True)
def no_cached_readings():
    """operations.stats_cache keeps a big installation's readings for STATS_CACHE_S: never across
    tests."""
    from operations import stats_cache

    stats_cache.forget()
    yield
    stats_cache.forget()


@pytest.fixture
def started_long_ago(monkeypatch):
    """This process has been up for a day: the first-tick grace period is over."""
    from operations import health

    monkeypatch.setattr(health, "STARTED_AT", ago(days=1))


def _run(keyword, status, started, finished=None, **kw):
    if (
        status == ScrapeRun.Status.DONE
    ):  # as ScrapeRun.close does: the keyword keeps its last success
        newer = Q(last_success_at__isnull=True) | Q(last_success_at__lt=finished)
        Keyword.objects.filter(newer, pk=keyword.pk).update(last_success_at=finished)
    return ScrapeRun.objects.create(
        keyword=keyword,
        source="willhaben",
        status=status,
        started_at=started,
        finished_at=finished,
        **kw,
    )


def _seed_runs(k):
    done, skipped = ScrapeRun.Status.DONE, ScrapeRun.Status.SKIPPED
    _run(k.fresh, done, ago(minutes=3), ago(minutes=2), ads_seen=30, ads_new=2)
    _run(
        k.fresh, done, ago(hours=2), ago(hours=2) + dt.timedelta(seconds=20), ads_seen=28, ads_new=1
    )
    _run(
        k.fresh,
        ScrapeRun.Status.FAILED,
        ago(hours=1),
        ago(hours=1),
        error="timeout",
        counters={"http_429": 2},
    )
    _run(
        k.fresh,
        ScrapeRun.Status.BANNED,
        ago(minutes=30),
        ago(minutes=30),
        error="http_429",
        counters={"http_429": 3},
    )
    _run(
        k.fresh,
        skipped,
        ago(minutes=20),
        ago(minutes=20),
        error="already_running",
        counters={"skips": 3},
    )
    _run(k.fresh, skipped, ago(minutes=10), ago(minutes=10), error="concurrent_claim")
    _run(k.stuck, done, ago(minutes=30), ago(minutes=29), ads_seen=5, ads_new=0)
    # Outside the 24 h window: counted nowhere but in "last success".
    _run(
        k.inactive,
        done,
        ago(days=2),
        ago(days=2) + dt.timedelta(minutes=1),
        counters={"http_429": 5},
    )
    _run(k.new, ScrapeRun.Status.RUNNING, ago(minutes=1))


def _seed_ads():
    ads = [make_ad(first_seen_at=ago(hours=1)) for _ in range(3)] + [
        make_ad(first_seen_at=ago(days=2)) for _ in range(2)
    ]
    drops = [
        (Decimal("100"), Decimal("80"), ago(hours=1)),
        (Decimal("80"), Decimal("70"), ago(hours=3)),
    ]
    others = [
        (Decimal("80"), Decimal("90"), ago(hours=1)),  # a rise
        (Decimal("200"), Decimal("150"), ago(days=2)),  # a drop, but too old
        (None, Decimal("50"), ago(hours=1)),  # price appeared: not a drop
        (Decimal("50"), None, ago(hours=1)),  # price on request now: not a drop
    ]
    for ad, (old, new, seen) in zip(ads, drops + others, strict=False):
        PriceChange.objects.create(ad=ad, old_price=old, new_price=new, seen_at=seen)
    return ads


def _seed_notifications():
    chat = make_chat()
    rows = [("sent", "", ago(hours=5))] * 4 + [
        ("pending", "", ago(minutes=10)),
        ("pending", "429 Too Many Requests: retry after 5", ago(minutes=5)),
        ("dead", "RetryAfter: flood control", ago(days=2)),  # a 429, but outside the window
        ("cancelled", "", ago(hours=1)),
    ]
    for i, (status, error, created) in enumerate(rows):
        Notification.objects.create(
            chat=chat,
            kind=Notification.Kind.ALERT,
            alert_key=f"seed-{i}",
            status=status,
            last_error=error,
            created_at=created,
        )


@pytest.fixture
def seeded(db, clock):
    """4 keywords (3 active; "stuck" overdue by 540 s with an open zero-result alert), 5 ads,
    runs, queue rows."""
    k = SimpleNamespace(
        fresh=make_keyword(name="fresh", interval_minutes=5, last_run_at=ago(minutes=3)),
        # 2 × 10 min + 60 s = 1260 s allowed; last run 1800 s ago → overdue by 540 s.
        stuck=make_keyword(
            name="stuck",
            interval_minutes=10,
            last_run_at=ago(minutes=30),
            zero_result_alert_at=ago(hours=1),
        ),
        inactive=make_keyword(
            name="inactive", interval_minutes=5, is_active=False, last_run_at=ago(days=2)
        ),
        new=make_keyword(name="new", interval_minutes=5),
    )
    _seed_runs(k)
    k.ads = _seed_ads()
    _seed_notifications()
    Heartbeat.objects.create(name="scheduler", last_seen_at=ago(seconds=30))
    return k


@pytest.fixture
def fake_web():
    """A local /health answering what the test sets; reply["seen"] records (path, Host) per
    request."""
    reply = {"status": 200, "body": {"status": "ok"}, "seen": []}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's name
            reply["seen"].append((self.path, self.headers["Host"]))
            payload = json.dumps(reply["body"]).encode()
            self.send_response(reply["status"])
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield reply, f"http://127.0.0.1:{server.server_port}/health"
    server.shutdown()
    server.server_close()
