#!/usr/bin/env python3
"""Realtime Database query latency over a large node, over REST (standard library only).

Starts `hearth start --only database` on free ports, loads --children children under /scores
(`{"score": n * 7919 mod N, "name": ...}`, PATCHes of 100,000), declares `".indexOn": ["score"]` there through
the rules API, then prints the median, min and max of --repeat runs of: a shallow read of the root and a read of one
child (neither may cost the size of the tree), orderBy="score" with limitToFirst=10
and limitToLast=10, a startAt page, and orderBy="$key" with limitToFirst=10. The first run of each order builds
the node's child index (the max shows it); the goal is the rest: <= 5 ms. Also prints the time one write to a
child takes while the index is kept current, then with a query listener (server-sent events, orderBy="score",
limitToLast=10) whose window each write changes, and the server's resident memory.

Usage: bench/database_queries.py [--children 1000000] [--repeat 15] [--bin PATH]
It asserts nothing about time; the exit status is non-zero only on a failed request.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import sys
import threading
import time
from pathlib import Path

import hearth_process

PROJECT = "demo-bench-rtdb"
NAMESPACE = f"{PROJECT}-default-rtdb"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--children", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--bin")
    args = parser.parse_args()
    with hearth_process.running(hearth_process.binary(args.bin), "database", "Database", PROJECT) as (process, host):
        address, port = host.split(":")
        client = http.client.HTTPConnection(address, int(port))

        def call(method: str, path: str, body: str | None = None, headers: dict | None = None) -> bytes:
            client.request(method, path, body, headers or {})
            response = client.getresponse()
            data = response.read()
            if response.status >= 300:
                sys.exit(f"{method} {path}: {response.status} {data[:200]!r}")
            return data

        rules = {"rules": {".read": True, ".write": True, "scores": {".indexOn": ["score"]}}}
        call("PUT", f"/.settings/rules.json?ns={NAMESPACE}", json.dumps(rules), {"Authorization": "Bearer owner"})
        count = args.children
        began = time.perf_counter()
        for start in range(0, count, 100_000):
            body = {f"c{n:07d}": {"score": (n * 7919) % count, "name": f"n{n}"} for n in range(start, min(count, start + 100_000))}
            call("PATCH", f"/scores.json?ns={NAMESPACE}&print=silent", json.dumps(body))
        print(f"loaded {count:,} children in {time.perf_counter() - began:.1f} s")
        cases = {
            'the root, shallow (it holds the whole node)': ('/.json', 'shallow=true'),
            'one child, whole': ('/scores/c0000001.json', ''),
            'orderBy="score", limitToFirst=10': 'orderBy="score"&limitToFirst=10',
            'orderBy="score", limitToLast=10': 'orderBy="score"&limitToLast=10',
            'orderBy="score", startAt=half, limitToFirst=10': f'orderBy="score"&startAt={count // 2}&limitToFirst=10',
            'orderBy="$key", limitToFirst=10': 'orderBy="$key"&limitToFirst=10',
        }
        print(f"REST query latency over {count:,} children, {args.repeat} runs (median / min / max; the max is the first run)")
        for name, query in cases.items():
            resource, query = query if isinstance(query, tuple) else ("/scores.json", query)
            samples = []
            for _ in range(args.repeat):
                began = time.perf_counter()
                call("GET", f"{resource}?ns={NAMESPACE}&{query}")
                samples.append((time.perf_counter() - began) * 1000)
            print(f"  {name:<48} {statistics.median(samples):>8.2f} ms / {min(samples):>6.2f} ms / {max(samples):>9.1f} ms")
        samples = []
        for n in range(200):
            began = time.perf_counter()
            call("PUT", f"/scores/c{n:07d}/score.json?ns={NAMESPACE}&print=silent", json.dumps(-n))
            samples.append((time.perf_counter() - began) * 1000)
        print(f"a write to one child, two child indexes kept current: median {statistics.median(samples):.2f} ms")
        # A query listener (server-sent events) on the node: each write works its window out again, under
        # the write's lock, so the write's own time shows what that costs.
        listener = http.client.HTTPConnection(address, int(port))
        listener.request("GET", f'/scores.json?ns={NAMESPACE}&orderBy="score"&limitToLast=10',
                         headers={"Accept": "text/event-stream"})
        stream = listener.getresponse()
        while not stream.readline().startswith(b"data:"):
            pass  # the first put: the window
        def drain() -> None:
            try:
                while stream.readline():
                    pass
            except (OSError, AttributeError, ValueError):  # the stream closed under it
                pass

        events = threading.Thread(target=drain, daemon=True)
        events.start()
        samples = []
        for n in range(min(args.repeat * 2, 50)):
            began = time.perf_counter()
            call("PUT", f"/scores/c{n:07d}/score.json?ns={NAMESPACE}&print=silent", json.dumps(count + n))
            samples.append((time.perf_counter() - began) * 1000)
        print(f"a write into the window of a query listener (orderBy=\"score\", limitToLast=10): median "
              f"{statistics.median(samples):.2f} ms / max {max(samples):.1f} ms")
        listener.close()
        rss = next(line for line in Path(f"/proc/{process.pid}/status").read_text().splitlines() if line.startswith("VmRSS"))
        print(f"server {rss}")


if __name__ == "__main__":
    main()
