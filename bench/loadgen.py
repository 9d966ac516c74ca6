"""Open-loop HTTP load: GET <url> at <rps> requests/s for <seconds> s; prints one JSON line.

Request i is due at start + i/rps whatever happened before (open loop), and its
latency counts from that due time, so a slow server cannot hide its queueing
(no coordinated omission). Keep-alive connections, one per sender thread.

    python bench/loadgen.py http://127.0.0.1:8000/health 200 30
"""

import http.client
import itertools
import json
import sys
import threading
import time
from urllib.parse import urlsplit

SENDERS = 16


def percentile(sorted_values, fraction):
    if not sorted_values:
        return None
    return sorted_values[
        min(len(sorted_values) - 1, int(round(fraction * (len(sorted_values) - 1))))
    ]


class Load:
    def __init__(self, url, rps, seconds):
        self.parts = urlsplit(url)
        self.rps, self.total = rps, int(rps * seconds)
        self.next_index = itertools.count()
        self.lock = threading.Lock()
        self.latencies, self.errors = [], 0
        self.start = time.perf_counter() + 0.2

    def sender(self):
        conn = http.client.HTTPConnection(self.parts.hostname, self.parts.port, timeout=10)
        while (i := next(self.next_index)) < self.total:
            due = self.start + i / self.rps
            time.sleep(max(0.0, due - time.perf_counter()))
            ok = self.get(conn)
            with self.lock:
                self.latencies.append(time.perf_counter() - due)
                self.errors += 0 if ok else 1
        conn.close()

    def get(self, conn):
        try:
            conn.request("GET", self.parts.path or "/")
            response = conn.getresponse()
            response.read()
            return response.status == 200
        except (OSError, http.client.HTTPException) as exc:
            print(f"request failed: {exc!r}", file=sys.stderr)
            conn.close()  # the next request reconnects
            return False

    def run(self):
        threads = [threading.Thread(target=self.sender) for _ in range(SENDERS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - self.start
        ordered = sorted(self.latencies)
        return {
            "requests": len(ordered),
            "rps": round(len(ordered) / elapsed, 1),
            "p50_ms": round(percentile(ordered, 0.50) * 1000, 2),
            "p99_ms": round(percentile(ordered, 0.99) * 1000, 2),
            "max_ms": round(ordered[-1] * 1000, 2),
            "errors": self.errors,
        }


if __name__ == "__main__":
    url, rps, seconds = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    print(json.dumps(Load(url, rps, seconds).run()))
