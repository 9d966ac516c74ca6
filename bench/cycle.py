"""Scrape-cycle benchmark: 500 keywords × 2 pages through a real qcluster.

The fake willhaben server answers each request after 100 ms, so the ideal
time is 500 × 2 × 0.1 s / W with W worker processes. The request gap is 0
here: the bench measures the scheduler and the workers, not politeness.

Env: BENCH_KEYWORDS (500), BENCH_WORKERS (4), BENCH_LATENCY_S (0.1).
"""

import json
import os
import signal
import subprocess
import sys
import threading
import time

from common import REPO, child_env, peak_rss_mb, setup_django

from tests.processes import descendants

KEYWORDS = int(os.environ.get("BENCH_KEYWORDS", 500))
WORKERS = int(os.environ.get("BENCH_WORKERS", 4))
LATENCY = float(os.environ.get("BENCH_LATENCY_S", 0.1))
PAGES = 2
TICK = {"seconds": 0.0}  # the tick alone: claiming every keyword and writing its task


def main():
    db = setup_django(
        SCRAPE_MIN_REQUEST_GAP_MS=0,
        SCRAPE_MAX_PAGES=PAGES,
        SCHEDULER_CLAIM_LIMIT=KEYWORDS,
        NOTIFY_BATCH=0,
    )
    from tests.fakes.willhaben import FakeWillhaben
    from tests.fakes.willhaben_factory import make_raw_ads

    server = FakeWillhaben().start()
    server.set_ads(make_raw_ads(PAGES * 30 + 10))
    server.latency_s = LATENCY
    seed_keywords()
    cluster = start_cluster(server.base_url)
    peak = {"mb": 0.0}
    sampler = threading.Thread(target=sample_memory, args=(cluster.pid, peak), daemon=True)
    sampler.start()
    try:
        seconds = run_one_cycle()
    finally:
        cluster.send_signal(signal.SIGTERM)
        cluster.wait(timeout=60)
        server.stop()
    bound = KEYWORDS * PAGES * LATENCY / WORKERS
    print(
        f"database: {db}; {KEYWORDS} keywords × {PAGES} pages, {LATENCY * 1000:.0f} ms per "
        f"request, W={WORKERS} workers"
    )
    print(
        f"all runs finished in {seconds:.1f} s; ideal bound {bound:.1f} s; ratio "
        f"{seconds / bound:.2f} (goal ≤ 2)"
    )
    print(
        f"peak worker RSS {peak['mb']:.0f} MB (goal < 150 MB); requests served "
        f"{len(server.search_requests())}"
    )
    print(
        json.dumps(
            {
                "bench": "cycle",
                "workers": WORKERS,
                "seconds": round(seconds, 2),
                "bound_seconds": round(bound, 2),
                "ratio": round(seconds / bound, 2),
                "peak_rss_mb": round(peak["mb"], 1),
                "tick_seconds": round(TICK["seconds"], 2),
            }
        )
    )


def seed_keywords():
    from tracker.models import Keyword

    Keyword.objects.bulk_create(
        Keyword(query=f"bench {i}", interval_minutes=60) for i in range(KEYWORDS)
    )


def start_cluster(base_url):
    env = child_env(Q_WORKERS=WORKERS, WILLHABEN_BASE_URL=base_url)
    cluster = subprocess.Popen(
        [sys.executable, "manage.py", "qcluster"],
        env=env,
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(3)  # workers forked and connected
    return cluster


def run_one_cycle():
    """One tick claims every keyword; returns seconds until the last run finished."""
    from scraping.models import ScrapeRun
    from scraping.tick import tick

    start = time.monotonic()
    claimed = tick()["claimed"]
    TICK["seconds"] = time.monotonic() - start
    assert claimed == KEYWORDS, f"claimed {claimed} of {KEYWORDS}"
    last_report = 0
    while True:
        done = ScrapeRun.objects.finished().count()
        if done >= KEYWORDS:
            break
        if time.monotonic() - last_report > 5:
            print(
                f"  {done}/{KEYWORDS} runs finished after {time.monotonic() - start:.0f} s",
                flush=True,
            )
            last_report = time.monotonic()
        if time.monotonic() - start > 900:
            raise SystemExit(f"only {done}/{KEYWORDS} runs finished after 900 s")
        time.sleep(0.2)
    not_done = ScrapeRun.objects.exclude(status="done")
    if not_done.exists():
        errors = list(not_done.values_list("error", flat=True)[:5])
        print(f"  warning: {not_done.count()} runs did not finish done: {errors}")
    return time.monotonic() - start


def sample_memory(cluster_pid, peak):
    while True:
        for pid in descendants(cluster_pid):
            peak["mb"] = max(peak["mb"], peak_rss_mb(pid) or 0)
        time.sleep(0.5)


if __name__ == "__main__":
    main()
