#!/usr/bin/env python3
"""Checkpoints at scale: N Firestore documents (and a Realtime Database tree), then checkpoint and restore
through the hub; prints figures, asserts no timing.

Starts the release hearth (`hearth start --only firestore,database` on free ports, project demo-bench), writes
N small documents over REST (commits of 500) and N/10 RTDB children, then times (wall, over HTTP, median of
R runs each): `POST /emulator/v1/checkpoints/seeded`; a restore after changing one document; a restore after
changing 1,000 documents in one collection; a restore with nothing changed. Also hearth's RSS before and after.
Stops hearth by PID.

Usage: .venv/bin/python bench/checkpoints.py [--documents 100000] [--runs 9] [--bin PATH]
"""

from __future__ import annotations

import argparse
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import requests

PROJECT = "demo-bench"
OWNER = {"Authorization": "Bearer owner"}
ROW = re.compile(r"│\s*(?P<name>Firestore|Database|Emulator Hub)\s*│\s*(?P<address>[\d.]+:\d+)\s*│")


def rss_mib(pid: int) -> float:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--bin", default=str(Path(__file__).resolve().parent.parent / ".build/release/hearth"))
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-checkpoints-") as folder:
        process = subprocess.Popen(
            [options.bin, "start", "--only", "firestore,database", "--project", PROJECT, "--port", "firestore=0",
             "--port", "database=0", "--port", "hub=0"],
            cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True)
        addresses = {}
        for line in process.stdout:
            match = ROW.search(line)
            if match:
                addresses[match["name"]] = match["address"]
            if "All emulators ready" in line:
                break
        threading.Thread(target=process.stdout.read, daemon=True).start()
        try:
            firestore = f"http://{addresses['Firestore']}"
            hub = f"http://{addresses['Emulator Hub']}"
            root = f"projects/{PROJECT}/databases/(default)/documents"
            commit = f"{firestore}/v1/{root}:commit"
            session = requests.Session()

            def write(paths: list[str], value: int) -> None:
                for start in range(0, len(paths), 500):
                    writes = [{"update": {"name": f"{root}/{path}", "fields": {"v": {"integerValue": str(value)}}}}
                              for path in paths[start:start + 500]]
                    session.post(commit, json={"writes": writes}, headers=OWNER).raise_for_status()

            write([f"c{i % 10}/d{i}" for i in range(options.documents)], 0)
            tree = {f"n{i}": {"v": i} for i in range(options.documents // 10)}
            session.put(f"http://{addresses['Database']}/.json?ns={PROJECT}-default-rtdb", json=tree, headers=OWNER).raise_for_status()
            print(f"seeded {options.documents:,} documents and {len(tree):,} RTDB children; hearth RSS {rss_mib(process.pid):.0f} MiB")

            def timed(url: str) -> float:
                began = time.perf_counter()
                session.post(url).raise_for_status()
                return (time.perf_counter() - began) * 1000

            def report(label: str, samples: list[float]) -> None:
                print(f"{label}: median {statistics.median(samples):.2f} ms, min {min(samples):.2f} ms, max {max(samples):.2f} ms")

            report("checkpoint", [timed(f"{hub}/emulator/v1/checkpoints/seeded") for _ in range(options.runs)])
            samples = []
            for run in range(options.runs):
                write(["c0/d0"], run + 1)
                samples.append(timed(f"{hub}/emulator/v1/checkpoints/seeded:restore"))
            report("restore after 1 changed document", samples)
            samples = []
            for run in range(options.runs):
                write([f"c1/d{i * 10 + 1}" for i in range(1000)], run + 1)
                samples.append(timed(f"{hub}/emulator/v1/checkpoints/seeded:restore"))
            report("restore after 1,000 changed documents", samples)
            report("restore with nothing changed", [timed(f"{hub}/emulator/v1/checkpoints/seeded:restore") for _ in range(options.runs)])
            print(f"hearth RSS at the end {rss_mib(process.pid):.0f} MiB")
            value = session.get(f"{firestore}/v1/{root}/c0/d0", headers=OWNER).json()["fields"]["v"]["integerValue"]
            if value != "0":
                sys.exit(f"c0/d0 is {value} after the last restore, not 0")
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(60)


if __name__ == "__main__":
    main()
