#!/usr/bin/env python3
"""Firestore commit throughput and query latency benchmark of a running-from-scratch `hearth` (standard
library only).

Starts `hearth start --only firestore --port firestore=0 --port hub=0` in an empty folder, then over one
keep-alive HTTP/1.1 connection (REST, as curl and server code use it):

1. commits batches of 500 documents (`documents:commit`, one atomic commit each) from --connections
   clients in parallel until --docs documents exist, printing the throughput of every slice of --slice
   documents, so a degrading store shows;
2. times queries on the loaded collection (median and p95 of --repeat runs): get one document by name, an
   equality filter with limit 10, order by name with limit 10, an inequality + order by field with limit
   10, order by a field descending with limit 10, a range with limit 10, an equality on a field every
   document has a value of its own for, a cursor page, an equality or an array-contains ordered by another
   field with limit 10 (composite indexes), an OR of an equality and a range with limit 10, a count with an
   equality and a range, a count with a filter that a tenth of the documents match, a count aggregation
   over the whole collection, a sum over that tenth and an average over an equality, and a page of
   ListDocuments;
3. prints the server's resident memory;
4. commits 100,000 more documents on one connection before the queries (no index yet) and again after them
   (every index they built kept current), and prints the second rate as a share of the first, with the
   server's CPU time per document (steadier than the rate on a shared machine);
5. with --baseline PATH, first runs steps 1 and 4's first half with that binary (an older hearth: issue 22's
   goal is commits with indexes at >= 70% of the rate before indexes existed), so both are in one run.

Usage: bench/firestore.py [--docs 1000000] [--slice 100000] [--repeat 20] [--connections 2] [--bin PATH]
                          [--cases "order by n desc, limit 10;where group == 7, limit 10"] [--baseline PATH]
The binary is --bin, else $HEARTH_BIN, else .build/release/hearth. It prints figures next to the goal
(>= 50,000 docs/s, flat); it asserts nothing about time. Exit status is non-zero only on a failed request.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import hearth_process

PROJECT = "demo-bench"
DATABASE = f"projects/{PROJECT}/databases/(default)"
TABLE_ROW = re.compile(r"│\s*Firestore\s*│\s*(?P<host>[\d.]+):(?P<port>\d+)\s*│")
BATCH = 500


def start(path: str, folder: str) -> tuple[subprocess.Popen, str, int]:
    process = subprocess.Popen(
        [path, "start", "--only", "firestore", "--project", PROJECT, "--port", "firestore=0", "--port", "hub=0"],
        cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    address = None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        match = TABLE_ROW.search(line)
        if match:
            address = (match["host"], int(match["port"]))
        if "All emulators ready" in line and address:
            return process, address[0], address[1]
    process.kill()
    sys.exit("hearth did not become ready")


class Client:
    def __init__(self, host: str, port: int):
        self.connection = http.client.HTTPConnection(host, port, timeout=600)

    def call(self, method: str, path: str, body: bytes | None = None) -> object:
        headers = {"Authorization": "Bearer owner"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        self.connection.request(method, path, body=body, headers=headers)
        response = self.connection.getresponse()
        data = response.read()
        if response.status != 200:
            sys.exit(f"{method} {path} -> {response.status}: {data[:300]!r}")
        return json.loads(data)


def batch_body(start: int) -> bytes:
    writes = []
    for n in range(start, start + BATCH):
        writes.append(
            '{"update":{"name":"%s/documents/bench/d%07d","fields":{"n":{"integerValue":"%d"},'
            '"group":{"integerValue":"%d"},"title":{"stringValue":"document number %d"},'
            '"tags":{"arrayValue":{"values":[{"stringValue":"t%d"},{"stringValue":"all"}]}}}}}'
            % (DATABASE, n, n, n % 100, n, n % 10))
    return ('{"writes":[' + ",".join(writes) + "]}").encode()


def timed(action, repeat: int) -> tuple[float, float]:
    samples = []
    for _ in range(repeat):
        began = time.perf_counter()
        action()
        samples.append((time.perf_counter() - began) * 1000)
    samples.sort()
    return statistics.median(samples), samples[min(len(samples) - 1, int(len(samples) * 0.95))]


def cpu_seconds(pid: int) -> float:
    """The process's user + system CPU time so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def load(binary: str, folder: str, args: argparse.Namespace) -> tuple[subprocess.Popen, str, int, int]:
    """Starts `binary` in `folder` and commits --docs documents from --connections clients, printing the
    throughput of every slice; returns the process, its address and how many documents it holds."""
    process, host, port = start(binary, folder)
    try:
        root = f"/v1/{DATABASE}/documents"
        print(f"commits of {BATCH} documents into one collection, up to {args.docs:,} documents "
              f"(goal >= 50,000 docs/s, flat)")
        written = 0
        lock = threading.Lock()
        slice_start = time.perf_counter()
        total_start = slice_start
        next_batch = iter(range(0, args.docs, BATCH))
        failures: list[BaseException] = []

        def committer() -> None:
            try:
                commit_batches()
            except BaseException as failure:  # sys.exit in a thread only ends that thread
                failures.append(failure)

        def commit_batches() -> None:
            nonlocal written, slice_start
            own = Client(host, port)
            while True:
                with lock:
                    start_at = next(next_batch, None)
                if start_at is None:
                    return
                own.call("POST", root + ":commit", batch_body(start_at))
                with lock:
                    written += BATCH
                    if written % args.slice == 0 or written >= args.docs:
                        now = time.perf_counter()
                        size = written % args.slice or args.slice
                        print(f"  {written:>9,} docs: {size / (now - slice_start):>9,.0f} docs/s in the last slice")
                        slice_start = now

        threads = [threading.Thread(target=committer) for _ in range(max(args.connections, 1))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if failures:
            sys.exit(f"a commit failed: {failures[0]}")
        elapsed = time.perf_counter() - total_start
        print(f"  overall: {written / elapsed:,.0f} docs/s ({elapsed:.1f} s, {len(threads)} connections); "
              f"server RSS {rss_mb(process.pid):,.0f} MB")
        return process, host, port, written
    except BaseException:
        process.kill()
        raise


def commit_more(client: Client, pid: int, first_id: int, count: int) -> tuple[float, float]:
    """Commits `count` new documents from id `first_id` on, over `client`'s one connection: docs/s, and the
    server's CPU microseconds per document."""
    began = time.perf_counter()
    cpu_began = cpu_seconds(pid)
    for first in range(first_id, first_id + count, BATCH):
        client.call("POST", f"/v1/{DATABASE}/documents:commit", batch_body(first))
    return count / (time.perf_counter() - began), (cpu_seconds(pid) - cpu_began) * 1e6 / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=1_000_000)
    parser.add_argument("--slice", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--connections", type=int, default=2,
                        help="clients committing in parallel, each on its own keep-alive connection")
    parser.add_argument("--bin")
    parser.add_argument("--cases", help="time only the queries of these names, separated by ';' (and skip the "
                                        "get during an index build): fewer indexes built")
    parser.add_argument("--baseline", help="another hearth binary whose commit rate (no index) to measure first")
    args = parser.parse_args()
    extra = min(100_000, args.docs)
    baseline = None
    if args.baseline:
        print(f"baseline binary {args.baseline}:")
        with tempfile.TemporaryDirectory() as folder:
            process, host, port, _ = load(args.baseline, folder, args)
            try:
                baseline = commit_more(Client(host, port), process.pid, args.docs + extra, extra)
                print(f"baseline commits ({extra:,} documents, one connection): {baseline[0]:,.0f} docs/s, "
                      f"{baseline[1]:.1f} µs of server CPU per document; server RSS {rss_mb(process.pid):,.0f} MB")
            finally:
                process.terminate()
                process.wait(timeout=30)
        print(f"this binary {hearth_process.binary(args.bin)}:")

    with tempfile.TemporaryDirectory() as folder:
        process, host, port, written = load(hearth_process.binary(args.bin), folder, args)
        try:
            client = Client(host, port)
            root = f"/v1/{DATABASE}/documents"
            # The same commits before any query built an index and after, in one run: their ratio is what
            # keeping the indexes current costs (the queries then run over docs + extra documents).
            before_indexes = commit_more(client, process.pid, args.docs + extra, extra)
            print(f"commits before any index ({extra:,} documents, one connection): {before_indexes[0]:,.0f} docs/s, "
                  f"{before_indexes[1]:.1f} µs of server CPU per document")

            middle = f"{DATABASE}/documents/bench/d{args.docs // 2:07d}"
            half = args.docs // 2

            def where(field: str, op: str, value: dict) -> dict:
                return {"fieldFilter": {"field": {"fieldPath": field}, "op": op, "value": value}}

            def integer(number: int) -> dict:
                return {"integerValue": str(number)}

            def combined(op: str, *filters: dict) -> dict:
                return {"compositeFilter": {"op": op, "filters": list(filters)}}

            def structured(filter: dict | None, order: list | None, limit: int | None, start: dict | None) -> dict:
                query: dict = {"from": [{"collectionId": "bench"}]}
                if filter:
                    query["where"] = filter
                if order:
                    query["orderBy"] = [{"field": {"fieldPath": name}, "direction": direction} for name, direction in order]
                if limit:
                    query["limit"] = limit
                if start:
                    query["startAt"] = start
                return query

            def run(filter: dict | None = None, order: list | None = None, limit: int | None = 10, start: dict | None = None):
                """A RunQuery over the collection, as a call to time."""
                body = json.dumps({"structuredQuery": structured(filter, order, limit, start)}).encode()
                return lambda: client.call("POST", root + ":runQuery", body)

            def count(filter: dict | None = None, aggregation: dict | None = None):
                """A count (or the given) aggregation over the collection, as a call to time."""
                body = json.dumps({"structuredAggregationQuery": {
                    "structuredQuery": structured(filter, None, None, None),
                    "aggregations": [{"alias": "n", **(aggregation or {"count": {}})}]}}).encode()
                return lambda: client.call("POST", root + ":runAggregationQuery", body)

            group_is_7 = where("group", "EQUAL", integer(7))
            n_descending = [("n", "DESCENDING")]
            cases = {
                "get one document": lambda: client.call("GET", f"/v1/{middle}"),
                "where group == 7, limit 10": run(group_is_7),
                "order by __name__, limit 10": run(order=[("__name__", "ASCENDING")]),
                "where n > half, order by n desc, limit 10": run(where("n", "GREATER_THAN", integer(half)), n_descending),
                "order by n desc, limit 10": run(order=n_descending),
                "where n >= half, limit 10": run(where("n", "GREATER_THAN_OR_EQUAL", integer(half))),
                "where title == one title (high cardinality)": run(
                    where("title", "EQUAL", {"stringValue": f"document number {args.docs // 3}"}), limit=None),
                "order by n, start after half, limit 10": run(
                    order=[("n", "ASCENDING")], start={"values": [integer(half)], "before": False}),
                "where group == 7, order by n desc, limit 10": run(group_is_7, n_descending),
                "where tags contains t3, order by n desc, limit 10": run(
                    where("tags", "ARRAY_CONTAINS", {"stringValue": "t3"}), n_descending),
                "where group == 7 or n < 100, limit 10": run(combined("OR", group_is_7, where("n", "LESS_THAN", integer(100)))),
                "count(*) where group == 7 and n >= half": count(
                    combined("AND", group_is_7, where("n", "GREATER_THAN_OR_EQUAL", integer(half)))),
                "count(*) where group < 10 (a tenth)": count(where("group", "LESS_THAN", integer(10))),
                "count(*) of the collection": count(),
                "sum(n) where group < 10 (a tenth)": count(where("group", "LESS_THAN", integer(10)), {"sum": {"field": {"fieldPath": "n"}}}),
                "avg(n) where group == 7": count(group_is_7, {"avg": {"field": {"fieldPath": "n"}}}),
                "list documents, page of 100": lambda: client.call("GET", root + "/bench?pageSize=100"),
            }
            # Other calls go on while a query's first run builds its index (outside the store's lock): the
            # slowest get on another connection meanwhile.
            stop = threading.Event()
            slowest = [0.0]

            def getter() -> None:
                own = Client(host, port)
                while not stop.is_set():
                    began = time.perf_counter()
                    own.call("GET", f"/v1/{middle}")
                    slowest[0] = max(slowest[0], (time.perf_counter() - began) * 1000)

            if not args.cases:
                getting = threading.Thread(target=getter)
                getting.start()
                time.sleep(0.1)
                began = time.perf_counter()
                run(where("tags", "ARRAY_CONTAINS", {"stringValue": "all"}))()
                building = (time.perf_counter() - began) * 1000
                stop.set()
                getting.join()
                print(f"a query building an index of {2 * (written + extra):,} entries took {building:,.0f} ms; "
                      f"the slowest get on another connection meanwhile {slowest[0]:.1f} ms")
            print(f"query latency over {written + extra:,} documents, {args.repeat} runs (median / p95)")
            wanted = [text.strip() for text in (args.cases or "").split(";") if text.strip()]
            for name, action in cases.items():
                if wanted and name not in wanted:
                    continue
                median, p95 = timed(action, args.repeat)
                print(f"  {name:<42} {median:>9.2f} ms / {p95:>9.2f} ms")
            print(f"server RSS after queries: {rss_mb(process.pid):,.0f} MB")
            # Commits again now that the queries have built their indexes, which every write keeps.
            with_indexes = commit_more(client, process.pid, args.docs, extra)
            print(f"commits after the queries (their indexes kept current): {with_indexes[0]:,.0f} docs/s, "
                  f"{with_indexes[1]:.1f} µs of server CPU per document ({extra:,} documents, one connection; "
                  f"{with_indexes[0] / before_indexes[0]:.0%} of the rate before any index, CPU "
                  f"{before_indexes[1] / with_indexes[1]:.0%}); server RSS {rss_mb(process.pid):,.0f} MB")
            if baseline:
                print(f"  against the baseline binary: {with_indexes[0] / baseline[0]:.0%} of its rate, CPU per "
                      f"document {baseline[1] / with_indexes[1]:.0%} (before any index: {before_indexes[0] / baseline[0]:.0%}"
                      f" and {baseline[1] / before_indexes[1]:.0%})")
        finally:
            process.terminate()
            process.wait(timeout=30)


if __name__ == "__main__":
    main()
