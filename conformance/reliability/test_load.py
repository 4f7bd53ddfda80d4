"""A small version of bench/load.py: many Realtime Database clients and many Firestore connections at once,
for a bounded time, with no event lost (the benchmark prints figures for 1,000 clients)."""

from __future__ import annotations

import json
import threading
import uuid

import pytest
import websocket
from google.cloud import firestore

from firestore_grpc_support import close_client
from reliability_support import hearth  # noqa: F401 (fixture)

pytestmark = pytest.mark.timeout(180)


def test_two_hundred_database_clients_get_every_event(hearth):
    host, port = hearth.addresses["database"]
    namespace = f"load{uuid.uuid4().hex[:8]}"
    url = f"ws://{host}:{port}/.ws?v=5&ns={namespace}"
    clients, events = 200, 30
    wanted = {f"m{index}" for index in range(events)}
    seen = [set() for _ in range(clients)]
    complete = [threading.Event() for _ in range(clients)]
    sockets = []

    def read(index: int, connection: websocket.WebSocket) -> None:
        try:
            while not complete[index].is_set():
                message = json.loads(connection.recv())
                body = message.get("d", {}).get("b", {})
                if message.get("d", {}).get("a") == "d":
                    path = body.get("p", "").strip("/")
                    if path == "room" and isinstance(body.get("d"), dict):
                        seen[index].update(body["d"])
                    elif path.startswith("room/"):
                        seen[index].add(path.split("/")[1])
                    if wanted <= seen[index]:
                        complete[index].set()
        except (websocket.WebSocketException, OSError):
            pass

    for index in range(clients):
        connection = websocket.create_connection(url, timeout=30, suppress_origin=True)
        connection.recv()  # hello
        connection.send(json.dumps({"t": "d", "d": {"r": 1, "a": "q", "b": {"p": "/room", "h": ""}}}))
        sockets.append(connection)
        threading.Thread(target=read, args=(index, connection), daemon=True).start()
    writer = websocket.create_connection(url, timeout=30, suppress_origin=True)
    writer.recv()
    for index in range(events):
        writer.send(json.dumps({"t": "d", "d": {"r": index + 1, "a": "p", "b": {"p": f"/room/m{index}", "d": index}}}))
    missing = [index for index, event in enumerate(complete) if not event.wait(60)]
    for connection in [*sockets, writer]:
        connection.close()
    assert missing == [], f"{len(missing)} clients missed events"


def test_forty_connections_with_listeners_all_converge(hearth, monkeypatch):
    monkeypatch.setenv("FIRESTORE_EMULATOR_HOST", hearth.host("firestore"))
    collection_name = f"load-{uuid.uuid4().hex[:8]}"
    clients = [firestore.Client(project="demo-reliability") for _ in range(40)]
    try:
        done = [threading.Event() for _ in range(80)]
        watches = []
        for index, event in enumerate(done):
            def on_snapshot(snapshot, changes, read_time, event=event):
                if any(document.get("v") == 99 for document in snapshot):
                    event.set()
            query = clients[index // 2].collection(collection_name).where("k", "==", index % 5)
            watches.append(query.on_snapshot(on_snapshot))
        writer = clients[0].collection(collection_name)
        for version in range(100):
            writer.document(f"d{version % 5}").set({"k": version % 5, "v": version if version < 95 else 99})
        missing = [index for index, event in enumerate(done) if not event.wait(60)]
        for watch in watches:
            watch.unsubscribe()
        assert missing == []
    finally:
        for client in clients:
            close_client(client)
