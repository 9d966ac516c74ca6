"""A short cache for the /stats readings that grow with the installation.

Two readings cost more as an installation grows, not as its history does: the 24 h
run window (300 keywords every 5 minutes write 86,400 runs a day) and the
per-keyword rows (one row, and up to seven datetimes, per keyword). A big
installation, one whose 24 h window holds lib.big_tables.EXACT_BELOW (10,000) runs or
more, reads each at most once per STATS_CACHE_S seconds (default 30; 0: never
cached) in each process; /stats, /metrics, the dashboard and `status` share the
reading, and say when it was taken (`read_at`). Smaller installations read every
time, exactly. /health never uses this cache.

The cache is Django's default one: per process (LocMemCache) unless CACHES says
otherwise, so a one-shot `manage.py status` reads fresh.
"""

from datetime import timedelta

from django.conf import settings
from django.core.cache import cache

PREFIX = "lago:stats:"
NAMES = ("run_window", "keywords", "keywords_without_runs")


def reading(name, now, compute, keep):
    """(read_at, value): compute() read at `now`, or the value read at `read_at`, at most
    STATS_CACHE_S before `now`.

    A fresh value is kept only when keep(value) says the reading is big.
    """
    ttl = settings.STATS_CACHE_S
    if ttl > 0:
        cached = cache.get(PREFIX + name)
        if cached and cached[0] <= now < cached[0] + timedelta(seconds=ttl):
            return cached
    value = compute()
    if ttl > 0 and keep(value):
        cache.set(PREFIX + name, (now, value), ttl)
    return now, value


def forget():
    """Drops every cached reading (tests; after a change that must show at once)."""
    cache.delete_many([PREFIX + name for name in NAMES])
