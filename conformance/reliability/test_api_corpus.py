"""A bad-input corpus for each API's own surface: malformed JSON and wrong shapes for every REST API,
garbage WebChannel bodies, garbage protobufs on every Firestore gRPC method, malformed RTDB wire messages and
WebSocket frames, broken multipart and resumable uploads. Pass: a prompt answer in the API's own error shape
(4xx for HTTP, a gRPC status, a protocol error or a closed socket for WebSockets), never a 5xx, a hang or a
dropped connection without an answer; the module's hearth is healthy afterwards (checked at teardown)."""

from __future__ import annotations

import json
import os
import random
import socket
import struct

import grpc
import pytest
import requests
import websocket

from reliability_support import hearth  # noqa: F401 (fixture)

pytestmark = pytest.mark.timeout(120)
PROJECT = "demo-reliability"
DB = f"projects/{PROJECT}/databases/(default)"

# Bodies that are not what any JSON endpoint wants.
BAD_JSON = [
    b"", b"{", b"[", b"null", b"[]", b'"text"', b"42", b"{\"a\":}", b"{'a': 1}", b"\xff\xfe\x00", b"{\"a\":1}garbage",
    b"[" * 5000 + b"]" * 5000, b'{"a":' + b"1" * 500 + b"}", b'{"a":1e400}', b'{"\\ud800": 1}',
    json.dumps({"x": "y" * 100_000}).encode(),
]


def assert_client_error(response: requests.Response, what: str, allow_success: bool = False) -> None:
    assert response.status_code < 500, f"{what}: {response.status_code} {response.text[:300]}"
    if not allow_success:
        assert 400 <= response.status_code < 500, f"{what}: {response.status_code} {response.text[:300]}"


def is_json(body: bytes) -> bool:
    if not body:
        return True
    try:
        json.loads(body)
    except RecursionError:
        return True  # well-formed, only deeper than Python reads
    except ValueError:
        return False
    return True


def endpoints(hearth) -> list[tuple[str, str, dict]]:
    """(method, url, headers) of JSON endpoints across the REST APIs."""
    auth = hearth.url("auth") + "/identitytoolkit.googleapis.com/v1"
    firestore = hearth.url("firestore") + f"/v1/{DB}/documents"
    storage = hearth.url("storage")
    database = hearth.url("database")
    owner = {"Authorization": "Bearer owner", "Content-Type": "application/json"}
    return [
        ("POST", f"{auth}/accounts:signUp?key=fake", {"Content-Type": "application/json"}),
        ("POST", f"{auth}/accounts:signInWithPassword?key=fake", {"Content-Type": "application/json"}),
        ("POST", f"{auth}/accounts:update?key=fake", {"Content-Type": "application/json"}),
        ("POST", f"{auth}/accounts:lookup?key=fake", {"Content-Type": "application/json"}),
        ("POST", f"{auth}/projects/{PROJECT}/accounts:batchCreate", owner),
        ("POST", f"{firestore}:commit", owner),
        ("POST", f"{firestore}:runQuery", owner),
        ("POST", f"{firestore}:runAggregationQuery", owner),
        ("POST", f"{firestore}:batchGet", owner),
        ("POST", f"{firestore}:beginTransaction", owner),
        ("POST", f"{firestore}/corpus", owner),
        ("PATCH", f"{firestore}/corpus/doc", owner),
        ("POST", f"{storage}/b?project={PROJECT}", owner),
        ("PATCH", f"{storage}/storage/v1/b/{PROJECT}.appspot.com/o/corpus", owner),
        ("POST", f"{storage}/upload/storage/v1/b/{PROJECT}.appspot.com/o?uploadType=resumable&name=c", owner),
        ("PUT", f"{storage}/internal/setRules", {"Content-Type": "application/json"}),
        ("PUT", f"{database}/corpus.json?ns=corpus", owner),
        ("PATCH", f"{database}/corpus.json?ns=corpus", owner),
        ("POST", f"{database}/corpus.json?ns=corpus", owner),
        ("PUT", f"{database}/.settings/rules.json?ns=corpus", owner),
    ]


def test_bad_json_on_every_json_endpoint(hearth):
    answered = 0
    with requests.Session() as http:
        for method, url, headers in endpoints(hearth):
            for body in BAD_JSON:
                response = http.request(method, url, data=body, headers=headers, timeout=10)
                # An empty body, `null`, `[]`, a number or a string: well-formed, and some endpoints accept them.
                assert_client_error(response, f"{method} {url} {body[:30]!r}", allow_success=is_json(body))
                answered += 1
    assert answered == len(endpoints(hearth)) * len(BAD_JSON)


WRONG_SHAPES = [
    {"email": 1, "password": ["x"]}, {"writes": "x"}, {"writes": [{"update": {"name": 5}}]},
    {"writes": [{"update": {"name": f"{DB}/documents/c/d", "fields": {"a": {"bogusValue": 1}}}}]},
    {"structuredQuery": {"from": "x"}}, {"structuredQuery": {"where": {"fieldFilter": {"op": "NOPE"}}}},
    {"documents": [1, 2]}, {"fields": {"a": {"integerValue": "not a number"}}},
    {"fields": {"a": {"timestampValue": "yesterday"}}}, {"fields": {"a": {"mapValue": {"fields": []}}}},
    {"name": None}, {"metadata": "x"}, {"rules": {"files": [{"name": 1}]}}, {"a": {".sv": "bogus"}},
    {"a": {".sv": {"increment": "x"}}}, {"bad/key": 1}, {"": 1}, {"a": {".priority": {}}}, {".value": [1]},
]


def test_wrong_shapes_on_every_json_endpoint(hearth):
    with requests.Session() as http:
        for method, url, headers in endpoints(hearth):
            for shape in WRONG_SHAPES:
                response = http.request(method, url, data=json.dumps(shape), headers=headers, timeout=10)
                assert_client_error(response, f"{method} {url} {shape}", allow_success=True)


def test_bad_query_parameters(hearth):
    database = hearth.url("database")
    with requests.Session() as http:
        for query in ["orderBy=notjson", 'orderBy="$key"&limitToFirst=-1', 'orderBy="$key"&startAt=notjson',
                      'orderBy="a"&equalTo=[1', "shallow=maybe", "print=loud", "format=xml", "timeout=forever",
                      'orderBy="$value"&limitToFirst=1&limitToLast=1', "auth=%00", "auth_variable_override={"]:
            response = http.get(f"{database}/corpus.json?ns=corpus&{query}", headers={"Authorization": "Bearer owner"},
                                timeout=10)
            assert_client_error(response, query, allow_success=True)
        firestore = hearth.url("firestore") + f"/v1/{DB}/documents/corpus"
        for query in ["pageSize=-1", "pageSize=abc", "pageToken=%00%01", "mask.fieldPaths=%60", "orderBy=a%20sideways",
                      "showMissing=perhaps", "readTime=yesterday", "transaction=!!!"]:
            response = http.get(f"{firestore}?{query}", headers={"Authorization": "Bearer owner"}, timeout=10)
            assert_client_error(response, query, allow_success=True)


def test_broken_uploads(hearth):
    storage = hearth.url("storage")
    bucket = f"{PROJECT}.appspot.com"
    owner = {"Authorization": "Bearer owner"}
    with requests.Session() as http:
        multipart = f"{storage}/upload/storage/v1/b/{bucket}/o?uploadType=multipart"
        for content_type, body in [
            ("multipart/related", b"--x\r\n\r\n"),
            ("multipart/related; boundary=x", b"no boundary here"),
            ("multipart/related; boundary=x", b"--x\r\nContent-Type: application/json\r\n\r\n{bad\r\n--x--"),
            ("multipart/related; boundary=x", b"--x\r\nContent-Type: application/json\r\n\r\n{}\r\n--x--"),
            ("multipart/related; boundary=x", b"--x\r\n" + b"H: v\r\n" * 100_000),
            ("multipart/related; boundary=", b"----\r\n"),
        ]:
            response = http.post(multipart, data=body, headers={**owner, "Content-Type": content_type}, timeout=10)
            assert_client_error(response, f"multipart {content_type} {body[:30]!r}")
        v0 = f"{storage}/v0/b/{bucket}/o?name=corpus.bin"
        firebase_owner = {"Authorization": "Firebase owner"}
        response = http.post(v0, data=b"--y\r\n\r\nbad", headers={
            **firebase_owner, "X-Goog-Upload-Protocol": "multipart", "Content-Type": "multipart/related; boundary=y"},
            timeout=10)
        assert_client_error(response, "v0 multipart")
        start = http.post(v0, data=b"{}", headers={**firebase_owner, "X-Goog-Upload-Protocol": "resumable",
                                                    "X-Goog-Upload-Command": "start", "X-Goog-Upload-Header-Content-Length": "10"},
                          timeout=10)
        upload_url = start.headers["X-Goog-Upload-URL"]
        for headers, body in [
            ({"X-Goog-Upload-Command": "upload", "X-Goog-Upload-Offset": "5"}, b"gap"),
            ({"X-Goog-Upload-Command": "upload", "X-Goog-Upload-Offset": "-1"}, b"neg"),
            ({"X-Goog-Upload-Command": "upload", "X-Goog-Upload-Offset": "abc"}, b"nan"),
            ({"X-Goog-Upload-Command": "upload", "X-Goog-Upload-Offset": "0"}, b"x" * 11),
            ({"X-Goog-Upload-Command": "dance"}, b""),
        ]:
            response = http.post(upload_url, data=body, headers={**firebase_owner, **headers}, timeout=10)
            assert_client_error(response, f"resumable {headers}")
        # Without a command the v0 API reads the POST as a simple upload of its body (here: empty).
        response = http.post(upload_url, data=b"", headers=firebase_owner, timeout=10)
        assert_client_error(response, "resumable URL without a command", allow_success=True)
        for bad in ["upload_id=nope", "upload_id=%00", "upload_id="]:
            response = http.put(f"{storage}/upload/storage/v1/b/{bucket}/o?uploadType=resumable&{bad}", data=b"x",
                                headers={**owner, "Content-Range": "bytes 0-0/1"}, timeout=10)
            assert_client_error(response, bad)
        gcs = http.post(f"{storage}/upload/storage/v1/b/{bucket}/o?uploadType=resumable&name=r", json={}, headers=owner,
                        timeout=10).headers["Location"]
        for content_range in ["bytes 5-9/*", "bytes 9-0/*", "bytes x-y/z", "bytes 0-0/0", "chunks 0-1/2"]:
            response = http.put(gcs, data=b"0123456789"[:1], headers={**owner, "Content-Range": content_range}, timeout=10)
            assert response.status_code < 500, (content_range, response.status_code, response.text)


def test_garbage_webchannel_bodies(hearth):
    base = hearth.url("firestore") + "/google.firestore.v1.Firestore/Listen/channel"
    params = f"VER=8&database={DB}&RID=1234&CVER=22&X-HTTP-Session-Id=gsessionid&zx=abc&t=1"
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    with requests.Session() as http:
        for body in [b"", b"count=", b"count=-5&ofs=x", b"count=2&ofs=0&req0___data__=%7B", b"count=1&ofs=0&req0___data__=[]",
                     b"count=999999999&ofs=0", b"count=1&ofs=0&req0___data__=" + b"%7B%22a%22%3A" * 5000,
                     b"headers=%00%01&count=1&ofs=0&req0___data__=%7B%7D", b"\xff\xfe", b"count=1&ofs=0&req0___data__=%7B%22addTarget%22%3A5%7D"]:
            response = http.post(f"{base}?{params}", data=body, headers=form, timeout=10)
            assert_client_error(response, f"handshake {body[:40]!r}", allow_success=True)
        for query in ["VER=9", "VER=8&SID=unknown&RID=2&AID=0", "VER=8&SID=&RID=rpc&CI=0&TYPE=xmlhttp",
                      "VER=8&RID=rpc&SID=nope&AID=x&CI=7&TYPE=xmlhttp", "TYPE=terminate&SID=nope", "database=%00"]:
            response = http.post(f"{base}?{query}", data=b"count=0", headers=form, timeout=10)
            assert_client_error(response, query, allow_success=True)
            response = http.get(f"{base}?{query}", timeout=10)
            assert_client_error(response, query, allow_success=True)


FIRESTORE_METHODS = [
    "GetDocument", "ListDocuments", "CreateDocument", "UpdateDocument", "DeleteDocument", "BatchGetDocuments",
    "BeginTransaction", "Commit", "Rollback", "RunQuery", "RunAggregationQuery", "PartitionQuery", "Write", "Listen",
    "ListCollectionIds", "BatchWrite",
]


def test_garbage_protobufs_on_every_firestore_method(hearth):
    generator = random.Random(17)
    payloads = [b"", b"\xff" * 10, b"\x0a\xff\xff\xff\xff\x0f", b"\x08" + b"\xff" * 11, bytes(generator.randrange(256) for _ in range(300)),
                b"\x0a\x05hello\x12\x80\x80\x80\x80\x08", b"\x1a" + b"\x7f" + b"x" * 10]
    with grpc.insecure_channel(hearth.host("firestore")) as channel:
        for method in FIRESTORE_METHODS:
            path = f"/google.firestore.v1.Firestore/{method}"
            for payload in payloads:
                call = channel.unary_unary(path, request_serializer=None, response_deserializer=None)
                try:
                    call(payload, metadata=[("authorization", "Bearer owner")], timeout=10)
                except grpc.RpcError as error:
                    assert error.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED,
                                                grpc.StatusCode.UNKNOWN), (method, payload[:20], error.code(), error.details())
        # The connection survived all of it.
        call = channel.unary_unary("/google.firestore.v1.Firestore/GetDocument", request_serializer=None,
                                   response_deserializer=None)
        with pytest.raises(grpc.RpcError) as missing:
            name = f"{DB}/documents/c/missing".encode()
            call(b"\x0a" + bytes([len(name)]) + name, metadata=[("authorization", "Bearer owner")], timeout=10)
        assert missing.value.code() == grpc.StatusCode.NOT_FOUND


def database_socket(hearth) -> websocket.WebSocket:
    host, port = hearth.addresses["database"]
    connection = websocket.create_connection(f"ws://{host}:{port}/.ws?v=5&ns=corpus", timeout=10, suppress_origin=True)
    connection.recv()  # hello
    return connection


WIRE_MESSAGES = [
    "not json", "[]", "null", '{"t":"x"}', '{"t":"d"}', '{"t":"d","d":[]}', '{"t":"d","d":{"r":"one"}}',
    '{"t":"d","d":{"r":1,"a":"zz","b":{}}}', '{"t":"d","d":{"r":1,"a":"p","b":{"p":5,"d":1}}}',
    '{"t":"d","d":{"r":1,"a":"p","b":{"p":"/a/.b","d":1}}}', '{"t":"d","d":{"r":1,"a":"q","b":{"p":"/a","q":{"l":"x"}}}}',
    '{"t":"d","d":{"r":1,"a":"q","b":{"p":"/a","q":{"i":5,"sp":{}}}}}', '{"t":"d","d":{"r":1,"a":"m","b":{"p":"/a","d":[1]}}}',
    '{"t":"d","d":{"r":1,"a":"auth","b":{"cred":5}}}', '{"t":"d","d":{"r":1,"a":"o","b":{"p":"/a"}}}',
    '{"t":"d","d":{"r":1,"a":"p","b":{"p":"' + "/a" * 100 + '","d":1}}}', '{"t":"c","d":{"t":"p"}}', '{"t":"c"}',
    "999999", "3", '{"t":"d","d":{"r":1,"a":"p","b":{"p":"/x","d":{"' + "k" * 1000 + '":1}}}}',
]


def test_malformed_wire_messages(hearth):
    for message in WIRE_MESSAGES:
        connection = database_socket(hearth)
        try:
            connection.send(message)
            connection.settimeout(0.5)
            try:
                connection.recv()  # a response, a protocol error, or a close: anything but a hang
            except websocket.WebSocketTimeoutException:
                # Silence is right for what waits for more (a frame count) or needs no answer (a keepalive):
                # the connection must still work.
                connection.settimeout(10)
                connection.send('{"t":"d","d":{"r":99,"a":"g","b":{"p":"/x"}}}')
                if message in ("999999", "3"):
                    continue  # those frames are now part of the announced message
                reply = json.loads(connection.recv())
                while reply.get("t") == "c":  # a late answer to the message itself (a pong) comes first
                    reply = json.loads(connection.recv())
                assert reply["t"] == "d"
            except (websocket.WebSocketConnectionClosedException, ConnectionError):
                pass
        finally:
            connection.close()


def test_malformed_websocket_frames(hearth):
    host, port = hearth.addresses["database"]

    def frame(opcode: int, payload: bytes, fin: bool = True, masked: bool = True, rsv: int = 0) -> bytes:
        first = (0x80 if fin else 0) | (rsv << 4) | opcode
        mask_bit = 0x80 if masked else 0
        length = len(payload)
        if length < 126:
            header = bytes([first, mask_bit | length])
        elif length < 65536:
            header = bytes([first, mask_bit | 126]) + struct.pack("!H", length)
        else:
            header = bytes([first, mask_bit | 127]) + struct.pack("!Q", length)
        if not masked:
            return header + payload
        key = os.urandom(4)
        return header + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))

    cases = {
        "binary frame": frame(0x2, b"\x00\x01"),
        "unmasked frame": frame(0x1, b"{}", masked=False),
        "reserved opcode": frame(0x3, b"x"),
        "rsv bits": frame(0x1, b"{}", rsv=7),
        "fragmented ping": frame(0x9, b"x", fin=False),
        "continuation first": frame(0x0, b"x"),
        "close with a bad code": frame(0x8, struct.pack("!H", 999)),
        "close with a one-byte body": frame(0x8, b"x"),
        "invalid utf-8 text": frame(0x1, b"\xff\xfe"),
        "oversized ping": frame(0x9, b"x" * 200),
        "declared 2 GiB": bytes([0x81, 0xFF]) + struct.pack("!Q", 2**31) + b"\x00\x00\x00\x00abc",
    }
    for name, data in cases.items():
        with socket.create_connection((host, port), timeout=10) as sock:
            sock.sendall(f"GET /.ws?v=5&ns=corpus HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                         "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                         "Sec-WebSocket-Version: 13\r\n\r\n".encode())
            received = b""
            while b"\r\n\r\n" not in received:
                received += sock.recv(4096)
            assert received.startswith(b"HTTP/1.1 101"), received[:100]
            sock.sendall(data)
            sock.settimeout(5)
            closed = False
            try:
                while True:
                    chunk = sock.recv(65536)
                    if not chunk:
                        closed = True
                        break
                    received += chunk
                    if b"\x88" in chunk:  # a close frame from the server
                        closed = True
                        break
            except socket.timeout:
                pass
            except ConnectionResetError:
                closed = True
            assert closed, f"{name}: the server neither closed nor answered a protocol error"
