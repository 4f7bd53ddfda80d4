"""Helpers for the reliability tests: a hearth of their own (so its descriptors and memory can be read
and it can be pushed hard without disturbing other tests), raw sockets for malformed HTTP, and the
process's file descriptors and resident memory from /proc."""

from __future__ import annotations

import os
import socket
import time
from dataclasses import dataclass

import pytest
import requests

from support import RunningHearth, split_address

# The display names `hearth start` prints, by emulator.
EMULATORS = {
    "auth": "Authentication",
    "firestore": "Firestore",
    "database": "Database",
    "storage": "Storage",
    "hub": "Emulator Hub",
}

# A request each emulator answers 200 when it is healthy.
HEALTH_PATHS = {
    "auth": "/emulator/v1/projects/demo-reliability/config",
    "firestore": "/",
    "database": "/.json?ns=reliability",
    "storage": "/v0/b/demo-reliability.appspot.com/o",
    "hub": "/emulators",
}

# A path on each emulator whose handler reads a request body.
BODY_PATHS = {
    "auth": "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=fake",
    "firestore": "/v1/projects/demo-reliability/databases/(default)/documents/framing",
    "database": "/framing.json?ns=reliability",
    "storage": "/v0/b/demo-reliability.appspot.com/o?name=framing.bin",
    "hub": "/_admin/export",
}


@dataclass
class Hearth:
    """A running hearth of the test module's own."""

    process: RunningHearth
    addresses: dict[str, tuple[str, int]]  # emulator → (host, port)
    project_id: str = "demo-reliability"

    @property
    def pid(self) -> int:
        return self.process.process.pid

    def url(self, emulator: str) -> str:
        host, port = self.addresses[emulator]
        return f"http://{host}:{port}"

    def host(self, emulator: str) -> str:
        host, port = self.addresses[emulator]
        return f"{host}:{port}"

    def descriptors(self) -> int:
        """How many file descriptors the process has open."""
        return len(os.listdir(f"/proc/{self.pid}/fd"))

    def rss_kib(self) -> int:
        """The process's resident memory in KiB."""
        with open(f"/proc/{self.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise AssertionError("no VmRSS in /proc status")

    def settled_descriptors(self, baseline: int, slack: int = 8, wait: float = 10.0) -> int:
        """The descriptor count once it is back within `slack` of `baseline`, or after `wait` seconds
        (closing sockets and finishing tasks take a moment): whatever it is then."""
        deadline = time.monotonic() + wait
        count = self.descriptors()
        while count > baseline + slack and time.monotonic() < deadline:
            time.sleep(0.1)
            count = self.descriptors()
        return count

    def assert_healthy(self) -> None:
        """Every emulator still answers its health request with 200, and the process runs."""
        assert self.process.process.poll() is None, "hearth exited:\n" + self.process.output()
        for emulator, path in HEALTH_PATHS.items():
            headers = {"Authorization": "Bearer owner"}
            response = requests.get(self.url(emulator) + path, headers=headers, timeout=5)
            assert response.status_code == 200, (emulator, response.status_code, response.text[:300])


def start_hearth(*extra: str) -> Hearth:
    """Starts `hearth start` on free ports with project demo-reliability (no rules files)."""
    args = ["--project", "demo-reliability"]
    for emulator in EMULATORS:
        args += ["--port", f"{emulator}=0"]
    process = RunningHearth([*args, *extra], cwd="/tmp")
    try:
        process.wait_ready()
        printed = process.addresses
        addresses = {emulator: split_address(printed[name]) for emulator, name in EMULATORS.items()}
    except BaseException:
        process.stop()
        raise
    return Hearth(process, addresses)


@pytest.fixture(scope="module")
def hearth():
    """A hearth of this test module's own, stopped by PID at the end; it must still be healthy then."""
    running = start_hearth()
    try:
        yield running
        running.assert_healthy()
    finally:
        running.process.stop()


# --------------------------------------------------------------------------------------------
# Raw HTTP


@dataclass
class RawAnswer:
    """What a server sent back on a raw connection before it closed or went quiet."""

    data: bytes
    closed: bool  # the server closed the connection
    elapsed: float

    @property
    def status(self) -> int | None:
        """The first response's status code, or None if no status line came."""
        if not self.data.startswith(b"HTTP/1."):
            return None
        try:
            return int(self.data.split(b" ", 2)[1])
        except (IndexError, ValueError):
            return None


def raw_exchange(host: str, port: int, payload: bytes, *, half_close: bool = False, wait: float = 5.0,
                 quiet: float = 0.5) -> RawAnswer:
    """Sends `payload` on a new connection (then shuts down the sending side if `half_close`), and reads
    until the server closes, or has sent a status line and then stayed quiet for `quiet` seconds, or
    `wait` seconds pass."""
    started = time.monotonic()
    with socket.create_connection((host, port), timeout=wait) as connection:
        try:
            connection.sendall(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass
        if half_close:
            try:
                connection.shutdown(socket.SHUT_WR)
            except OSError:
                pass
        data = b""
        closed = False
        deadline = started + wait
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            connection.settimeout(min(remaining, quiet) if data.startswith(b"HTTP/1.") else remaining)
            try:
                chunk = connection.recv(65536)
            except socket.timeout:
                if data.startswith(b"HTTP/1."):
                    break
                continue
            except ConnectionResetError:
                closed = True
                break
            if not chunk:
                closed = True
                break
            data += chunk
    return RawAnswer(data, closed, time.monotonic() - started)
