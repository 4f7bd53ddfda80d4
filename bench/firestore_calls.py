#!/usr/bin/env python3
"""What one Firestore call costs the server: CPU time per call, by transport and operation, for hearth and
(when installed) Google's official emulator, side by side in one run.

For each server (hearth `start --only firestore`, then the official emulator's JVM), after a warm-up, a fixed
load of --clients client processes each makes --calls calls of one operation over one transport, and the
server's CPU time (user + system, from /proc/PID/stat) over that phase is divided by the number of calls:

  get       read one small document           gRPC: google-cloud-firestore  REST: keep-alive HTTP/1.1
  set       overwrite one small document      (DocumentReference.set / PATCH)
  commit10  one commit of 10 writes           (WriteBatch.commit / documents:commit)
  query10   a query with limit 10             (Query.get, RunQuery / documents:runQuery)
  listen    one commit delivered to each of --listeners gRPC Listen streams (on_snapshot), per delivery

The clients are official ones (google-cloud-firestore over gRPC) and plain HTTP/1.1 for REST, as curl and
server code use it. CPU time per call is steady on a shared machine where wall-clock latency is not; the
figures are printed, nothing is asserted. The goal (issue 19): gRPC <= 60 us and REST <= 30 us per get/set,
and at least 10x less than the official emulator on every operation.

Usage: bench/firestore_calls.py [--clients 2] [--calls 1500] [--listeners 100] [--commits 200]
                                [--only hearth|official] [--bin PATH]
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "conformance"))

import hearth_process  # noqa: E402

PROJECT = "demo-calls"
COLLECTION = "bench"
SEEDED = 100
OPERATIONS = ["get", "set", "commit10", "query10"]
TRANSPORTS = ["grpc", "rest"]
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process `pid` (all its threads, those ended included)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


# Clients (each runs in its own process) --------------------------------------------------------------------

class RestClient:
    """Firestore REST over one keep-alive HTTP/1.1 connection."""

    def __init__(self, host: str):
        self.connection = http.client.HTTPConnection(host)
        self.root = f"/v1/projects/{PROJECT}/databases/(default)/documents"
        self.headers = {"Authorization": "Bearer owner", "Content-Type": "application/json"}

    def call(self, method: str, path: str, body: dict | None = None) -> dict:
        self.connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=self.headers)
        response = self.connection.getresponse()
        data = response.read()
        if response.status != 200:
            raise RuntimeError(f"{method} {path}: {response.status} {data[:300]!r}")
        return json.loads(data)

    def run(self, operation: str, index: int, worker: int) -> None:
        name = f"doc-{index % SEEDED}"
        if operation == "get":
            self.call("GET", f"{self.root}/{COLLECTION}/{name}")
        elif operation == "set":
            self.call("PATCH", f"{self.root}/{COLLECTION}/w{worker}-{index % 50}", fields(index))
        elif operation == "commit10":
            database = f"projects/{PROJECT}/databases/(default)"
            writes = [{"update": {"name": f"{database}/documents/{COLLECTION}/w{worker}-{(index * 10 + k) % 50}",
                                  **fields(index)}} for k in range(10)]
            self.call("POST", f"{self.root}:commit", {"writes": writes})
        elif operation == "query10":
            self.call("POST", f"{self.root}:runQuery", {"structuredQuery": {
                "from": [{"collectionId": COLLECTION}],
                "where": {"fieldFilter": {"field": {"fieldPath": "n"}, "op": "GREATER_THAN_OR_EQUAL",
                                          "value": {"integerValue": str(index % SEEDED)}}},
                "orderBy": [{"field": {"fieldPath": "n"}}], "limit": 10}})


def fields(index: int) -> dict:
    return {"fields": {"n": {"integerValue": str(index)}, "text": {"stringValue": "a small document"}}}


class GrpcClient:
    """Firestore over gRPC through the official Python client."""

    def __init__(self, host: str):
        os.environ["FIRESTORE_EMULATOR_HOST"] = host
        from google.cloud import firestore
        self.client = firestore.Client(project=PROJECT)
        self.collection = self.client.collection(COLLECTION)

    def run(self, operation: str, index: int, worker: int) -> None:
        if operation == "get":
            self.collection.document(f"doc-{index % SEEDED}").get()
        elif operation == "set":
            self.collection.document(f"w{worker}-{index % 50}").set({"n": index, "text": "a small document"})
        elif operation == "commit10":
            batch = self.client.batch()
            for k in range(10):
                batch.set(self.collection.document(f"w{worker}-{(index * 10 + k) % 50}"),
                          {"n": index, "text": "a small document"})
            batch.commit()
        elif operation == "query10":
            from google.cloud.firestore_v1.base_query import FieldFilter
            query = self.collection.where(filter=FieldFilter("n", ">=", index % SEEDED))
            list(query.order_by("n").limit(10).stream())


def client_process(host: str, transport: str, operation: str, calls: int, worker: int,
                   ready: multiprocessing.Barrier, results: multiprocessing.Queue) -> None:
    client = GrpcClient(host) if transport == "grpc" else RestClient(host)
    for index in range(20):  # the connection and the client's own first-call costs
        client.run(operation, index, worker)
    ready.wait()
    started = time.perf_counter()
    for index in range(calls):
        client.run(operation, index, worker)
    results.put(time.perf_counter() - started)


def phase(host: str, pid: int, transport: str, operation: str, clients: int, calls: int) -> tuple[float, float]:
    """Server CPU microseconds per call and calls per second of wall time, for `clients` processes making
    `calls` calls each."""
    context = multiprocessing.get_context("spawn")
    ready = context.Barrier(clients + 1)
    results = context.Queue()
    workers = [context.Process(target=client_process, args=(host, transport, operation, calls, worker, ready, results))
               for worker in range(clients)]
    for worker in workers:
        worker.start()
    ready.wait(timeout=120)
    cpu_before, wall_before = cpu_seconds(pid), time.perf_counter()
    for _ in workers:
        results.get(timeout=600)
    cpu, wall = cpu_seconds(pid) - cpu_before, time.perf_counter() - wall_before
    for worker in workers:
        worker.join()
        if worker.exitcode != 0:
            sys.exit(f"a {transport} {operation} client failed (exit {worker.exitcode})")
    total = clients * calls
    return cpu / total * 1e6, total / wall


def listen_phase(host: str, pid: int, listeners: int, commits: int) -> float:
    """Server CPU microseconds per delivered change: `commits` writes to one document watched by
    `listeners` gRPC Listen streams."""
    os.environ["FIRESTORE_EMULATOR_HOST"] = host
    from google.cloud import firestore
    client = firestore.Client(project=PROJECT)
    document = client.collection("listened").document("one")
    document.set({"n": -1})
    seen = [0] * listeners
    condition = threading.Condition()

    def watcher(slot: int):
        def callback(snapshots, _changes, _read_time):
            for snapshot in snapshots:
                value = (snapshot.to_dict() or {}).get("n", -1)
                with condition:
                    seen[slot] = value
                    condition.notify_all()
        return callback

    watches = [document.on_snapshot(watcher(slot)) for slot in range(listeners)]
    try:
        with condition:
            condition.wait_for(lambda: all(value == -1 for value in seen), timeout=60)
        before = cpu_seconds(pid)
        for n in range(commits):
            document.set({"n": n})
            with condition:  # one commit at a time, so each is a delivery of its own
                if not condition.wait_for(lambda: min(seen) >= n, timeout=30):
                    sys.exit(f"listeners did not see commit {n}")
        cpu = cpu_seconds(pid) - before
    finally:
        for watch in watches:
            watch.unsubscribe()
        client.close()
    return cpu / (commits * listeners) * 1e6


def seed(host: str) -> None:
    rest = RestClient(host)
    database = f"projects/{PROJECT}/databases/(default)"
    writes = [{"update": {"name": f"{database}/documents/{COLLECTION}/doc-{i}", **fields(i)}} for i in range(SEEDED)]
    rest.call("POST", f"{rest.root}:commit", {"writes": writes})


def measure(label: str, host: str, pid: int, args: argparse.Namespace, warmup: int) -> dict:
    seed(host)
    print(f"\n{label} ({host}, pid {pid}): warming up", flush=True)
    for transport in TRANSPORTS:
        for operation in OPERATIONS:
            phase(host, pid, transport, operation, args.clients, warmup)
    figures = {}
    for transport in TRANSPORTS:
        for operation in OPERATIONS:
            cpu, rate = phase(host, pid, transport, operation, args.clients, args.calls)
            figures[(transport, operation)] = cpu
            print(f"  {transport:5} {operation:9} {cpu:9.1f} us server CPU per call  ({rate:7.0f} calls/s)", flush=True)
    if args.listeners:
        listen_phase(host, pid, args.listeners, 10)  # warm-up
        cpu = listen_phase(host, pid, args.listeners, args.commits)
        figures[("grpc", "listen")] = cpu
        print(f"  grpc  listen    {cpu:9.1f} us server CPU per delivery ({args.listeners} streams)", flush=True)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=2)
    parser.add_argument("--calls", type=int, default=1500)
    parser.add_argument("--listeners", type=int, default=100)
    parser.add_argument("--commits", type=int, default=200)
    parser.add_argument("--only", choices=["hearth", "official"])
    parser.add_argument("--bin")
    args = parser.parse_args()
    results = {}
    if args.only != "official":
        with hearth_process.running(hearth_process.binary(args.bin), "firestore", "Firestore", PROJECT) as (process, host):
            results["hearth"] = measure("hearth", host, process.pid, args, warmup=200)
    if args.only != "hearth":
        import official_firestore
        if not official_firestore.installed():
            print("\nofficial emulator: skipped (not installed: no "
                  f"{official_firestore.EMU_JAR} or no java)")
        else:
            emulator = official_firestore.Emulator().start()
            try:
                # The JVM compiles hot code after thousands of calls: warm it up well before measuring.
                results["official"] = measure("official emulator", f"127.0.0.1:{emulator.port}", emulator.proc.pid,
                                              args, warmup=1000)
            finally:
                emulator.stop()
    if len(results) == 2:
        print("\nserver CPU per call, hearth vs the official emulator (goal: >= 10x less)")
        for key, ours in results["hearth"].items():
            theirs = results["official"].get(key)
            if theirs:
                print(f"  {key[0]:5} {key[1]:9} {ours:9.1f} us vs {theirs:9.1f} us   {theirs / ours:5.1f}x")


if __name__ == "__main__":
    main()
