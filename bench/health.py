"""Benchmark: /health under gunicorn at 200 requests/s for 30 s, load from a second process.

    /work/main/.venv/bin/python bench/health.py        (from the repo root, no arguments)

Reads DATABASE_URL like the product. Without it: a temporary SQLite file,
migrated and seeded here (50 keywords, 10,000 ads, a day of runs, queue rows).
With it: migrates, seeds only an empty database, refreshes the scheduler
heartbeat. Starts gunicorn itself on a free loopback port, runs
bench/loadgen.py against it, and prints the figures; the last line is JSON.
"""

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from common import REPO, child_env, setup_django

from tests.processes import free_port

PYTHON = sys.executable
GUNICORN = str(Path(sys.executable).parent / "gunicorn")
RPS, SECONDS = 200, 30
WORKERS, THREADS = 2, 4


def prepare_database():
    """A fresh database (bench/common.py), seeded in a child process like the product's own."""
    db = setup_django()
    env = child_env(DEBUG="false", ALLOWED_HOSTS="127.0.0.1,localhost")
    subprocess.run([PYTHON, "bench/seed.py"], env=env, cwd=REPO, check=True)
    return db, env


def wait_until_up(url, deadline_s=30):
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as exc:
            raise SystemExit(f"/health answered {exc.code}: {exc.read().decode()}") from exc
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"gunicorn did not answer {url} within {deadline_s} s")


def start_gunicorn(env, port):
    command = [
        GUNICORN,
        "lago.wsgi",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(WORKERS),
        "--worker-class",
        "gthread",
        "--threads",
        str(THREADS),
        "--log-level",
        "warning",
    ]
    return subprocess.Popen(command, env=env, cwd=REPO)


def main():
    engine, env = prepare_database()
    port = free_port()
    url = f"http://127.0.0.1:{port}/health"
    server = start_gunicorn(env, port)
    try:
        print("health:", wait_until_up(url))
        load = subprocess.run(
            [PYTHON, "bench/loadgen.py", url, str(RPS), str(SECONDS)],
            cwd=REPO,
            check=True,
            capture_output=True,
            text=True,
        )
    finally:
        server.terminate()
        server.wait(timeout=30)
    sys.stderr.write(load.stderr)
    result = json.loads(load.stdout.strip().splitlines()[-1])
    print(
        f"database: {engine}; gunicorn {WORKERS} workers x {THREADS} threads (gthread); {RPS} "
        f"req/s for {SECONDS} s, open loop"
    )
    print(
        f"requests {result['requests']}, p50 {result['p50_ms']} ms, p99 {result['p99_ms']} ms, max "
        f"{result['max_ms']} ms, "
        f"errors {result['errors']} (goal: p99 < 50 ms)"
    )
    print(
        json.dumps(
            {
                "bench": "health",
                "rps": result["rps"],
                "p50_ms": result["p50_ms"],
                "p99_ms": result["p99_ms"],
                "errors": result["errors"],
            }
        )
    )


if __name__ == "__main__":
    main()
