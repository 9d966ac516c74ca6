"""Peak memory of a scrape that meets a gzip bomb (597 KiB inflating to 1.2 GiB).

    .venv/bin/python bench/gzip_bomb.py

The fake willhaben answers every search with a gzip body that inflates to 1.2 GiB of zeros.
One scrape_keyword() runs with the default SCRAPE_MAX_RESPONSE_BYTES (20 MB); the run must end
`failed`/`too_large`, and the process's peak RSS (ru_maxrss, which also covers Django, the fake
server and building the bomb) stays below the goal of 300 MB.
"""

import json
import resource
import time

from common import setup_django

BOMB = 1200 * 1024 * 1024


def main():
    db = setup_django()
    from django.conf import settings

    from scraping.models import ScrapeRun
    from scraping.scrape import scrape_keyword
    from tests.fakes.willhaben import FakeWillhaben
    from tracker.models import Keyword

    server = FakeWillhaben().start()
    try:
        server.gzip_bomb(BOMB)
        settings.WILLHABEN_BASE_URL = server.base_url
        settings.SCRAPE_MIN_REQUEST_GAP_MS = 0
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        keyword = Keyword.objects.create(query="bomb")
        run = ScrapeRun.objects.create(keyword=keyword, source="willhaben")
        started = time.monotonic()
        scrape_keyword(keyword, run)
        seconds = time.monotonic() - started
        run.refresh_from_db()
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    finally:
        server.stop()
    result = {
        "bench": "gzip_bomb",
        "db": db,
        "body_kib": round(len(server.bomb) / 1024),
        "inflates_to_mib": BOMB // (1024 * 1024),
        "status": run.status,
        "error": run.error,
        "seconds": round(seconds, 2),
        "rss_before_mb": round(before, 1),
        "peak_rss_mb": round(peak, 1),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
