#!/usr/bin/env python3
"""Startup and memory benchmark of `hearth start` (standard library only).

For each of N runs: spawn `hearth start --port auth=0 --port hub=0` in an empty folder, measure the wall
time until BOTH the ready line has appeared on stdout AND the Auth port accepts a TCP connection, then
stop hearth by PID with SIGTERM and check it exits 0. Then one more run measures memory: VmRSS after
~1 s idle, and after 1000 sign-ups over one keep-alive connection.

Usage: bench/startup.py [--runs 20] [--signups 1000] [--bin PATH]
The binary is --bin, else $HEARTH_BIN, else .build/release/hearth (else .build/debug/hearth, flagged).
Prints figures next to the goals (≤ 150 ms to ready, ≤ 30 MB idle RSS); it asserts nothing about time.
Exit status is non-zero only if hearth failed to start or did not exit cleanly.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import selectors
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
READY_LINE = "All emulators ready! It is now safe to connect your app."
AUTH_ROW = re.compile(r"│\s*Authentication\s*│\s*(\S+):(\d+)\s*│")
GOAL_STARTUP_MS = 150
GOAL_RSS_MB = 30


def find_binary(explicit: str | None) -> Path:
    for candidate in (explicit, os.environ.get("HEARTH_BIN")):
        if candidate:
            return Path(candidate).resolve()
    release = REPO_ROOT / ".build/release/hearth"
    if release.exists():
        return release
    debug = REPO_ROOT / ".build/debug/hearth"
    if debug.exists():
        print("note: no release build; measuring the DEBUG binary (build with scripts/setup)", file=sys.stderr)
        return debug
    sys.exit("no hearth binary: run scripts/setup (or swift build -c release --product hearth)")


def environment() -> dict[str, str]:
    env = dict(os.environ)
    for name in ("FIREBASE_AUTH_EMULATOR_HOST", "FIREBASE_EMULATOR_HUB", "GCLOUD_PROJECT", "FIREBASE_CONFIG"):
        env.pop(name, None)
    return env


class Hearth:
    """One `hearth start` process on free ports."""

    def __init__(self, binary: Path, folder: str):
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            [str(binary), "start", "--project", "demo-bench", "--port", "auth=0", "--port", "hub=0"],
            cwd=folder,
            env=environment(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.auth: tuple[str, int] | None = None
        self.output = b""

    def wait_ready(self, timeout: float = 30.0) -> float:
        """Seconds from spawn until the ready line is printed and the Auth port accepts connections."""
        selector = selectors.DefaultSelector()
        selector.register(self.process.stdout, selectors.EVENT_READ)
        deadline = self.started + timeout
        ready = False
        while not ready:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                self.fail(f"not ready after {timeout} s")
            if not selector.select(remaining):
                continue
            chunk = os.read(self.process.stdout.fileno(), 65536)
            if not chunk:
                self.fail(f"exited with {self.process.wait()} before it was ready")
            self.output += chunk
            ready = READY_LINE.encode() in self.output
        selector.close()
        match = AUTH_ROW.search(self.output.decode())
        if not match:
            self.fail("no Authentication row in the table")
        self.auth = (match.group(1), int(match.group(2)))
        while True:
            try:
                socket.create_connection(self.auth, timeout=1).close()
                return time.perf_counter() - self.started
            except OSError:
                if time.perf_counter() > deadline:
                    self.fail("the Auth port never accepted a connection")
                time.sleep(0.001)

    def rss_mb(self) -> float:
        return self._status_kb("VmRSS") / 1024

    def peak_mb(self) -> float:
        return self._status_kb("VmHWM") / 1024

    def _status_kb(self, field: str) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
        raise RuntimeError(f"no {field} in /proc/{self.process.pid}/status")

    def stop(self) -> tuple[int, float]:
        """SIGTERM by PID; returns (exit code, seconds to exit)."""
        begin = time.perf_counter()
        os.kill(self.process.pid, signal.SIGTERM)
        try:
            code = self.process.wait(15)
        except subprocess.TimeoutExpired:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait()
            raise SystemExit("hearth did not exit within 15 s of SIGTERM")
        return code, time.perf_counter() - begin

    def fail(self, message: str) -> None:
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait()
        stderr = self.process.stderr.read().decode(errors="replace") if self.process.stderr else ""
        raise SystemExit(f"hearth {message}\nstdout:\n{self.output.decode(errors='replace')}\nstderr:\n{stderr}")


def sign_up_many(auth: tuple[str, int], count: int) -> float:
    """`count` email/password sign-ups over one keep-alive connection; returns seconds taken."""
    connection = http.client.HTTPConnection(*auth, timeout=10)
    path = "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=bench"
    begin = time.perf_counter()
    for index in range(count):
        body = json.dumps({"email": f"bench-{index}@example.com", "password": "secret12", "returnSecureToken": True})
        connection.request("POST", path, body=body, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        payload = response.read()
        if response.status != 200:
            raise SystemExit(f"sign-up {index} failed: {response.status} {payload[:300]!r}")
    elapsed = time.perf_counter() - begin
    connection.close()
    return elapsed


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--signups", type=int, default=1000)
    parser.add_argument("--bin")
    args = parser.parse_args()
    binary = find_binary(args.bin)
    print(f"hearth: {binary} ({binary.stat().st_size / 1e6:.1f} MB)")

    startups, stops = [], []
    with tempfile.TemporaryDirectory(prefix="hearth-bench-") as folder:
        for _ in range(args.runs):
            hearth = Hearth(binary, folder)
            startups.append(hearth.wait_ready() * 1000)
            code, stopped = hearth.stop()
            if code != 0:
                raise SystemExit(f"hearth exited with {code} after SIGTERM (expected 0)")
            stops.append(stopped * 1000)

        hearth = Hearth(binary, folder)
        hearth.wait_ready()
        time.sleep(1.0)
        idle = hearth.rss_mb()
        elapsed = sign_up_many(hearth.auth, args.signups) if args.signups else 0.0
        loaded = hearth.rss_mb()
        peak = hearth.peak_mb()
        code, _ = hearth.stop()
        if code != 0:
            raise SystemExit(f"hearth exited with {code} after SIGTERM (expected 0)")

    def verdict(ok: bool) -> str:
        return "meets goal" if ok else "MISSES goal"

    median = statistics.median(startups)
    p95 = percentile(startups, 0.95)
    print(f"startup to ready + Auth port open, {args.runs} runs (goal ≤ {GOAL_STARTUP_MS} ms):")
    print(f"  min {min(startups):.1f} ms   median {median:.1f} ms   p95 {p95:.1f} ms   max {max(startups):.1f} ms"
          f"   [{verdict(p95 <= GOAL_STARTUP_MS)}]")
    print(f"shutdown on SIGTERM: median {statistics.median(stops):.1f} ms, exit code 0 every time")
    print(f"memory (goal ≤ {GOAL_RSS_MB} MB idle):")
    print(f"  idle RSS after 1 s          {idle:.1f} MB   [{verdict(idle <= GOAL_RSS_MB)}]")
    if args.signups:
        print(f"  RSS after {args.signups} sign-ups     {loaded:.1f} MB   (peak {peak:.1f} MB)")
        print(f"  {args.signups} sign-ups took {elapsed * 1000:.0f} ms ({args.signups / elapsed:.0f}/s, one connection)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
