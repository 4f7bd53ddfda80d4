#!/usr/bin/env python3
"""Durable state (`--data-dir`) against memory, side by side in one run; prints figures, asserts no timing.

Starts two release hearths (`--only firestore`, free ports, project demo-bench): one in memory, one with
`--data-dir`. Then:
 1. commits of 500 small documents over REST, one client thread, the two hearths taking turns batch by batch:
    documents per second of wall time and hearth CPU time per batch, for each;
 2. single-document commits over one bare HTTP/1.1 connection each, taking turns: round-trip p50 / p99 / max
    for each (the client's own time, a few tens of microseconds, is in both);
 3. seeds the durable hearth to N documents (commits of 500 from 4 threads), stops it with SIGTERM and starts it
    again on the folder: time from start to the ready line, peak RSS, a count check; then the same after
    SIGKILL, and the folder's size.
Stops each hearth by PID.

Usage: .venv/bin/python bench/data_dir.py [--documents 1000000] [--batches 200] [--singles 2000] [--bin PATH]
"""

from __future__ import annotations

import argparse
import http.client
import json
import signal
import statistics
import tempfile
import time
from pathlib import Path

import requests

from export_import import OWNER, PROJECT, count, cpu_seconds, folder_size, seed, start, status, stop

ROOT = f"projects/{PROJECT}/databases/(default)/documents"
COMMIT = f"/v1/{ROOT}:commit"


def document(collection: str, index: int) -> dict:
    return {"update": {"name": f"{ROOT}/{collection}/d{index}", "fields": {
        "n": {"integerValue": str(index)}, "name": {"stringValue": f"user-{index}"},
        "tags": {"arrayValue": {"values": [{"stringValue": "a"}, {"stringValue": "b"}]}},
        "at": {"timestampValue": "2024-01-02T03:04:05.123456Z"},
        "nested": {"mapValue": {"fields": {"x": {"doubleValue": index / 7}}}}}}}


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=1_000_000)
    parser.add_argument("--batches", type=int, default=200)
    parser.add_argument("--singles", type=int, default=2000)
    parser.add_argument("--bin", default=str(Path(__file__).resolve().parent.parent / ".build/release/hearth"))
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-data-dir-") as folder:
        memory, memory_addresses, _ = start(options.bin, folder)
        durable, durable_addresses, _ = start(options.bin, folder, "--data-dir", "data")
        hearths = {"memory": (memory, memory_addresses), "data-dir": (durable, durable_addresses)}
        seeded = options.documents - options.batches * 500 - options.singles
        try:
            sessions = {name: requests.Session() for name in hearths}
            urls = {name: f"http://{addresses['Firestore']}{COMMIT}" for name, (_, addresses) in hearths.items()}
            wall = {name: 0.0 for name in hearths}
            cpu = {name: 0.0 for name in hearths}
            for batch in range(options.batches):
                writes = [document("batches", batch * 500 + index) for index in range(500)]
                for name, (process, _) in hearths.items():
                    before = cpu_seconds(process.pid)
                    began = time.perf_counter()
                    sessions[name].post(urls[name], json={"writes": writes}, headers=OWNER).raise_for_status()
                    wall[name] += time.perf_counter() - began
                    cpu[name] += cpu_seconds(process.pid) - before
            documents = options.batches * 500
            for name in hearths:
                print(f"500-document commits, {name}: {documents / wall[name]:,.0f} documents/s, "
                      f"{cpu[name] / options.batches * 1000:.2f} ms hearth CPU per batch")
            print(f"  data-dir throughput is {wall['memory'] / wall['data-dir']:.0%} of memory's")

            # A bare HTTP/1.1 connection, so that the client's own time is small next to the server's.
            connections = {name: http.client.HTTPConnection(*addresses["Firestore"].split(":"))
                           for name, (_, addresses) in hearths.items()}
            latencies: dict[str, list[float]] = {name: [] for name in hearths}
            for index in range(options.singles):
                body = json.dumps({"writes": [document("singles", index)]})
                for name, connection in connections.items():
                    began = time.perf_counter()
                    connection.request("POST", COMMIT, body, {**OWNER, "Content-Type": "application/json"})
                    answer = connection.getresponse()
                    answer.read()
                    latencies[name].append((time.perf_counter() - began) * 1000)
                    assert answer.status == 200, answer.status
            for name, values in latencies.items():
                print(f"single-document commit round trip, {name}: p50 {statistics.median(values):.2f} ms, "
                      f"p99 {percentile(values, 0.99):.2f} ms, max {max(values):.2f} ms")
            stop(memory)
            base = f"http://{durable_addresses['Firestore']}"
            if seeded > 0:
                seconds = seed(base, seeded)
                print(f"seed: {seeded:,} more documents in {seconds:.1f} s ({seeded / seconds:,.0f}/s) with --data-dir")
        finally:
            for process, _ in hearths.values():
                if process.poll() is None:
                    stop(process)
        for how in (signal.SIGTERM, signal.SIGKILL):
            process, addresses, ready = start(options.bin, folder, "--data-dir", "data")
            try:
                print(f"restart after {signal.Signals(how).name}: ready after {ready:.2f} s; "
                      f"CPU {cpu_seconds(process.pid):.2f} s; peak RSS {status(process.pid, 'VmHWM') / 1024:.0f} MiB")
                found = count(f"http://{addresses['Firestore']}")
                print(f"  check: {found:,} documents in c0..c99 (expected {max(0, seeded):,})")
            finally:
                process.send_signal(how)
                process.wait(120)
        print(f"data folder: {folder_size(Path(folder) / 'data') / 1e6:.0f} MB")


if __name__ == "__main__":
    main()
