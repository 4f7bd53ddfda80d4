#!/usr/bin/env python3
"""Realtime Database benchmark: onDisconnect propagation, pipelined writes and listener fan-out over the wire
protocol v5 (WebSocket), against hearth's Realtime Database emulator.

Starts `hearth start --only database --port database=0 --port hub=0 --project demo-bench` (the release binary,
rebuilt with `swift build -c release --product hearth` first when it is missing or older than Sources/ and
Package.swift) in an empty folder, reads the Database row of its ready table, and stops it by PID at the end.
With --host (default $FIREBASE_DATABASE_EMULATOR_HOST) it uses that running server instead (no RSS then unless
--pid names its process). Each phase uses its own new namespace (open rules, as for any namespace without a
rules file).

The client is this file's own: one epoll thread reads every socket (no third-party package; 1,000 sockets are
fine), RFC 6455 frames, the v5 envelopes and the server's frame-count splitting. Arrival times are the kernel's
receive timestamps (SO_TIMESTAMPNS, CLOCK_REALTIME) of the bytes that completed a message, so they do not
include the time this Python reader needs to get round to a socket; "seen" figures (when Python had parsed the
message) are printed beside them where the two differ. Start times are time.time_ns() just before the send
(or the socket shutdown). Client and server share the machine's cores, so throughput figures are a floor.

Phases (warm-up rounds are not counted):
 a. onDisconnect: listener B on /presence/u1 stays connected; per round a new client A puts
    /presence/u1 = {online: true}, registers onDisconnect `o` {online: false, lastSeen: {".sv": "timestamp"}},
    waits for the ok (and for B to see online: true), then goes away; measured: the moment A goes away -> B's
    push with online: false. Three ways to go away: TCP FIN without a WebSocket close frame (shutdown(SHUT_RDWR)
    + close), TCP RST (SO_LINGER 0 + close), and a clean WebSocket close frame (1000). Goal: <= 20 ms.
 b. writes/s: one socket pipelines N `p` puts of {"n": i, "v": "x"} to /bench/w<i> without waiting and then
    waits for every ack; again with a listener on /bench2 on another socket (time until its last push); and
    the same N leaves spread under 100 parents (/bench3/g<i mod 100>/w<i>), which tells whether a write's cost
    grows with the number of siblings of the written key.
 c. fan-out: 1,000 WebSocket connections each listening on /room; a writer puts /room/msg = {seq, at};
    measured: time until every listener has the push (max), and the median listener. Variant: 10 sockets
    (think: 10 server processes using the Admin SDK) each holding 100 listens on /room/c<k> (k distinct,
    1,000 in all); the writer sends one multi-location update (`m`) at /room setting every c<k> to
    {seq, at}; measured the same way over the 1,000 listens. For the 1,000 sockets the rounds are repeated
    with the reader paused for 300 ms after the write (this client then takes no CPU from the server; the
    kernel timestamps still say when each push came), as a cross-check of the live figures.
Prints hearth's VmRSS after each phase. Asserts nothing about time; exits non-zero when the server does not
start or a request fails or times out.

Usage: .venv/bin/python bench/database.py [--phases a,b,c] [--disconnect-rounds 60] [--writes 20000]
                                          [--listeners 1000] [--fanout-rounds 30] [--bin PATH] [--host H:P]
(any python3 >= 3.10 works: only the standard library is used).
"""

from __future__ import annotations

import argparse
import base64
import json
import math
import os
import resource
import selectors
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import hearth_process

ROOT = Path(__file__).resolve().parent.parent
PROJECT = "demo-bench"
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)  # Linux (asm-generic); SCM_TIMESTAMPNS is the same
MAX_FRAME = 16384  # the SDKs split client messages longer than this into a count frame + segments
TIMEOUT = 30.0
WARM_UP = 3


# --------------------------------------------------------------------------------------------
# The server


class Hearth:
    """A running server: the one this program started (process, folder) or one given by --host."""

    def __init__(self, host: str, process: subprocess.Popen | None = None,
                 folder: tempfile.TemporaryDirectory | None = None, pid: int | None = None):
        self.host = host
        self.process = process
        self.folder = folder
        self.pid = process.pid if process else pid

    def rss(self) -> str:
        if not self.pid:
            return "RSS unknown (no --pid)"
        values = {}
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                values[key] = int(rest.split()[0]) / 1024
        return f"hearth RSS {values.get('VmRSS', math.nan):,.1f} MB (peak {values.get('VmHWM', math.nan):,.1f} MB)"

    def stop(self) -> None:
        """SIGTERM by PID, SIGKILL after 30 s (only a server this program started)."""
        if self.process and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait()
        if self.folder:
            self.folder.cleanup()


def newest_source_time() -> float:
    paths = [ROOT / "Package.swift", ROOT / "Package.resolved", *(ROOT / "Sources").rglob("*.swift")]
    return max(path.stat().st_mtime for path in paths if path.exists())


def hearth_binary(explicit: str | None) -> str:
    """--bin or $HEARTH_BIN as given; else .build/release/hearth, rebuilt when missing or older than the sources."""
    if explicit or os.environ.get("HEARTH_BIN"):
        path = explicit or os.environ["HEARTH_BIN"]
        if not os.access(path, os.X_OK):
            sys.exit(f"no hearth binary at {path}")
        return path
    path = ROOT / ".build/release/hearth"
    if path.exists() and path.stat().st_mtime >= newest_source_time():
        return str(path)
    print("building the release hearth (`swift build -c release --product hearth`; minutes on a small machine)",
          flush=True)
    built = subprocess.run(["swift", "build", "-c", "release", "--product", "hearth"], cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if built.returncode != 0:
        tail = "\n".join(built.stdout.splitlines()[-30:])
        if not path.exists():
            sys.exit(f"the release build failed:\n{tail}")
        print(f"the release build failed; using the older {path}:\n{tail}", flush=True)
    return str(path)


def start_hearth(binary: str) -> Hearth:
    process, host, folder = hearth_process.start(binary, "database", "Database", PROJECT)
    return Hearth(host, process, folder)


# --------------------------------------------------------------------------------------------
# The wire client: one reader thread (epoll) for every connection


class Reactor(threading.Thread):
    """Reads every registered connection; sockets are added and removed on this thread only."""

    def __init__(self):
        super().__init__(daemon=True, name="reactor")
        self.selector = selectors.DefaultSelector()
        self.wake_r, self.wake_w = socket.socketpair()
        self.wake_r.setblocking(False)
        self.selector.register(self.wake_r, selectors.EVENT_READ, None)
        self.pending: list[tuple[str, Connection]] = []
        self.lock = threading.Lock()
        self.changed = threading.Condition()  # notified after every batch of reads
        self.failure: BaseException | None = None
        self.reading = threading.Event()
        self.reading.set()
        self.idle = threading.Event()

    def pause(self) -> None:
        """Stops reading (the kernel still timestamps what arrives) once the batch in hand is done."""
        self.reading.clear()
        self.wake_w.send(b"p")
        self.idle.wait()

    def resume(self) -> None:
        self.idle.clear()
        self.reading.set()

    def add(self, connection: Connection) -> None:
        self._queue("add", connection)

    def remove(self, connection: Connection) -> None:
        self._queue("remove", connection)

    def _queue(self, what: str, connection: Connection) -> None:
        with self.lock:
            self.pending.append((what, connection))
        self.wake_w.send(b"x")

    def run(self) -> None:
        try:
            while True:
                if not self.reading.is_set():
                    self.idle.set()
                    self.reading.wait()
                for key, _ in self.selector.select(1.0):
                    if key.data is None:
                        self.wake_r.recv(4096)
                        self._apply_pending()
                    else:
                        key.data.read()
                with self.changed:
                    self.changed.notify_all()
        except BaseException as error:  # noqa: BLE001 — reported to the waiting main thread
            self.failure = error
            with self.changed:
                self.changed.notify_all()

    def _apply_pending(self) -> None:
        with self.lock:
            pending, self.pending = self.pending, []
        for what, connection in pending:
            if what == "add":
                self.selector.register(connection.sock, selectors.EVENT_READ, connection)
                connection.feed(connection.leftover, time.time_ns())
            elif connection.sock.fileno() >= 0:  # not yet closed at its EOF
                self.selector.unregister(connection.sock)
                connection.sock.close()

    def wait_for(self, predicate: Callable[[], bool], what: str, timeout: float = TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        with self.changed:
            while not predicate():
                if self.failure:
                    raise SystemExit(f"the reader thread failed: {self.failure!r}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise SystemExit(f"timed out after {timeout:g} s waiting for {what}")
                self.changed.wait(min(left, 0.5))


Push = Callable[["Connection", str, dict, int], None]


class Connection:
    """One `/.ws?v=5&ns=` WebSocket: requests with numbers, responses by number, pushes to `on_push`."""

    def __init__(self, reactor: Reactor, host: str, namespace: str, on_push: Push | None = None):
        self.reactor = reactor
        self.on_push = on_push
        self.responses: dict[int, tuple[dict, int]] = {}  # r -> (b, arrival ns)
        self.on_response: Callable[[int, dict, int], None] | None = None
        self.next_request = 1
        self.hello = False
        self.closed = False
        self.closed_at = 0
        self.send_lock = threading.Lock()
        self._buffer = bytearray()
        self._fragments: list[bytes] = []
        self._expected = 0  # frames still to join (server-side splitting)
        self._parts: list[str] = []
        host_name, port = host.rsplit(":", 1)
        self.sock = socket.create_connection((host_name, int(port)), timeout=TIMEOUT)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /.ws?v=5&ns={namespace} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                           "\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise SystemExit(f"{host} closed the connection during the WebSocket handshake")
            head += chunk
        head, _, self.leftover = head.partition(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 101"):
            raise SystemExit(f"WebSocket upgrade refused: {head.decode(errors='replace')}")
        self.sock.settimeout(None)
        reactor.add(self)

    # Sending

    def frame(self, opcode: int, payload: bytes) -> bytes:
        """A masked client frame (the mask is XORed as one big integer: fast in CPython)."""
        length = len(payload)
        if length < 126:
            header = struct.pack("!BB", 0x80 | opcode, 0x80 | length)
        elif length < 65536:
            header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, length)
        else:
            header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, length)
        mask = os.urandom(4)
        if length:
            key = (mask * (length // 4 + 1))[:length]
            payload = (int.from_bytes(payload, "big") ^ int.from_bytes(key, "big")).to_bytes(length, "big")
        return header + mask + payload

    def encode(self, message: dict) -> bytes:
        """The frames of one envelope, split as the SDKs split (a count frame, then <= 16384-char segments)."""
        text = json.dumps(message, separators=(",", ":"))
        if len(text) <= MAX_FRAME:
            return self.frame(1, text.encode())
        segments = [text[i:i + MAX_FRAME] for i in range(0, len(text), MAX_FRAME)]
        return self.frame(1, str(len(segments)).encode()) + b"".join(self.frame(1, s.encode()) for s in segments)

    def encode_request(self, action: str, body: dict) -> tuple[int, bytes]:
        number = self.next_request
        self.next_request += 1
        return number, self.encode({"t": "d", "d": {"r": number, "a": action, "b": body}})

    def send_raw(self, data: bytes) -> None:
        with self.send_lock:
            self.sock.sendall(data)

    def request(self, action: str, body: dict) -> int:
        number, data = self.encode_request(action, body)
        self.send_raw(data)
        return number

    def call(self, action: str, body: dict, timeout: float = TIMEOUT) -> dict:
        number = self.request(action, body)
        self.reactor.wait_for(lambda: number in self.responses, f"the response to {action} {body.get('p')}",
                              timeout)
        response = self.responses.pop(number)[0]
        if response.get("s") != "ok":
            raise SystemExit(f"{action} {body.get('p')} answered {response}")
        return response

    def close_frame(self) -> None:
        self.send_raw(self.frame(8, struct.pack("!H", 1000)))

    # Reading (reactor thread)

    def read(self) -> None:
        if self.sock.fileno() < 0:  # removed earlier in this batch
            return
        try:
            data, ancillary, _, _ = self.sock.recvmsg(1 << 18, socket.CMSG_SPACE(16))
        except (ConnectionResetError, OSError):
            data, ancillary = b"", []
        arrival = time.time_ns()
        for level, kind, value in ancillary:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(value) >= 16:
                seconds, nanoseconds = struct.unpack("qq", value[:16])
                arrival = seconds * 1_000_000_000 + nanoseconds
        if not data:
            self.closed = True
            self.closed_at = arrival
            self.reactor.selector.unregister(self.sock)
            self.sock.close()
            return
        self.feed(data, arrival)

    def feed(self, data: bytes, arrival: int) -> None:
        buffer = self._buffer
        buffer += data
        offset = 0
        while len(buffer) - offset >= 2:
            first, second = buffer[offset], buffer[offset + 1]
            length = second & 0x7F
            start = offset + 2
            if length == 126:
                if len(buffer) - start < 2:
                    break
                length = struct.unpack_from("!H", buffer, start)[0]
                start += 2
            elif length == 127:
                if len(buffer) - start < 8:
                    break
                length = struct.unpack_from("!Q", buffer, start)[0]
                start += 8
            if second & 0x80:
                start += 4  # servers do not mask; skip a key if one came anyway (never seen)
            if len(buffer) - start < length:
                break
            payload = bytes(buffer[start:start + length])
            offset = start + length
            opcode = first & 0x0F
            if opcode == 9:
                self.send_raw(self.frame(10, payload))
            elif opcode == 8:
                self.closed = True
                self.closed_at = arrival
            elif opcode in (0, 1, 2):
                self._fragments.append(payload)
                if first & 0x80:
                    text = b"".join(self._fragments).decode()
                    self._fragments = []
                    self.message(text, arrival)
        del buffer[:offset]

    def message(self, text: str, arrival: int) -> None:
        if self._expected == 0 and len(text) <= 6 and text.isdigit():
            self._expected = int(text)  # a frame count: the next N frames make one message
            return
        if self._expected:
            self._parts.append(text)
            self._expected -= 1
            if self._expected:
                return
            text, self._parts = "".join(self._parts), []
        envelope = json.loads(text)
        payload = envelope.get("d")
        if envelope.get("t") == "c":
            if isinstance(payload, dict) and payload.get("t") == "h":
                self.hello = True
            return
        if not isinstance(payload, dict):
            return
        if "r" in payload:
            number, body = payload["r"], payload.get("b", {})
            if self.on_response:
                self.on_response(number, body, arrival)
            else:
                self.responses[number] = (body, arrival)
        elif "a" in payload and self.on_push:
            self.on_push(self, payload["a"], payload.get("b", {}), arrival)


def value_at(push: dict, action: str, target: tuple[str, ...]) -> object:
    """The value a `d`/`m` push gives to the path `target` (keys), or MISSING when the push does not set it."""
    base = tuple(key for key in push.get("p", "").split("/") if key)
    data = push.get("d")
    if action == "d":
        writes = [(base, data)]
    elif action == "m" and isinstance(data, dict):
        writes = [(base + tuple(k for k in relative.split("/") if k), value) for relative, value in data.items()]
    else:
        return MISSING
    found = MISSING
    for path, value in writes:
        if path == target[:len(path)]:
            for key in target[len(path):]:
                value = value.get(key) if isinstance(value, dict) else None
            found = value
    return found


MISSING = object()


# --------------------------------------------------------------------------------------------
# Figures


def percentile(ordered: list[float], p: float) -> float:
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def distribution(samples_ns: list[int]) -> str:
    ordered = sorted(s / 1e6 for s in samples_ns)
    return (f"n={len(ordered):<4} p50 {percentile(ordered, 50):7.2f}  p95 {percentile(ordered, 95):7.2f}  "
            f"p99 {percentile(ordered, 99):7.2f}  max {ordered[-1]:7.2f} ms")


def fresh_namespace(label: str) -> str:
    return f"bench-{label}-{uuid.uuid4().hex[:8]}"


def connect(reactor: Reactor, host: str, namespace: str, on_push: Push | None = None) -> Connection:
    connection = Connection(reactor, host, namespace, on_push)
    reactor.wait_for(lambda: connection.hello, "the server hello")
    return connection


# --------------------------------------------------------------------------------------------
# a. onDisconnect propagation


def phase_disconnect(reactor: Reactor, hearth: Hearth, rounds: int) -> None:
    namespace = fresh_namespace("presence")
    target = ("presence", "u1", "online")
    seen: list[tuple[object, int, int]] = []  # (online, arrival, seen)

    def on_push(_: Connection, action: str, body: dict, arrival: int) -> None:
        online = value_at(body, action, target)
        if online is not MISSING:
            seen.append((online, arrival, time.time_ns()))

    listener = connect(reactor, hearth.host, namespace, on_push)
    listener.call("q", {"p": "/presence/u1", "h": ""})
    print(f"a. onDisconnect `o` at /presence/u1 -> listener's push online: false  ({rounds} rounds per way "
          f"+ {WARM_UP} warm-up; namespace {namespace})")
    ways = {
        "TCP FIN, no close frame (shutdown + close)": "fin",
        "TCP RST (SO_LINGER 0 + close)": "rst",
        "WebSocket close frame 1000": "close",
    }
    for label, way in ways.items():
        arrivals, observed = [], []
        for index in range(WARM_UP + rounds):
            client = connect(reactor, hearth.host, namespace)
            mark = len(seen)
            client.call("p", {"p": "/presence/u1", "d": {"online": True}})
            reactor.wait_for(lambda: any(online is True for online, _, _ in seen[mark:]), "online: true")
            client.call("o", {"p": "/presence/u1", "d": {"online": False, "lastSeen": {".sv": "timestamp"}}})
            mark = len(seen)
            if way == "rst":
                client.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            began = time.time_ns()
            if way == "close":
                client.close_frame()
            else:
                # FIN: sent by shutdown at once (the reader thread closes the descriptor at its EOF). RST: sent
                # when the reader thread closes the socket, a few microseconds after `began` (counted).
                if way == "fin":
                    client.sock.shutdown(socket.SHUT_RDWR)
                else:
                    reactor.remove(client)
            reactor.wait_for(lambda: any(online is False for online, _, _ in seen[mark:]), "online: false")
            if way == "close":
                reactor.wait_for(lambda: client.closed, "the server's close")
            _, arrival, when_seen = next(entry for entry in seen[mark:] if entry[0] is False)
            if index >= WARM_UP:
                arrivals.append(arrival - began)
                observed.append(when_seen - began)
            if way != "rst":
                reactor.remove(client)
        print(f"   {label:<44} {distribution(arrivals)}")
        print(f"   {'(seen by the Python reader)':<44} {distribution(observed)}")
    reactor.remove(listener)
    print(f"   {hearth.rss()}")


# --------------------------------------------------------------------------------------------
# b. pipelined writes


def phase_writes(reactor: Reactor, hearth: Hearth, count: int) -> None:
    namespace = fresh_namespace("writes")
    print(f"b. {count:,} pipelined puts of {{\"n\": i, \"v\": \"x\"}} over one socket, all acks awaited "
          f"(namespace {namespace}; after a warm-up of 1,000)")
    # The last case writes the same number of leaves under 100 parents (/bench3/g<i mod 100>/w<i>): when it is
    # much faster than /bench, a write's cost grows with the number of siblings of the written key.
    for root, listened, parents in (("warm", False, 1), ("bench", False, 1), ("bench2", True, 1),
                                    ("bench3", False, 100)):
        n = 1000 if root == "warm" else count
        writer = connect(reactor, hearth.host, namespace)
        acks: list[int] = []
        failures: list[dict] = []

        def on_response(_: int, body: dict, arrival: int) -> None:
            acks.append(arrival)
            if body.get("s") != "ok":
                failures.append(body)

        pushed: set[str] = set()
        last_push = [0]

        def on_push(_: Connection, action: str, body: dict, arrival: int) -> None:
            path = body.get("p", "").strip("/")
            data = body.get("d")
            if path.startswith(root + "/"):
                pushed.add(path.split("/")[1])
            elif path == root and isinstance(data, dict):
                pushed.update(key.split("/")[0] for key in data)
            last_push[0] = arrival

        listener = None
        if listened:
            listener = connect(reactor, hearth.host, namespace, on_push)
            listener.call("q", {"p": f"/{root}", "h": ""})
        frames = b"".join(
            writer.encode_request("p", {"p": f"/{root}/w{i}" if parents == 1 else f"/{root}/g{i % parents}/w{i}",
                                        "d": {"n": i, "v": "x"}})[1]
            for i in range(n))
        writer.on_response = on_response
        began = time.time_ns()
        writer.send_raw(frames)
        sent = time.time_ns()
        reactor.wait_for(lambda: len(acks) == n, f"{n} put acks ({len(acks)} so far)", timeout=300)
        if failures:
            raise SystemExit(f"{len(failures)} puts failed, first: {failures[0]}")
        if listener:
            reactor.wait_for(lambda: len(pushed) == n, f"{n} pushes to the listener", timeout=300)
        if root != "warm":
            elapsed = (max(acks) - began) / 1e9
            label = (f"{'with' if listened else 'no'} listener, /{root}/w<i>" if parents == 1
                     else f"no listener, /{root}/g<i%{parents}>/w<i>")
            print(f"   {label:<34} all acks in {elapsed * 1000:8.1f} ms "
                  f"= {n / elapsed:9,.0f} writes/s  (sending took {(sent - began) / 1e6:.1f} ms, "
                  f"{len(frames) / 1e6:.2f} MB)")
            if listener:
                pushes = (last_push[0] - began) / 1e9
                print(f"   {'':<34} last push in {pushes * 1000:8.1f} ms "
                      f"= {n / pushes:9,.0f} events/s")
        reactor.remove(writer)
        if listener:
            reactor.remove(listener)
    print(f"   {hearth.rss()}")


# --------------------------------------------------------------------------------------------
# c. fan-out


def raise_descriptor_limit(needed: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < needed:
        wanted = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        if wanted < needed:
            print(f"   warning: open files limited to {wanted} (hard limit); fewer sockets may connect")


class FanOut:
    """Which listens have the sequence number `current`, with arrival (kernel) and seen (Python) times."""

    def __init__(self, listens: int):
        self.current = -1
        self.arrivals: dict[int, int] = {}
        self.seen: dict[int, int] = {}
        self.listens = listens

    def mark(self, listen: int, seq: object, arrival: int) -> None:
        if seq == self.current and listen not in self.arrivals:
            self.arrivals[listen] = arrival
            self.seen[listen] = time.time_ns()

    def complete(self) -> bool:
        return len(self.arrivals) == self.listens


def run_fanout(reactor: Reactor, writer: Connection, state: FanOut, rounds: int,
               write: Callable[[int, int], tuple[str, dict]], cross_check: bool, quiet: float = 0.3) -> None:
    """Rounds with the reader live; with `cross_check` also rounds with the reader paused for `quiet` s after
    the write, so this client takes no CPU from the server while it fans out (the kernel still timestamps what
    arrives). Only meaningful when each socket gets one message per round: the kernel merges segments that
    wait unread on one socket, and the merged data carries the last segment's timestamp."""
    for paused in (False, True) if cross_check else (False,):
        everyone, median_listener, everyone_seen, late = [], [], [], 0
        for index in range(WARM_UP + rounds):
            state.current = seq = index + (10_000 if paused else 0)
            state.arrivals, state.seen = {}, {}
            action, body = write(seq, time.time_ns() // 1_000_000)
            number, data = writer.encode_request(action, body)
            if paused:
                reactor.pause()
            began = time.time_ns()
            writer.send_raw(data)
            if paused:
                time.sleep(quiet)
                reactor.resume()
            reactor.wait_for(state.complete, f"round {index}: every listen ({len(state.arrivals)} so far)")
            reactor.wait_for(lambda: number in writer.responses, "the writer's ack")
            if writer.responses.pop(number)[0].get("s") != "ok":
                raise SystemExit("the fan-out write was refused")
            if index >= WARM_UP:
                arrivals = sorted(state.arrivals.values())
                everyone.append(arrivals[-1] - began)
                median_listener.append(arrivals[len(arrivals) // 2] - began)
                everyone_seen.append(max(state.seen.values()) - began)
                late += paused and arrivals[-1] - began > quiet * 1e9
            time.sleep(0.02)
        if not paused:
            print(f"   {'reader live:':<18}{f'all {state.listens} listens':<22}{distribution(everyone)}")
            print(f"   {'':<18}{'the median listen':<22}{distribution(median_listener)}")
            print(f"   {'':<18}{'all seen by Python':<22}{distribution(everyone_seen)}")
        else:
            print(f"   {'reader paused:':<18}{f'all {state.listens} listens':<22}{distribution(everyone)}")
            print(f"   {'':<18}{'the median listen':<22}{distribution(median_listener)}")
            if late:
                print(f"   ({late} rounds took longer than the {quiet * 1000:.0f} ms pause: the reader competed)")


def phase_fanout(reactor: Reactor, hearth: Hearth, listeners: int, rounds: int) -> None:
    raise_descriptor_limit(2 * listeners + 256)
    namespace = fresh_namespace("fanout")
    state = FanOut(listeners)
    target = ("room", "msg", "seq")

    def on_push(connection: Connection, action: str, body: dict, arrival: int) -> None:
        seq = value_at(body, action, target)
        if seq is not MISSING:
            state.mark(connection.index, seq, arrival)

    print(f"c. fan-out: one put of /room/msg = {{seq, at}}, {listeners} sockets each listening on /room "
          f"({rounds} rounds + {WARM_UP} warm-up; namespace {namespace})")
    sockets = []
    began = time.monotonic()
    for index in range(listeners):
        connection = Connection(reactor, hearth.host, namespace, on_push)
        connection.index = index
        sockets.append(connection)
    numbers = [connection.request("q", {"p": "/room", "h": ""}) for connection in sockets]
    reactor.wait_for(lambda: all(n in c.responses for c, n in zip(sockets, numbers)), "every listen's ok")
    print(f"   {listeners} sockets connected and listening in {time.monotonic() - began:.2f} s; {hearth.rss()}")
    writer = connect(reactor, hearth.host, namespace)
    run_fanout(reactor, writer, state, rounds,
               lambda seq, at: ("p", {"p": "/room/msg", "d": {"seq": seq, "at": at}}), cross_check=True)
    print(f"   {hearth.rss()} (with the {listeners} sockets open)")
    for connection in sockets:
        reactor.remove(connection)
    reactor.remove(writer)

    per_socket = max(1, listeners // 10)
    total = per_socket * 10
    namespace = fresh_namespace("multiplex")
    state = FanOut(total)

    def on_multiplexed_push(connection: Connection, action: str, body: dict, arrival: int) -> None:
        base = tuple(key for key in body.get("p", "").split("/") if key)
        data = body.get("d")
        if len(base) >= 2 and base[0] == "room":
            candidates = [base[1]]
        elif base == ("room",) and isinstance(data, dict):
            candidates = [key.split("/")[0] for key in data]
        elif not base and isinstance(data, dict):
            candidates = [key.split("/")[1] for key in data if key.startswith("room/")]
        else:
            candidates = []
        for child in candidates:
            listen = connection.listens.get(child)
            if listen is not None:
                seq = value_at(body, action, ("room", child, "seq"))
                if seq is not MISSING:
                    state.mark(listen, seq, arrival)

    print(f"   variant: 10 sockets x {per_socket} listens on /room/c<k> ({total} distinct children); one update "
          f"(`m` at /room) sets every c<k> = {{seq, at}} (namespace {namespace})")
    sockets = []
    for index in range(10):
        connection = Connection(reactor, hearth.host, namespace, on_multiplexed_push)
        connection.listens = {f"c{k}": k for k in range(index * per_socket, (index + 1) * per_socket)}
        sockets.append(connection)
    pending = [(c, c.request("q", {"p": f"/room/{child}", "h": ""})) for c in sockets for child in c.listens]
    reactor.wait_for(lambda: all(n in c.responses for c, n in pending), "every listen's ok")
    writer = connect(reactor, hearth.host, namespace)
    run_fanout(reactor, writer, state, rounds,
               lambda seq, at: ("m", {"p": "/room", "d": {f"c{k}": {"seq": seq, "at": at} for k in range(total)}}),
               cross_check=False)
    print(f"   {hearth.rss()}")
    for connection in sockets:
        reactor.remove(connection)
    reactor.remove(writer)


# --------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--phases", default="a,b,c", help="comma-separated subset of a,b,c")
    parser.add_argument("--disconnect-rounds", type=int, default=60)
    parser.add_argument("--writes", type=int, default=20_000)
    parser.add_argument("--listeners", type=int, default=1000)
    parser.add_argument("--fanout-rounds", type=int, default=30)
    parser.add_argument("--bin", help="hearth binary (default $HEARTH_BIN, else .build/release/hearth)")
    parser.add_argument("--host", default=os.environ.get("FIREBASE_DATABASE_EMULATOR_HOST"),
                        help="an already running emulator, host:port (default $FIREBASE_DATABASE_EMULATOR_HOST)")
    parser.add_argument("--pid", type=int, help="with --host: the server's PID, for its RSS")
    args = parser.parse_args()
    phases = {name.strip() for name in args.phases.split(",") if name.strip()}
    if not phases or not phases <= {"a", "b", "c"}:
        sys.exit("--phases takes a, b, c or a comma-separated subset")

    hearth = Hearth(args.host, pid=args.pid) if args.host else start_hearth(hearth_binary(args.bin))
    try:
        where = f"pid {hearth.pid}" if hearth.process else "already running"
        print(f"Realtime Database emulator at {hearth.host} ({where}); {os.cpu_count()} CPUs shared with this "
              f"client; {hearth.rss()} at the start")
        reactor = Reactor()
        reactor.start()
        if "a" in phases:
            phase_disconnect(reactor, hearth, args.disconnect_rounds)
        if "b" in phases:
            phase_writes(reactor, hearth, args.writes)
        if "c" in phases:
            phase_fanout(reactor, hearth, args.listeners, args.fanout_rounds)
    finally:
        hearth.stop()


if __name__ == "__main__":
    main()
