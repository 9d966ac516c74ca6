"""Scale-out benchmark: the scrape cycle (bench/cycle.py) with 1, 2 and 4 worker processes,
on the ORM broker (PostgreSQL) and then on Redis.

Each (broker, workers) point is one run of bench/cycle.py in its own process — the
broker is a start-up setting, so a fresh process per point is what a deployment does —
on a fresh sibling database, with its own throwaway redis-server for the Redis points.
Runs per minute = keywords / seconds until the last run finished × 60.

Env: DATABASE_URL (PostgreSQL; required for the figures that matter), BENCH_KEYWORDS (200),
BENCH_LATENCY_S (0.1), BENCH_SCALE_WORKERS ("1,2,4"), BENCH_SCALE_BROKERS ("orm,redis").
Needs redis-server on PATH for the Redis points (they are skipped with a message otherwise).
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import time

from common import REPO

from tests.processes import free_port

KEYWORDS = int(os.environ.get("BENCH_KEYWORDS", 200))
LATENCY = float(os.environ.get("BENCH_LATENCY_S", 0.1))
WORKERS = [int(w) for w in os.environ.get("BENCH_SCALE_WORKERS", "1,2,4").split(",")]
BROKERS = os.environ.get("BENCH_SCALE_BROKERS", "orm,redis").split(",")


def start_redis():
    port = free_port()
    cmd = [
        "redis-server",
        "--port",
        str(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        "--daemonize",
        "no",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return proc, f"redis://127.0.0.1:{port}/0"
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("redis-server did not answer within 15 s")


def run_point(broker, workers):
    """One cycle with `workers` worker processes on `broker`; returns bench/cycle.py's JSON
    result."""
    env = dict(
        os.environ,
        BENCH_KEYWORDS=str(KEYWORDS),
        BENCH_WORKERS=str(workers),
        BENCH_LATENCY_S=str(LATENCY),
        Q_BROKER=broker,
    )
    redis = None
    if broker == "redis":
        redis, env["REDIS_URL"] = start_redis()
    try:
        out = subprocess.run(
            [sys.executable, "bench/cycle.py"],
            env=env,
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=1200,
        )
    finally:
        if redis is not None:
            redis.terminate()
            redis.wait(timeout=10)
    if out.returncode != 0:
        raise SystemExit(
            "bench/cycle.py failed for "
            f"{broker}/{workers}:\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}"
        )
    lines = out.stdout.strip().splitlines()
    print(f"  {broker}, W={workers}: {lines[-3].strip()}", flush=True)
    return json.loads(lines[-1])


def main():
    db = "postgresql" if os.environ.get("DATABASE_URL", "").startswith("postgres") else "sqlite"
    if db != "postgresql":
        print(
            "warning: DATABASE_URL is not PostgreSQL; the ORM broker figures on SQLite say little "
            "about scale-out"
        )
    brokers = [b for b in BROKERS if b != "redis" or shutil.which("redis-server")]
    if brokers != BROKERS:
        print(
            "warning: redis-server not found: the Redis points are skipped (apt-get install "
            "redis-server)"
        )
    print(
        f"scale: {KEYWORDS} keywords × 2 pages, {LATENCY * 1000:.0f} ms per request, database "
        f"{db}, "
        f"{os.cpu_count()} CPUs; workers {WORKERS}; brokers {brokers}",
        flush=True,
    )
    results = []
    for broker in brokers:
        base = None
        for workers in WORKERS:
            figures = run_point(broker, workers)
            runs_per_min = round(KEYWORDS / figures["seconds"] * 60, 1)
            base = base or runs_per_min
            results.append(
                {
                    "broker": broker,
                    "workers": workers,
                    "runs_per_min": runs_per_min,
                    "speedup": round(runs_per_min / base, 2),
                    "seconds": figures["seconds"],
                }
            )
    print()
    print("| broker | workers | runs/min | speed-up vs 1 worker | per added worker |")
    print("|---|---|---|---|---|")
    for r in results:
        per_added = "—" if r["workers"] == 1 else f"{(r['speedup'] - 1) / (r['workers'] - 1):.2f}"
        print(
            f"| {r['broker']} | {r['workers']} | {r['runs_per_min']} | {r['speedup']}× | "
            f"{per_added} |"
        )
    print(
        json.dumps(
            {
                "bench": "scale",
                "results": [
                    {k: r[k] for k in ("broker", "workers", "runs_per_min")} for r in results
                ],
            }
        )
    )


if __name__ == "__main__":
    main()
