#!/usr/bin/env python3
"""Export and import at scale: N Firestore documents through `hearth export` and `hearth start --import`;
prints figures, asserts no timing.

Starts the release hearth (`hearth start --only firestore` on free ports, project demo-bench, in a temporary
folder), writes N small documents over REST (commits of 500 from 4 threads, 100 collections), then:
 1. export: `POST /_admin/export` to the hub; time, hearth's CPU time and peak RSS while it runs (VmHWM,
    reset before by a fresh process is not possible, so RSS is sampled every 50 ms), export size;
 2. import: a new `hearth start --only firestore --import DIR`; time from start until the ready line, the
    process's peak RSS (VmHWM) and its RSS once ready, and a count check (`runAggregationQuery count()` over
    a collection group) that every document is there.
Stops each hearth by PID.

Usage: .venv/bin/python bench/export_import.py [--documents 1000000] [--bin PATH]
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import requests

PROJECT = "demo-bench"
OWNER = {"Authorization": "Bearer owner"}
READY_LINE = "All emulators ready"
ROW = re.compile(r"│\s*(?P<name>Firestore|Emulator Hub)\s*│\s*(?P<address>[\d.]+:\d+)\s*│")


def status(pid: int, key: str) -> int:
    with open(f"/proc/{pid}/status") as lines:
        for line in lines:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start(binary: str, folder: str, *args: str) -> tuple[subprocess.Popen, dict[str, str], float]:
    began = time.monotonic()
    process = subprocess.Popen(
        [binary, "start", "--only", "firestore", "--project", PROJECT, "--port", "firestore=0", "--port", "hub=0", *args],
        cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True)
    addresses: dict[str, str] = {}
    output = []
    for line in process.stdout:
        output.append(line)
        match = ROW.search(line)
        if match:
            addresses[match["name"]] = match["address"]
        if READY_LINE in line:
            threading.Thread(target=process.stdout.read, daemon=True).start()
            return process, addresses, time.monotonic() - began
    sys.exit("hearth did not become ready:\n" + "".join(output))


def stop(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGTERM)
    process.wait(120)


def seed(base: str, count: int) -> float:
    url = f"{base}/v1/projects/{PROJECT}/databases/(default)/documents:commit"
    root = f"projects/{PROJECT}/databases/(default)/documents"
    batches = [range(start, min(start + 500, count)) for start in range(0, count, 500)]
    cursor = iter(batches)
    lock = threading.Lock()
    began = time.monotonic()

    def work() -> None:
        session = requests.Session()
        while True:
            with lock:
                batch = next(cursor, None)
            if batch is None:
                return
            writes = [{"update": {"name": f"{root}/c{i % 100}/d{i}", "fields": {
                "n": {"integerValue": str(i)}, "name": {"stringValue": f"user-{i}"},
                "tags": {"arrayValue": {"values": [{"stringValue": "a"}, {"stringValue": "b"}]}},
                "at": {"timestampValue": "2024-01-02T03:04:05.123456Z"},
                "nested": {"mapValue": {"fields": {"x": {"doubleValue": i / 7}}}}}}} for i in batch]
            answer = session.post(url, json={"writes": writes}, headers=OWNER)
            answer.raise_for_status()

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.monotonic() - began


def count(base: str) -> int:
    url = f"{base}/v1/projects/{PROJECT}/databases/(default)/documents:runAggregationQuery"
    total = 0
    for collection in range(100):
        answer = requests.post(url, headers=OWNER, json={"structuredAggregationQuery": {
            "structuredQuery": {"from": [{"collectionId": f"c{collection}"}]},
            "aggregations": [{"alias": "n", "count": {}}]}})
        answer.raise_for_status()
        total += int(answer.json()[0]["result"]["aggregateFields"]["n"]["integerValue"])
    return total


def folder_size(path: Path) -> int:
    return sum(file.stat().st_size for file in path.rglob("*") if file.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=1_000_000)
    parser.add_argument("--bin", default=str(Path(__file__).resolve().parent.parent / ".build/release/hearth"))
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-export-") as folder:
        process, addresses, _ = start(options.bin, folder)
        try:
            firestore = f"http://{addresses['Firestore']}"
            seconds = seed(firestore, options.documents)
            print(f"seed: {options.documents:,} documents over REST in {seconds:.1f} s "
                  f"({options.documents / seconds:,.0f}/s); hearth RSS {status(process.pid, 'VmRSS') / 1024:.0f} MiB")
            peak = [status(process.pid, "VmRSS")]
            before_cpu = cpu_seconds(process.pid)
            running = True

            def sample() -> None:
                while running:
                    peak.append(status(process.pid, "VmRSS"))
                    time.sleep(0.05)

            sampler = threading.Thread(target=sample)
            sampler.start()
            began = time.monotonic()
            answer = requests.post(f"http://{addresses['Emulator Hub']}/_admin/export", json={"path": f"{folder}/seed"})
            elapsed = time.monotonic() - began
            running = False
            sampler.join()
            answer.raise_for_status()
            size = folder_size(Path(folder) / "seed")
            print(f"export: {elapsed:.2f} s wall, {cpu_seconds(process.pid) - before_cpu:.2f} s CPU, "
                  f"{size / 1e6:.1f} MB written ({size / elapsed / 1e6:.0f} MB/s); RSS before {peak[0] / 1024:.0f} MiB, "
                  f"peak during {max(peak) / 1024:.0f} MiB (+{(max(peak) - peak[0]) / 1024:.0f} MiB)")
        finally:
            stop(process)
        process, addresses, ready = start(options.bin, folder, "--import", "seed")
        try:
            print(f"import: ready after {ready:.2f} s (start to ready line, import included); "
                  f"CPU {cpu_seconds(process.pid):.2f} s; peak RSS {status(process.pid, 'VmHWM') / 1024:.0f} MiB, "
                  f"RSS once ready {status(process.pid, 'VmRSS') / 1024:.0f} MiB")
            found = count(f"http://{addresses['Firestore']}")
            print(f"check: {found:,} documents counted after the import (expected {options.documents:,})")
            if found != options.documents:
                sys.exit("documents were lost")
        finally:
            stop(process)


if __name__ == "__main__":
    main()
