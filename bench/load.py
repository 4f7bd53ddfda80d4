#!/usr/bin/env python3
"""Load benchmark: many listeners on one gRPC connection and on many, and 1,000 Realtime Database
clients, each for a bounded time, checking that no event is lost; prints figures, asserts no timing.

Starts the release hearth (`hearth start` on free ports, project demo-load, in an empty folder) and stops it
by PID at the end. Phases:
 a. Firestore, one connection: one google-cloud-firestore client holds L `on_snapshot` listeners (a query
    `k == i mod 50` each, so 50 distinct queries) on one gRPC connection; a writer on another client commits
    W updates round-robin to 50 documents for at most D seconds. Checked: every listener's last snapshot has
    the last value written to its document. Printed: commits/s, time from the last commit until every
    listener had it, snapshots delivered, hearth's CPU time per commit.
 b. Firestore, many connections: C clients (one connection each), 2 listeners each; the same writes.
 c. Realtime Database: N WebSocket clients (bench/database.py's epoll client) each listening on /room; a
    writer puts /room/m<i> for i < E. Checked: every client saw all E children. Printed: time until every
    client had every event, pushes/s delivered.
After each phase: hearth's RSS and open descriptors, then again once the phase's clients are gone (they must
come back to the baseline).

Usage: .venv/bin/python bench/load.py [--phases a,b,c] [--listeners 500] [--clients 100] [--writes 2000]
                                      [--seconds 30] [--rtdb-clients 1000] [--rtdb-events 100] [--bin PATH]
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
import uuid
from pathlib import Path

import hearth_process
from database import Hearth, Reactor, connect, hearth_binary, raise_descriptor_limit

PROJECT = "demo-load"


def descriptors(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def resources(hearth: Hearth) -> str:
    return f"{hearth.rss()}, {descriptors(hearth.pid)} descriptors"


def settle(hearth: Hearth, baseline: int, wait: float = 15.0) -> int:
    deadline = time.monotonic() + wait
    while descriptors(hearth.pid) > baseline + 8 and time.monotonic() < deadline:
        time.sleep(0.1)
    return descriptors(hearth.pid)


def firestore_phase(hearth: Hearth, label: str, clients: int, per_client: int, writes: int, seconds: float) -> None:
    from google.cloud import firestore

    os.environ["FIRESTORE_EMULATOR_HOST"] = hearth.host
    baseline = descriptors(hearth.pid)
    collection_name = f"load-{uuid.uuid4().hex[:8]}"
    listeners = clients * per_client
    latest: dict[int, int] = {}  # listener → latest v seen for its document
    snapshots = [0]
    lock = threading.Lock()
    documents = 50

    def on_snapshot(index: int):
        def callback(snapshot, changes, read_time):
            with lock:
                snapshots[0] += 1
                for document in snapshot:
                    latest[index] = max(latest.get(index, -1), document.get("v"))
        return callback

    readers = [firestore.Client(project=PROJECT) for _ in range(clients)]
    writer = firestore.Client(project=PROJECT)
    collection = writer.collection(collection_name)
    for k in range(documents):
        collection.document(f"d{k}").set({"k": k, "v": -1})
    watches = []
    started = time.monotonic()
    for index in range(listeners):
        client = readers[index // per_client]
        watches.append(client.collection(collection_name).where("k", "==", index % documents)
                       .on_snapshot(on_snapshot(index)))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(latest) < listeners:
        time.sleep(0.05)
    print(f"   {listeners} listeners on {clients} connection(s): all had their first snapshot after "
          f"{time.monotonic() - started:.2f} s ({len(latest)}/{listeners}); {resources(hearth)}")

    cpu_before = cpu_seconds(hearth.pid)
    began = time.monotonic()
    last_value = {}
    written = 0
    while written < writes and time.monotonic() - began < seconds:
        k = written % documents
        collection.document(f"d{k}").set({"k": k, "v": written})
        last_value[k] = written
        written += 1
    commit_time = time.monotonic() - began
    cpu = cpu_seconds(hearth.pid) - cpu_before
    last_commit = time.monotonic()

    def converged() -> int:
        with lock:
            return sum(1 for index in range(listeners) if latest.get(index) == last_value.get(index % documents, -1))

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and converged() < listeners:
        time.sleep(0.01)
    done = converged()
    print(f"   {written} commits in {commit_time:.2f} s ({written / commit_time:,.0f}/s, hearth CPU "
          f"{cpu / max(written, 1) * 1e6:,.0f} µs per commit incl. fan-out); every listener current "
          f"{time.monotonic() - last_commit:.3f} s after the last commit; {snapshots[0]:,} snapshots delivered")
    print(f"   {'no event lost' if done == listeners else f'LOST: {listeners - done} listeners never saw their last write'}"
          f"; {resources(hearth)}")
    for watch in watches:
        watch.unsubscribe()
    for client in [*readers, writer]:
        transport = getattr(getattr(client, "_firestore_api_internal", None), "_transport", None)
        if transport is not None:
            transport.close()
    print(f"   after the clients left: {settle(hearth, baseline)} descriptors (baseline {baseline})")
    if done != listeners:
        raise SystemExit(f"{label}: events lost")


def database_phase(hearth: Hearth, clients: int, events: int) -> None:
    raise_descriptor_limit(2 * clients + 256)
    baseline = descriptors(hearth.pid)
    namespace = f"load-{uuid.uuid4().hex[:8]}"
    reactor = Reactor()
    reactor.start()
    seen: list[set[str]] = [set() for _ in range(clients)]
    lock = threading.Lock()

    def listener(index: int):
        def on_push(_connection, action: str, body: dict, arrival: int) -> None:
            data = body.get("d")
            path = body.get("p", "")
            with lock:
                if path.strip("/") == "room" and isinstance(data, dict):
                    seen[index].update(data)
                elif path.strip("/").startswith("room/"):
                    seen[index].add(path.strip("/").split("/")[1])
        return on_push

    started = time.monotonic()
    connections = []
    for index in range(clients):
        connection = connect(reactor, hearth.host, namespace, listener(index))
        connection.call("q", {"p": "/room", "h": ""})
        connections.append(connection)
    print(f"   {clients} clients connected and listening in {time.monotonic() - started:.2f} s; {resources(hearth)}")
    writer = connect(reactor, hearth.host, namespace)
    cpu_before = cpu_seconds(hearth.pid)
    began = time.monotonic()
    for index in range(events):
        writer.request("p", {"p": f"/room/m{index}", "d": index})
    wanted = {f"m{index}" for index in range(events)}

    def complete() -> int:
        with lock:
            return sum(1 for keys in seen if wanted <= keys)

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and complete() < clients:
        time.sleep(0.01)
    elapsed = time.monotonic() - began
    done = complete()
    cpu = cpu_seconds(hearth.pid) - cpu_before
    print(f"   {events} writes, {clients * events:,} events: every client had every event after {elapsed:.2f} s "
          f"({clients * events / elapsed:,.0f} events/s delivered, hearth CPU {cpu:.2f} s)")
    print(f"   {'no event lost' if done == clients else f'LOST: {clients - done} clients missed events'}; "
          f"{resources(hearth)}")
    for connection in [*connections, writer]:
        connection.sock.close()
    print(f"   after the clients left: {settle(hearth, baseline)} descriptors (baseline {baseline})")
    if done != clients:
        raise SystemExit("database: events lost")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--phases", default="a,b,c")
    parser.add_argument("--listeners", type=int, default=500)
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--writes", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--rtdb-clients", type=int, default=1000)
    parser.add_argument("--rtdb-events", type=int, default=100)
    parser.add_argument("--bin", help="hearth binary (default $HEARTH_BIN, else .build/release/hearth)")
    args = parser.parse_args()
    phases = {name.strip() for name in args.phases.split(",") if name.strip()}
    binary = hearth_binary(args.bin)
    hearths = []
    try:
        if phases & {"a", "b"}:
            process, host, folder = hearth_process.start(binary, "firestore", "Firestore", PROJECT)
            firestore_hearth = Hearth(host, process, folder)
            hearths.append(firestore_hearth)
            print(f"Firestore emulator at {host} (pid {process.pid}); {os.cpu_count()} CPUs shared with this client")
            if "a" in phases:
                print(f"a. {args.listeners} listeners on one connection")
                firestore_phase(firestore_hearth, "a", 1, args.listeners, args.writes, args.seconds)
            if "b" in phases:
                print(f"b. {args.clients} connections, 2 listeners each")
                firestore_phase(firestore_hearth, "b", args.clients, 2, args.writes, args.seconds)
        if "c" in phases:
            process, host, folder = hearth_process.start(binary, "database", "Database", PROJECT)
            database_hearth = Hearth(host, process, folder)
            hearths.append(database_hearth)
            print(f"c. {args.rtdb_clients} Realtime Database clients (emulator at {host}, pid {process.pid})")
            database_phase(database_hearth, args.rtdb_clients, args.rtdb_events)
    finally:
        for hearth in hearths:
            hearth.stop()


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
