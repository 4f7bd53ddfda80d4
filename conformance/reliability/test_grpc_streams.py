"""gRPC under many concurrent calls on one connection, compressed requests, and malformed calls.

Server and admin SDKs open one HTTP/2 stream per listener and per call in flight, all on one connection:
the server must take far more than NIO's unadvertised default of 100 at once (Google's emulator takes
them all), and advertise its real limit so that clients queue beyond it instead of being cut off."""

from __future__ import annotations

import json
import socket
import threading
import uuid
from pathlib import Path

import grpc
import h2.config
import h2.connection
import h2.events
import pytest
from google.cloud import firestore
from google.cloud.firestore_v1.types import document as document_types
from google.cloud.firestore_v1.types import firestore as firestore_types
from google.cloud.firestore_v1.types import write as write_types

from firestore_grpc_support import close_client
from reliability_support import hearth  # noqa: F401 (fixture)

pytestmark = pytest.mark.timeout(120)
# What Google's emulator answered to the same calls (recorded so that CI needs no Java).
OFFICIAL = json.loads((Path(__file__).parent / "official_grpc_answers.json").read_text())
OWNER = [("authorization", "Bearer owner")]
PROJECT = "demo-reliability"


def commit_method(channel: grpc.Channel):
    return channel.unary_unary(
        "/google.firestore.v1.Firestore/Commit",
        request_serializer=firestore_types.CommitRequest.serialize,
        response_deserializer=firestore_types.CommitResponse.deserialize)


def commit_request(collection: str, index: int) -> firestore_types.CommitRequest:
    name = f"projects/{PROJECT}/databases/(default)/documents/{collection}/d{index}"
    document = document_types.Document(name=name, fields={"n": document_types.Value(integer_value=index)})
    return firestore_types.CommitRequest(database=f"projects/{PROJECT}/databases/(default)",
                                         writes=[write_types.Write(update=document)])


def test_a_thousand_concurrent_commits_on_one_channel(hearth):
    collection = f"concurrent-{uuid.uuid4().hex[:8]}"
    with grpc.insecure_channel(hearth.host("firestore")) as channel:
        commit = commit_method(channel)
        futures = [commit.future(commit_request(collection, index), metadata=OWNER, timeout=60)
                   for index in range(1000)]
        failures = []
        for future in futures:
            try:
                future.result()
            except grpc.RpcError as error:
                failures.append(error.code())
    assert failures == []


def test_two_hundred_listeners_in_one_client_all_converge(hearth, monkeypatch):
    monkeypatch.setenv("FIRESTORE_EMULATOR_HOST", hearth.host("firestore"))
    client = firestore.Client(project=PROJECT)
    try:
        collection = client.collection(f"listeners-{uuid.uuid4().hex[:8]}")
        count = 200
        seen = [threading.Event() for _ in range(count)]
        watches = []
        for index in range(count):
            def on_snapshot(snapshot, changes, read_time, index=index):
                if any(doc.get("v") == 2 for doc in snapshot):
                    seen[index].set()
            watches.append(collection.where("k", "==", index % 10).on_snapshot(on_snapshot))
        for k in range(10):
            collection.document(f"d{k}").set({"k": k, "v": 2})
        missing = [index for index, event in enumerate(seen) if not event.wait(60)]
        for watch in watches:
            watch.unsubscribe()
        assert missing == []
    finally:
        close_client(client)


def test_gzip_compressed_calls(hearth):
    """grpcio clients with compression on send `grpc-encoding: gzip` (and messages left uncompressed
    when gzip does not shrink them)."""
    collection = f"gzip-{uuid.uuid4().hex[:8]}"
    for algorithm in (grpc.Compression.Gzip, grpc.Compression.Deflate):
        with grpc.insecure_channel(hearth.host("firestore"), compression=algorithm) as channel:
            response = commit_method(channel)(commit_request(collection, 1), metadata=OWNER, timeout=10)
            assert response.commit_time is not None
            get = channel.unary_unary(
                "/google.firestore.v1.Firestore/GetDocument",
                request_serializer=firestore_types.GetDocumentRequest.serialize,
                response_deserializer=document_types.Document.deserialize)
            document = get(firestore_types.GetDocumentRequest(
                name=f"projects/{PROJECT}/databases/(default)/documents/{collection}/d1"), metadata=OWNER, timeout=10)
            assert document.fields["n"].integer_value == 1


def raw_grpc_call(hearth, path: str, body: bytes | None, extra_headers: list[tuple[str, str]] = (),
                  method: str = "POST", content_type: str = "application/grpc") -> dict:
    """One call on a raw HTTP/2 connection: HEADERS (ending the stream when `body` is None), else one
    DATA frame with `body` ending it. Returns the response headers and trailers, merged."""
    host, port = hearth.addresses["firestore"]
    connection = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True))
    connection.initiate_connection()
    with socket.create_connection((host, port), timeout=10) as sock:
        sock.sendall(connection.data_to_send())
        headers = [(":method", method), (":scheme", "http"), (":path", path), (":authority", f"{host}:{port}"),
                   ("content-type", content_type), ("te", "trailers"), ("authorization", "Bearer owner"),
                   *extra_headers]
        connection.send_headers(1, headers, end_stream=body is None)
        if body is not None:
            connection.send_data(1, body, end_stream=True)
        sock.sendall(connection.data_to_send())
        answer: dict[str, str] = {}
        while True:
            data = sock.recv(65536)
            if not data:
                break
            for event in connection.receive_data(data):
                if isinstance(event, (h2.events.ResponseReceived, h2.events.TrailersReceived)):
                    answer.update({(k.decode() if isinstance(k, bytes) else k): (v.decode() if isinstance(v, bytes) else v)
                                   for k, v in event.headers})
                if isinstance(event, h2.events.StreamEnded) or isinstance(event, h2.events.StreamReset):
                    return answer
            sock.sendall(connection.data_to_send())
    return answer


def test_a_unary_call_without_a_message_is_answered(hearth):
    answer = raw_grpc_call(hearth, "/google.firestore.v1.Firestore/GetDocument", None)
    assert answer.get("grpc-status") == OFFICIAL["unary call whose HEADERS end the stream"]["grpc-status"], answer


def test_an_unknown_encoding_is_unimplemented(hearth):
    message = firestore_types.GetDocumentRequest.serialize(firestore_types.GetDocumentRequest(
        name=f"projects/{PROJECT}/databases/(default)/documents/c/d"))
    frame = b"\x01" + len(message).to_bytes(4, "big") + message
    answer = raw_grpc_call(hearth, "/google.firestore.v1.Firestore/GetDocument", frame, [("grpc-encoding", "snappy")])
    assert answer.get("grpc-status") == OFFICIAL["request with grpc-encoding: snappy"]["grpc-status"], answer
    assert "gzip" in answer.get("grpc-accept-encoding", ""), answer


GET_MESSAGE = firestore_types.GetDocumentRequest.serialize(firestore_types.GetDocumentRequest(
    name=f"projects/{PROJECT}/databases/(default)/documents/rooms/a"))
GET_FRAME = b"\x00" + len(GET_MESSAGE).to_bytes(4, "big") + GET_MESSAGE
# Calls refused before they reach the service: the official emulator's words (official_grpc_answers.json).
REFUSALS = {
    "unknown method": ("/google.firestore.v1.Firestore/Nope", GET_FRAME, {}),
    "unknown service": ("/nope.Service/Call", GET_FRAME, {}),
    "unary call with two request messages": ("/google.firestore.v1.Firestore/GetDocument", GET_FRAME * 2, {}),
    "request ending inside a message": ("/google.firestore.v1.Firestore/GetDocument", GET_FRAME[:8], {}),
    "GET instead of POST": ("/google.firestore.v1.Firestore/GetDocument", GET_FRAME, {"method": "GET"}),
    "content-type application/json": ("/google.firestore.v1.Firestore/GetDocument", GET_FRAME,
                                       {"content_type": "application/json"}),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_refused_calls_are_answered_as_the_official_emulator_answers_them(hearth, case):
    path, body, options = REFUSALS[case]
    answer = raw_grpc_call(hearth, path, body, **options)
    official = OFFICIAL["refusal: " + case]
    expected = official.get("hearth", official)  # a deliberate difference, with its reason in the recording
    for key in (":status", "grpc-status", "grpc-message"):
        if key in expected:
            assert answer.get(key) == expected[key], (key, answer)


def h2_frame(kind: int, flags: int, stream: int, payload: bytes) -> bytes:
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload


PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + h2_frame(0x4, 0, 0, b"")
# Malformed HTTP/2: each must end in a GOAWAY or a stream reset (or be ignored), never a hang, a crash or an
# unhealthy server.
BAD_FRAMES = {
    "DATA on stream 0": h2_frame(0x0, 0x1, 0, b"x"),
    "HEADERS on an even stream": h2_frame(0x1, 0x5, 2, b"\x82"),
    "garbage HPACK": h2_frame(0x1, 0x5, 1, b"\xff\xff\xff\xff\xff"),
    "frame larger than SETTINGS allow": h2_frame(0x0, 0x0, 1, b"x" * 20_000),
    "SETTINGS with a bad length": h2_frame(0x4, 0, 0, b"\x00\x01\x00"),
    "SETTINGS on a stream": h2_frame(0x4, 0, 1, b""),
    "WINDOW_UPDATE of zero": h2_frame(0x8, 0, 0, b"\x00\x00\x00\x00"),
    "WINDOW_UPDATE overflow": h2_frame(0x8, 0, 0, b"\x7f\xff\xff\xff") * 2,
    "PING with a bad length": h2_frame(0x6, 0, 0, b"123"),
    "RST_STREAM on an idle stream": h2_frame(0x3, 0, 7, b"\x00\x00\x00\x08"),
    "unknown frame type": h2_frame(0xEE, 0, 0, b"ignored"),
    "CONTINUATION without HEADERS": h2_frame(0x9, 0x4, 1, b"\x82"),
    "PRIORITY depending on itself": h2_frame(0x2, 0, 3, b"\x00\x00\x00\x03\x10"),
    "1,000 RST_STREAMs": b"".join(
        h2_frame(0x1, 0x4, stream, b"\x83\x86\x84\x41\x09localhost") + h2_frame(0x3, 0, stream, b"\x00\x00\x00\x08")
        for stream in range(1, 2001, 2)),
    "SETTINGS flood": h2_frame(0x4, 0, 0, b"") * 5_000,
    "PING flood": h2_frame(0x6, 0, 0, b"12345678") * 5_000,
}


@pytest.mark.parametrize("case", sorted(BAD_FRAMES))
def test_malformed_http2_frames(hearth, case):
    host, port = hearth.addresses["firestore"]
    with socket.create_connection((host, port), timeout=10) as sock:
        sock.sendall(PREFACE + BAD_FRAMES[case])
        sock.settimeout(2)
        try:
            while sock.recv(65536):
                pass
        except (socket.timeout, ConnectionResetError):
            pass
    # Whatever happened to that connection, the port still serves gRPC.
    with grpc.insecure_channel(hearth.host("firestore")) as channel:
        response = commit_method(channel)(commit_request(f"after-{uuid.uuid4().hex[:6]}", 1), metadata=OWNER, timeout=10)
        assert response.commit_time is not None


LISTEN_DATABASE = f"projects/{PROJECT}/databases/(default)"


def listen_add_target(database: str = LISTEN_DATABASE) -> bytes:
    request = firestore_types.ListenRequest(database=database)
    request.add_target.target_id = 2
    request.add_target.query.parent = LISTEN_DATABASE + "/documents"
    request.add_target.query.structured_query.from_ = [{"collection_id": "rooms"}]
    return firestore_types.ListenRequest.serialize(request)


LISTEN_CASES = {
    "Listen: undecodable request": ([b"\xff" * 10], False),
    "Listen: first request with no database": ([listen_add_target(database="")], False),
    "Listen: database not a resource name": ([listen_add_target(database="projects/x")], False),
    "Listen: target added, then requests ended": ([listen_add_target()], True),
    "Listen: no request, requests ended": ([], True),
}


def listen_answer(host: str, requests: list[bytes], half_close: bool, deadline: bool) -> dict:
    """The kinds of the responses a raw Listen call gets, in order, and its final status."""
    stop = threading.Event()

    def produce():
        yield from requests
        if not half_close:
            stop.wait(1.5)

    with grpc.insecure_channel(host) as channel:
        call = channel.stream_stream("/google.firestore.v1.Firestore/Listen", request_serializer=None,
                                     response_deserializer=None)
        kinds = []
        try:
            for raw in call(produce(), metadata=OWNER + [("google-cloud-resource-prefix", LISTEN_DATABASE)],
                            timeout=5 if deadline else None):
                response = firestore_types.ListenResponse.deserialize(raw)
                kind = firestore_types.ListenResponse.pb(response).WhichOneof("response_type")
                if kind == "target_change":
                    change = response.target_change
                    kind += ":" + change.target_change_type.name + (f"({change.cause.code})" if change.cause.code else "")
                kinds.append(kind)
        except grpc.RpcError as error:
            return {"responses": kinds, "status": error.code().name, "message": error.details()}
        finally:
            stop.set()
    return {"responses": kinds, "status": "OK"}


@pytest.mark.parametrize("deadline", [False, True], ids=["event loop", "with a deadline (grpc-swift)"])
@pytest.mark.parametrize("case", sorted(LISTEN_CASES))
def test_listen_streams_end_as_the_official_emulator_ends_them(hearth, case, deadline):
    requests, half_close = LISTEN_CASES[case]
    answer = listen_answer(hearth.host("firestore"), requests, half_close, deadline)
    official = OFFICIAL[case]
    if "hearth" in official:  # a deliberate difference, with its reason in the recording
        assert answer["status"] == official["hearth"]["status"], answer
        assert official["hearth"].get("message", answer.get("message")) == answer.get("message"), answer
    else:
        assert (answer["responses"], answer["status"]) == (official["responses"], official["status"]), answer
