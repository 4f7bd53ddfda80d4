"""Resources come back: after many connections, abandoned uploads, gRPC channels, listeners and WebSocket
clients come and go, the process's file descriptors return to their baseline and its memory stops
growing. Counts are read from /proc (no timing assertions: the checks wait, boundedly, for sockets to
close)."""

from __future__ import annotations

import socket
import subprocess
import threading
import time
import uuid

import grpc
import pytest
import requests
import websocket
from google.cloud import firestore
from google.cloud.firestore_v1.types import document as document_types
from google.cloud.firestore_v1.types import firestore as firestore_types

from firestore_grpc_support import close_client
from reliability_support import EMULATORS, HEALTH_PATHS, hearth  # noqa: F401 (fixture)

pytestmark = pytest.mark.timeout(120)

SLACK = 8  # descriptors that may come and go on their own (timers, a connection being accepted)


def close_wait_sockets(pid: int, wait: float = 10.0) -> int:
    """How many of the process's TCP sockets are in CLOSE-WAIT (the peer closed, we never did) once none
    are, or after `wait` seconds: a loaded machine takes a moment to process the peers' FINs."""
    deadline = time.monotonic() + wait
    while True:
        output = subprocess.run(["ss", "-tnpH", "state", "close-wait"], capture_output=True, text=True).stdout
        count = sum(1 for line in output.splitlines() if f"pid={pid}," in line)
        if count == 0 or time.monotonic() >= deadline:
            return count
        time.sleep(0.1)


@pytest.mark.parametrize("emulator", sorted(EMULATORS))
def test_http_connections_are_given_back(hearth, emulator):
    baseline = hearth.descriptors()
    for _ in range(3):
        sessions = [requests.Session() for _ in range(100)]
        for session in sessions:
            response = session.get(hearth.url(emulator) + HEALTH_PATHS[emulator],
                                   headers={"Authorization": "Bearer owner"}, timeout=5)
            assert response.status_code == 200
        for session in sessions:
            session.close()
    assert hearth.settled_descriptors(baseline) <= baseline + SLACK
    assert close_wait_sockets(hearth.pid) == 0


def test_half_open_http_connections_are_closed(hearth):
    """Clients that connect and send nothing, or half a request, then close their side."""
    baseline = hearth.descriptors()
    for emulator in EMULATORS:
        host, port = hearth.addresses[emulator]
        for partial in (b"", b"GET / HTTP/1.1\r\nHost: x"):
            connections = []
            for _ in range(30):
                connection = socket.create_connection((host, port), timeout=5)
                connection.sendall(partial)
                connection.shutdown(socket.SHUT_WR)
                connections.append(connection)
            for connection in connections:
                connection.close()
    assert hearth.settled_descriptors(baseline) <= baseline + SLACK
    assert close_wait_sockets(hearth.pid) == 0


def start_v0_upload(hearth, name: str) -> str:
    url = f"{hearth.url('storage')}/v0/b/demo-reliability.appspot.com/o?name={name}"
    response = requests.post(url, data=b"{}", headers={
        "Authorization": "Firebase owner", "X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start",
        "Content-Type": "application/json"}, timeout=5)
    assert response.status_code == 200, response.text
    return response.headers["X-Goog-Upload-URL"]


def start_gcs_upload(hearth, name: str) -> str:
    url = f"{hearth.url('storage')}/upload/storage/v1/b/demo-reliability.appspot.com/o?uploadType=resumable&name={name}"
    response = requests.post(url, json={}, headers={"Authorization": "Bearer owner"}, timeout=5)
    assert response.status_code == 200, response.text
    return response.headers["Location"]


def test_abandoned_resumable_uploads_hold_no_descriptor(hearth):
    baseline = hearth.descriptors()
    with requests.Session() as http:
        for index in range(200):
            v0 = start_v0_upload(hearth, f"abandoned/v0-{index}")
            response = http.post(v0, data=b"x" * 1000, headers={
                "Authorization": "Firebase owner", "X-Goog-Upload-Command": "upload", "X-Goog-Upload-Offset": "0"},
                timeout=5)
            assert response.status_code == 200, response.text
            gcs = start_gcs_upload(hearth, f"abandoned/gcs-{index}")
            response = http.put(gcs, data=b"y" * 1024 * 256, headers={
                "Content-Range": "bytes 0-262143/*"}, timeout=5)
            assert response.status_code == 308, response.text
    assert hearth.settled_descriptors(baseline) <= baseline + SLACK
    # The abandoned uploads still work: one is finished now.
    response = requests.post(v0, data=b"z", headers={
        "Authorization": "Firebase owner", "X-Goog-Upload-Command": "upload, finalize", "X-Goog-Upload-Offset": "1000"},
        timeout=5)
    assert response.status_code == 200, response.text
    assert int(response.json()["size"]) == 1001


def grpc_get_document(channel: grpc.Channel, project: str) -> None:
    call = channel.unary_unary(
        "/google.firestore.v1.Firestore/GetDocument",
        request_serializer=firestore_types.GetDocumentRequest.serialize,
        response_deserializer=document_types.Document.deserialize)
    with pytest.raises(grpc.RpcError) as missing:
        call(firestore_types.GetDocumentRequest(name=f"projects/{project}/databases/(default)/documents/c/missing"),
             metadata=[("authorization", "Bearer owner")], timeout=10)
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND


def test_closed_grpc_connections_are_given_back(hearth):
    """The probe's recipe: open and close grpc.insecure_channel, then look for CLOSE-WAIT."""
    baseline = hearth.descriptors()
    for _ in range(20):
        channel = grpc.insecure_channel(hearth.host("firestore"))
        grpc_get_document(channel, "demo-reliability")
        channel.close()
    assert hearth.settled_descriptors(baseline) <= baseline + SLACK
    assert close_wait_sockets(hearth.pid) == 0


def test_listeners_come_and_go(hearth, monkeypatch):
    monkeypatch.setenv("FIRESTORE_EMULATOR_HOST", hearth.host("firestore"))
    client = firestore.Client(project="demo-reliability")
    collection = client.collection(f"leaks-{uuid.uuid4().hex[:8]}")
    collection.document("a").set({"n": 1})
    baseline = hearth.descriptors()
    for _ in range(2):
        events = [threading.Event() for _ in range(50)]
        watches = [collection.on_snapshot(lambda *_, event=event: event.set()) for event in events]
        assert all(event.wait(30) for event in events)
        for watch in watches:
            watch.unsubscribe()
    close_client(client)
    assert hearth.settled_descriptors(baseline) <= baseline + SLACK


def test_websockets_with_partial_messages_give_memory_back(hearth):
    """Clients that send 1 MiB of a WebSocket message in frames without FIN, then vanish: the reassembly
    buffers go with them, their memory is reused (rounds do not grow it) and handed back to the system
    (hearth returns freed allocator pages every 10 s)."""
    host, port = hearth.addresses["database"]
    url = f"ws://{host}:{port}/.ws?v=5&ns=reliability"
    baseline = hearth.descriptors()
    piece = b"a" * (256 * 1024)

    def round_trip() -> int:
        sockets = []
        for _ in range(60):
            connection = websocket.create_connection(url, timeout=5)
            connection.recv()  # the hello
            for index in range(4):
                opcode = websocket.ABNF.OPCODE_TEXT if index == 0 else websocket.ABNF.OPCODE_CONT
                connection.send_frame(websocket.ABNF(fin=0, opcode=opcode, data=piece))
            sockets.append(connection)
        # The server has read what the sockets sent once its resident memory stops growing.
        held, deadline = hearth.rss_kib(), time.monotonic() + 20
        while time.monotonic() < deadline:
            time.sleep(0.5)
            now = hearth.rss_kib()
            if now <= held:
                break
            held = now
        for connection in sockets:
            connection.sock.close()
        return held

    first = round_trip()
    round_trip()
    third = round_trip()
    assert hearth.settled_descriptors(baseline) <= baseline + SLACK
    # Leaking would keep 60 MiB per round; allocator noise is far below that.
    assert third - first < 60 * 1024, (first, third)
    # Given back: within a bounded wait, resident memory drops well below what the open sockets held.
    deadline = time.monotonic() + 30
    while hearth.rss_kib() > third - 30 * 1024 and time.monotonic() < deadline:
        time.sleep(0.5)
    assert hearth.rss_kib() <= third - 30 * 1024, (third, hearth.rss_kib())
