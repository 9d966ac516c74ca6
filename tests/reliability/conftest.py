"""Fixtures of the fault tests: clusters that are always stopped, and a report of measured
figures."""

import json
import os

import pytest

from tests.reliability.helpers import PG_BIN, Cluster, Postgres, running_redis

REPORT = os.environ.get("LAGO_RELIABILITY_REPORT", "")


@pytest.fixture
def clusters():
    """start(workers=..., **env) -> a running Cluster; every one is stopped after the test."""
    started = []

    def start(workers=2, **env):
        cluster = Cluster(workers=workers, **env)
        started.append(cluster)
        return cluster.start()

    yield start
    for cluster in started:
        cluster.cleanup()


@pytest.fixture
def report(request):
    """report(**figures): printed (see with -s) and, with LAGO_RELIABILITY_REPORT=path, appended
    there as JSON lines."""

    def write(**figures):
        line = json.dumps({"test": request.node.name, **figures})
        print(line)
        if REPORT:
            with open(REPORT, "a") as fh:
                fh.write(line + "\n")

    return write


@pytest.fixture(params=["orm", "redis"])
def broker(request):
    """The broker environment of the child processes; the redis variant runs its own
    redis-server."""
    if request.param == "orm":
        yield {"Q_BROKER": "orm"}
        return
    with running_redis() as url:
        yield {"Q_BROKER": "redis", "REDIS_URL": url}


@pytest.fixture(scope="module")
def own_postgres():
    """A throwaway PostgreSQL 15 (helpers.Postgres) for a module whose tests stop and start it."""
    if not (PG_BIN / "initdb").exists():
        pytest.skip(f"PostgreSQL 15 binaries not found in {PG_BIN}")
    pg = Postgres()
    try:
        pg.init()
        yield pg
    finally:
        pg.destroy()
