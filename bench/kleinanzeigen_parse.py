"""Parse time of the recorded Kleinanzeigen search page (250 KB, 27 cards) with selectolax.

    .venv/bin/python bench/kleinanzeigen_parse.py

Reads the page from shared/fixtures/kleinanzeigen (LAGO_FIXTURES_DIR, as the tests do) and parses
it REPEAT times through parse_page(): the HTML5 parse, the card selectors and every card's values.
No database: nothing is stored.
"""

import json
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
REPEAT = 200


def main():
    sys.path.insert(0, str(REPO))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lago.settings")
    os.environ.setdefault("SECRET_KEY", "bench-only-secret-key")
    import django

    django.setup()
    from django.utils import timezone

    from scraping.sources.kleinanzeigen import parse_page
    from tests.paths import KLEINANZEIGEN_FIXTURES, KLEINANZEIGEN_PAGE

    body = (KLEINANZEIGEN_FIXTURES / KLEINANZEIGEN_PAGE).read_bytes()
    now = timezone.now()
    times = []
    for _ in range(REPEAT):
        started = time.perf_counter()
        page = parse_page(body, number=1, now=now)
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    print(
        json.dumps(
            {
                "bench": "kleinanzeigen_parse",
                "kib": round(len(body) / 1024),
                "cards": len(page.ads),
                "p50_ms": round(statistics.median(times), 2),
                "p99_ms": round(times[int(REPEAT * 0.99) - 1], 2),
            }
        )
    )


if __name__ == "__main__":
    main()
