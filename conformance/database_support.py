"""Helpers for the Realtime Database conformance tests: a namespace per test, a REST client, rules upload,
unsigned ID tokens, the wire protocol v5 WebSocket client the JS/iOS SDKs speak (request/response matching,
server pushes in arrival order, frame splitting both ways), a Server-Sent-Events reader, the node hash the
SDKs send for transactions, and a tiny JSON tree to apply data pushes to.

The wire facts come from shared/reference/realtime-database.md, which was read off:
- firebase-js-sdk `packages/database/src/realtime/{Constants,Connection,WebSocketConnection}.ts` (envelope
  `{"t":"c"|"d","d":…}`, WEBSOCKET_MAX_FRAME_SIZE 16384, a frame of <= 6 characters that parses as a number is a
  frame count, keepalive frame `0`), `core/PersistentConnection.ts` (request shapes `{"r","a","b"}`, `q`/`n`/
  `p`/`m`/`o`/`om`/`oc`/`g`/`s`/`auth`/`gauth`/`unauth`, responses `{"r","b":{"s","d"}}`, pushes `d`/`m`/`c`),
  `core/view/QueryParams.ts` (the query object `i`/`sp`/`sin`/`ep`/`ein`/`l`/`vf`), `core/snap/{LeafNode,
  ChildrenNode}.ts` (the node hash), `core/util/util.ts` (nameCompare);
- firebase-admin-python `firebase_admin/db.py` and `_sseclient.py` (REST with `Bearer owner`, SSE events);
- firebase.google.com/docs/reference/rest/database and /docs/database/rest/* (REST, ETags, streaming).
"""

from __future__ import annotations

import base64
import hashlib
import json
import queue
import socket
import struct
import threading
import time
import urllib.parse
import uuid
from pathlib import Path
from typing import Any, Callable

import pytest
import requests

from firestore_support import id_token

OWNER = "owner"  # `Authorization: Bearer owner` (REST) / gauth `cred: "owner"` (WebSocket) = admin
TIMEOUT = 10.0
MAX_FRAME = 16384  # WEBSOCKET_MAX_FRAME_SIZE (client → server splitting)
PUSH_ID_CHARS = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "database"
CHAT_RULES = (FIXTURES / "chat.rules.json").read_text()
PERMISSION_DENIED = {"s": "permission_denied", "d": "Permission denied"}
OK_WRITE = {"s": "ok", "d": ""}
OK_LISTEN = {"s": "ok", "d": {}}
SERVER_TIMESTAMP = {".sv": "timestamp"}


def increment(delta: float) -> dict:
    return {".sv": {"increment": delta}}


def new_namespace() -> str:
    """A database name no other test uses."""
    return "t" + uuid.uuid4().hex[:12]


def now_ms() -> int:
    return int(time.time() * 1000)


# --------------------------------------------------------------------------------------------
# Fixtures


@pytest.fixture(scope="session")
def database_host(suite) -> str:
    """"127.0.0.1:PORT" of the Realtime Database emulator, as in FIREBASE_DATABASE_EMULATOR_HOST."""
    assert suite.database_host, "the suite under test has no Realtime Database emulator"
    return suite.database_host


@pytest.fixture
def ns() -> str:
    return new_namespace()


@pytest.fixture
def owner(database_host, ns) -> "DatabaseRest":
    """REST as admin (`Authorization: Bearer owner`) on this test's namespace."""
    return DatabaseRest(database_host, ns, OWNER)


@pytest.fixture
def anonymous(database_host, ns) -> "DatabaseRest":
    """REST without credentials on this test's namespace."""
    return DatabaseRest(database_host, ns)


@pytest.fixture
def sockets(database_host, ns):
    """A factory of WebSocket connections to this test's namespace; all are closed at the end."""
    opened: list[DatabaseSocket] = []

    def connect(token: str | None = None, *, admin: bool = False, namespace: str | None = None) -> DatabaseSocket:
        connection = DatabaseSocket(database_host, namespace or ns)
        opened.append(connection)
        if admin:
            assert connection.call("gauth", {"cred": OWNER})["s"] == "ok"
        elif token is not None:
            assert connection.call("auth", {"cred": token})["s"] == "ok"
        return connection

    yield connect
    for connection in opened:
        connection.close()


# --------------------------------------------------------------------------------------------
# Tokens and rules


def user_token(project: str, uid: str, **claims) -> str:
    """An unsigned ID token (alg none, empty signature) for `uid`, as the Auth emulator mints it."""
    return id_token(uid, project, **claims)


def put_rules(host: str, namespace: str, rules: str | dict, token: str | None = OWNER) -> requests.Response:
    """`PUT /.settings/rules.json?ns=` with the rules text (what firebase-tools and rules-unit-testing send)."""
    text = rules if isinstance(rules, str) else json.dumps(rules, indent=2)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return requests.put(f"http://{host}/.settings/rules.json", params={"ns": namespace}, data=text.encode(),
                        headers=headers, timeout=TIMEOUT)


def load_rules(host: str, namespace: str, rules: str | dict) -> None:
    response = put_rules(host, namespace, rules)
    assert response.status_code == 200, f"rules refused: {response.status_code} {response.text}"


def get_rules(host: str, namespace: str) -> requests.Response:
    return requests.get(f"http://{host}/.settings/rules.json", params={"ns": namespace},
                        headers={"Authorization": f"Bearer {OWNER}"}, timeout=TIMEOUT)


def strip_comments(text: str) -> str:
    """The rules text without // and /* */ comments (outside strings), so it parses as JSON."""
    out, i, in_string = [], 0, False
    while i < len(text):
        c = text[i]
        if in_string:
            out.append(c)
            if c == "\\" and i + 1 < len(text):
                out.append(text[i + 1])
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
            out.append(c)
        elif text.startswith("//", i):
            while i < len(text) and text[i] != "\n":
                i += 1
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = len(text) if end < 0 else end + 2
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


# --------------------------------------------------------------------------------------------
# REST


_NO_BODY = object()


class DatabaseRest:
    """`http://host/<path>.json?ns=<ns>` with an optional credential: sent as `Authorization: Bearer`
    (`via="header"`), as `?auth=` (`via="auth"`) or as `?access_token=` (`via="access_token"`)."""

    def __init__(self, host: str, namespace: str, token: str | None = None, via: str = "header"):
        self.host = host
        self.namespace = namespace
        self.token = token
        self.via = via
        self.http = requests.Session()

    def with_token(self, token: str | None, via: str = "header") -> "DatabaseRest":
        return DatabaseRest(self.host, self.namespace, token, via)

    def url(self, path: str) -> str:
        path = path.strip("/")
        return f"http://{self.host}/{path}.json" if path else f"http://{self.host}/.json"

    def request(self, method: str, path: str, body: Any = _NO_BODY, *, data: bytes | str | None = None,
                params: dict | None = None, headers: dict | None = None, **kwargs) -> requests.Response:
        query = {"ns": self.namespace}
        all_headers = dict(headers or {})
        if self.token is not None:
            if self.via == "header":
                all_headers.setdefault("Authorization", f"Bearer {self.token}")
            else:
                query[self.via] = self.token
        query.update(params or {})
        if body is not _NO_BODY:
            data = json.dumps(body)
        return self.http.request(method, self.url(path), params=query, data=data, headers=all_headers,
                                 timeout=TIMEOUT, **kwargs)

    def get(self, path: str, **params) -> requests.Response:
        return self.request("GET", path, params=params)

    def put(self, path: str, value: Any, **params) -> requests.Response:
        return self.request("PUT", path, value, params=params)

    def patch(self, path: str, value: Any, **params) -> requests.Response:
        return self.request("PATCH", path, value, params=params)

    def post(self, path: str, value: Any, **params) -> requests.Response:
        return self.request("POST", path, value, params=params)

    def delete(self, path: str, **params) -> requests.Response:
        return self.request("DELETE", path, params=params)

    def value(self, path: str, **params) -> Any:
        """GET that must succeed; the decoded JSON."""
        response = self.get(path, **params)
        assert response.status_code == 200, f"GET {path}: {response.status_code} {response.text}"
        return response.json()

    def set(self, path: str, value: Any) -> None:
        """PUT that must succeed."""
        response = self.put(path, value)
        assert response.status_code == 200, f"PUT {path}: {response.status_code} {response.text}"

    def wait_value(self, path: str, predicate: Callable[[Any], bool], timeout: float = TIMEOUT, **params) -> Any:
        """Reads `path` until `predicate(value)` holds (for effects of another connection going away)."""
        deadline = time.monotonic() + timeout
        value = None
        while time.monotonic() < deadline:
            value = self.value(path, **params)
            if predicate(value):
                return value
            time.sleep(0.05)
        raise AssertionError(f"{path} never satisfied the condition within {timeout} s; last value {value!r}")


def rest_error(response: requests.Response, status: int, message: str | None = None) -> str:
    """Asserts the RTDB REST error shape `{"error": "<text>"}` with `status`; returns the text."""
    assert response.status_code == status, f"expected {status}, got {response.status_code}: {response.text}"
    body = response.json()
    assert isinstance(body, dict) and set(body) == {"error"}, body
    assert isinstance(body["error"], str) and body["error"], body
    if message is not None:
        assert body["error"] == message, body
    return body["error"]


def rest_denied(response: requests.Response) -> None:
    rest_error(response, 401, "Permission denied")


def is_push_id(name: Any) -> bool:
    return isinstance(name, str) and len(name) == 20 and all(c in PUSH_ID_CHARS for c in name)


def push_id_time(name: str) -> int:
    """The ms timestamp in the first 8 characters of a push id."""
    value = 0
    for c in name[:8]:
        value = value * 64 + PUSH_ID_CHARS.index(c)
    return value


# --------------------------------------------------------------------------------------------
# Key order and the node hash (what clients send as `h`)

_INT_MIN, _INT_MAX = -(2 ** 31), 2 ** 31 - 1


def _int_key(key: str) -> int | None:
    body = key[1:] if key.startswith("-") else key
    if body.isdigit() and body.isascii() and 1 <= len(body.lstrip("0") or "0") <= 10:
        value = int(key)
        if _INT_MIN <= value <= _INT_MAX:
            return value
    return None


def name_compare(a: str, b: str) -> int:
    """Firebase key order: 32-bit integer keys numerically first (ties: shorter first), then strings."""
    if a == b:
        return 0
    ia, ib = _int_key(a), _int_key(b)
    if ia is not None and ib is not None:
        if ia != ib:
            return -1 if ia < ib else 1
        return -1 if len(a) < len(b) else 1
    if ia is not None:
        return -1
    if ib is not None:
        return 1
    return -1 if a < b else 1


def sort_keys(keys) -> list[str]:
    import functools

    return sorted(keys, key=functools.cmp_to_key(name_compare))


def _double_hex(value: float) -> str:
    return struct.pack(">d", float(value)).hex()


def _priority_text(priority: Any) -> str:
    if isinstance(priority, (int, float)) and not isinstance(priority, bool):
        return "number:" + _double_hex(priority)
    return "string:" + str(priority)


def _sha1_b64(text: str) -> str:
    return base64.b64encode(hashlib.sha1(text.encode()).digest()).decode()


def node_hash(value: Any) -> str:
    """The hash of a node in export format (LeafNode/ChildrenNode.hash in the JS SDK); "" for empty."""
    if isinstance(value, list):
        value = {str(i): v for i, v in enumerate(value) if v is not None}
    if value is None:
        return ""
    priority = None
    if isinstance(value, dict):
        priority = value.get(".priority")
        if ".value" in value:
            value = value[".value"]
    prefix = f"priority:{_priority_text(priority)}:" if priority is not None else ""
    if isinstance(value, dict):
        children = {k: v for k, v in value.items() if k != ".priority"}

        def priority_key(item):
            child = item[1]
            p = child.get(".priority") if isinstance(child, dict) else None
            if p is None:
                return (0, 0, "")
            if isinstance(p, (int, float)):
                return (1, p, "")
            return (2, 0, p)

        import functools

        def compare(x, y):
            px, py = priority_key(x), priority_key(y)
            if px != py:
                return -1 if px < py else 1
            return name_compare(x[0], y[0])

        text = prefix
        for key, child in sorted(children.items(), key=functools.cmp_to_key(compare)):
            child_hash = node_hash(child)
            if child_hash:
                text += f":{key}:{child_hash}"
        return _sha1_b64(text) if text else ""
    if isinstance(value, bool):
        leaf = "boolean:" + ("true" if value else "false")
    elif isinstance(value, (int, float)):
        leaf = "number:" + _double_hex(value)
    else:
        leaf = "string:" + value
    return _sha1_b64(prefix + leaf)


# --------------------------------------------------------------------------------------------
# A JSON tree to apply pushes to (null deletes, empty parents vanish, arrays are maps)


def normalize(value: Any) -> Any:
    """A value as the tree holds it: arrays become maps with index keys, nulls and empty maps vanish."""
    if isinstance(value, list):
        value = {str(i): v for i, v in enumerate(value)}
    if isinstance(value, dict):
        result = {}
        for key, child in value.items():
            child = normalize(child)
            if child is not None:
                result[key] = child
        return result or None
    return value


def split_path(path: str) -> list[str]:
    return [part for part in path.split("/") if part]


def set_at(tree: Any, path: list[str] | str, value: Any) -> Any:
    """`tree` with `value` at `path` (a key list or "a/b"), as a put would leave it."""
    keys = split_path(path) if isinstance(path, str) else path
    if not keys:
        return normalize(value)
    node = dict(tree) if isinstance(tree, dict) else {}
    node[keys[0]] = set_at(node.get(keys[0]), keys[1:], value)
    if node[keys[0]] is None:
        del node[keys[0]]
    return node or None


def get_at(tree: Any, path: list[str] | str) -> Any:
    keys = split_path(path) if isinstance(path, str) else path
    for key in keys:
        if not isinstance(tree, dict):
            return None
        tree = tree.get(key)
    return tree


def merge_at(tree: Any, path: str, changes: dict) -> Any:
    for relative, value in changes.items():
        tree = set_at(tree, split_path(path) + split_path(relative), value)
    return tree


def apply_pushes(pushes: list[dict], tree: Any = None, tag: int | None = None) -> Any:
    """The root tree after applying data pushes (`d` overwrite, `m` merge) in order, as the SDK's cache
    would; with `tag`, only the pushes carrying that tag, otherwise only untagged ones."""
    for push in pushes:
        body = push["b"]
        if body.get("t") != tag:
            continue
        if push["a"] == "d":
            tree = set_at(tree, body["p"], body["d"])
        elif push["a"] == "m":
            tree = merge_at(tree, body["p"], body["d"])
    return tree


# --------------------------------------------------------------------------------------------
# WebSocket (wire protocol v5)


class ConnectionClosed(Exception):
    pass


class DatabaseSocket:
    """One `ws://host/.ws?v=5&ns=…` connection. Every envelope the server sends is kept in `messages`, in
    arrival order (frame counts honoured and reassembled), so tests can check what came before what."""

    def __init__(self, host: str, namespace: str, *, timeout: float = TIMEOUT, query: str = ""):
        import websocket

        self.url = f"ws://{host}/.ws?v=5&ns={urllib.parse.quote(namespace)}{query}"
        self.ws = websocket.create_connection(self.url, timeout=timeout)
        self.timeout = timeout
        self.frames: list[str] = []
        self.messages: list[dict] = []
        self.closed = False
        self.next_request = 1
        self.hello = self.read_envelope(time.monotonic() + timeout)

    # Sending ---------------------------------------------------------------------------------

    def send_raw(self, text: str) -> None:
        self.ws.send(text)

    def send_envelope(self, envelope: dict) -> None:
        """Serializes like the JS SDK: above 16384 characters, a count frame then the parts."""
        text = json.dumps(envelope, separators=(",", ":"))
        if len(text) <= MAX_FRAME:
            self.ws.send(text)
            return
        parts = [text[i:i + MAX_FRAME] for i in range(0, len(text), MAX_FRAME)]
        self.ws.send(str(len(parts)))
        for part in parts:
            self.ws.send(part)

    def send_request(self, action: str, body: dict) -> int:
        request = self.next_request
        self.next_request += 1
        self.send_envelope({"t": "d", "d": {"r": request, "a": action, "b": body}})
        return request

    # Receiving -------------------------------------------------------------------------------

    def _recv(self, deadline: float) -> str:
        import websocket

        if self.closed:
            raise ConnectionClosed("connection already closed")
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("deadline passed")
        self.ws.settimeout(remaining)
        try:
            frame = self.ws.recv()
        except websocket.WebSocketTimeoutException as error:
            raise TimeoutError(str(error)) from error
        except (websocket.WebSocketConnectionClosedException, ConnectionError, OSError) as error:
            self.closed = True
            raise ConnectionClosed(str(error)) from error
        if frame == "" and not self.ws.connected:
            self.closed = True
            raise ConnectionClosed("closed by the server")
        if isinstance(frame, bytes):
            frame = frame.decode()
        self.frames.append(frame)
        return frame

    def read_envelope(self, deadline: float) -> dict:
        """The next server envelope; a frame of <= 6 characters that is a number announces that many parts."""
        frame = self._recv(deadline)
        if len(frame) <= 6 and frame.strip().isdigit():
            count = int(frame)
            frame = "".join(self._recv(deadline) for _ in range(count))
        message = json.loads(frame)
        self.messages.append(message)
        return message

    def wait_for(self, predicate: Callable[[dict], bool], timeout: float | None = None, start: int = 0,
                 what: str = "message") -> int:
        """Index in `messages` of the first envelope at or after `start` for which `predicate` holds,
        reading more from the socket as needed."""
        deadline = time.monotonic() + (timeout if timeout is not None else self.timeout)
        index = start
        while True:
            while index < len(self.messages):
                if predicate(self.messages[index]):
                    return index
                index += 1
            try:
                self.read_envelope(deadline)
            except TimeoutError:
                raise AssertionError(
                    f"no {what} within the timeout; received: {json.dumps(self.messages[start:])[:3000]}"
                ) from None
            except ConnectionClosed:
                raise AssertionError(
                    f"connection closed before {what}; received: {json.dumps(self.messages[start:])[:3000]}"
                ) from None

    def response_index(self, request: int, timeout: float | None = None) -> int:
        return self.wait_for(lambda m: is_response(m, request), timeout, what=f"response to request {request}")

    def response(self, request: int, timeout: float | None = None) -> dict:
        """The `b` (`{"s","d"}`) of the response to `request`."""
        return self.messages[self.response_index(request, timeout)]["d"]["b"]

    def call(self, action: str, body: dict, timeout: float | None = None) -> dict:
        return self.response(self.send_request(action, body), timeout)

    def pushes(self, start: int = 0, end: int | None = None, action: str | None = None) -> list[dict]:
        """Server data pushes (`{"a","b"}` without `r`) in `messages[start:end]`, as `{"a": …, "b": …}`."""
        found = []
        for message in self.messages[start:end]:
            if is_push(message) and (action is None or message["d"]["a"] == action):
                found.append(message["d"])
        return found

    def wait_push(self, predicate: Callable[[dict], bool], timeout: float | None = None, start: int = 0) -> dict:
        """The first push (`{"a","b"}`) at or after `start` matching `predicate`."""
        index = self.wait_for(lambda m: is_push(m) and predicate(m["d"]), timeout, start, what="matching push")
        return self.messages[index]["d"]

    def barrier(self) -> None:
        """A stats round trip: everything the server queued for this connection before it is now in."""
        assert self.call("s", {"c": {"sdk.py.conformance": 1}})["s"] == "ok"

    def wait_closed(self, timeout: float = TIMEOUT) -> bool:
        """Reads until the server closes the connection; False if it stays open for `timeout`."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.read_envelope(deadline)
            except ConnectionClosed:
                return True
            except TimeoutError:
                return False
            except ValueError:
                continue  # not JSON: whatever it was, keep reading

    # SDK-shaped requests -----------------------------------------------------------------------

    def auth(self, token: str) -> dict:
        return self.call("auth", {"cred": token})

    def listen(self, path: str, query: dict | None = None, tag: int | None = None, hash: str = "") -> tuple[int, int]:
        """Sends `q` like the SDK and waits for its response; (request index, response index)."""
        body: dict[str, Any] = {"p": path, "h": hash}
        if query is not None:
            body["q"] = query
        if tag is not None:
            body["t"] = tag
        start = len(self.messages)
        request = self.send_request("q", body)
        return start, self.response_index(request)

    def put(self, path: str, data: Any, hash: str | None = None) -> dict:
        body = {"p": path, "d": data}
        if hash is not None:
            body["h"] = hash
        return self.call("p", body)

    def merge(self, path: str, data: dict) -> dict:
        return self.call("m", {"p": path, "d": data})

    def get(self, path: str, query: dict | None = None) -> dict:
        return self.call("g", {"p": path, "q": query or {}})

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            try:
                self.ws.close(timeout=1)
            except Exception:  # noqa: BLE001 - already gone is fine
                pass


def is_response(message: dict, request: int | None = None) -> bool:
    body = message.get("d")
    return (message.get("t") == "d" and isinstance(body, dict) and "r" in body
            and (request is None or body["r"] == request))


def is_push(message: dict) -> bool:
    body = message.get("d")
    return message.get("t") == "d" and isinstance(body, dict) and "a" in body and "r" not in body


def assert_listen_ok(body: dict) -> None:
    """A listen's ok: `{"s":"ok","d":{}}`, for a query on an unindexed child possibly with the warning
    `{"w":["no_index"]}` production adds (the SDK logs it)."""
    assert body["s"] == "ok", body
    assert body["d"] in ({}, {"w": ["no_index"]}), body


def data_push(path: str, data: Any, tag: int | None = None) -> dict:
    """The push `{"a":"d","b":{"p","d"[,"t"]}}` (path without leading slash)."""
    body = {"p": path.strip("/"), "d": data}
    if tag is not None:
        body["t"] = tag
    return {"a": "d", "b": body}


# --------------------------------------------------------------------------------------------
# A client in another process (killed to test onDisconnect)

CHILD_CLIENT = """
import json, sys, time
sys.path.insert(0, {directory!r})
from database_support import DatabaseSocket
connection = DatabaseSocket({host!r}, {namespace!r})
for action, body in json.loads({requests!r}):
    reply = connection.call(action, body)
    print(json.dumps([action, reply]), flush=True)
print("ready", flush=True)
while True:
    time.sleep(60)
"""


def spawn_client(host: str, namespace: str, requests_to_send: list[tuple[str, dict]]):
    """Starts `python -c …` that connects, sends `requests_to_send` one by one (waiting for each response),
    prints `[action, reply]` lines then `ready`, and idles until killed. Returns (process, replies)."""
    import subprocess
    import sys

    code = CHILD_CLIENT.format(directory=str(Path(__file__).resolve().parent), host=host, namespace=namespace,
                               requests=json.dumps(requests_to_send))
    process = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    replies = []
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        line = line.strip()
        if line == "ready":
            return process, replies
        replies.append(json.loads(line))
    process.kill()
    process.wait()
    raise AssertionError(f"child client did not get ready: {replies} {process.stderr.read()}")


# --------------------------------------------------------------------------------------------
# Server-Sent Events (REST streaming)


class EventStream:
    """`GET <path>.json` with `Accept: text/event-stream` over a plain socket. A 200 event stream is read by a
    thread into `events` as (event name, parsed data); any other response keeps its status and body."""

    def __init__(self, host: str, path: str, params: dict, headers: dict | None = None, timeout: float = TIMEOUT):
        hostname, _, port = host.rpartition(":")
        self.sock = socket.create_connection((hostname.strip("[]"), int(port)), timeout=timeout)
        path = path.strip("/")
        target = (f"/{path}.json" if path else "/.json") + "?" + urllib.parse.urlencode(params)
        lines = [f"GET {target} HTTP/1.1", f"Host: {host}", "Accept: text/event-stream", "Cache-Control: no-cache"]
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        self.buffer = b""
        self._stop = False
        head = self._read_until(b"\r\n\r\n", time.monotonic() + timeout)
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        self.status = int(status_line.split(" ")[1])
        self.headers = {}
        for line in header_lines:
            name, _, value = line.partition(":")
            self.headers[name.strip().lower()] = value.strip()
        self.chunked = "chunked" in self.headers.get("transfer-encoding", "").lower()
        self.events: queue.Queue = queue.Queue()
        self.ended = threading.Event()
        self.body = b""
        if self.status == 200 and self.headers.get("content-type", "").startswith("text/event-stream"):
            self.thread = threading.Thread(target=self._pump, daemon=True)
            self.thread.start()
        else:
            self.body = self._read_body(time.monotonic() + timeout)
            self.sock.close()

    def _fill(self, deadline: float | None) -> bool:
        while True:
            if self._stop:
                return False
            if deadline is not None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError("stream read timed out")
                self.sock.settimeout(min(remaining, 0.25))
            else:
                self.sock.settimeout(0.25)
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                return False
            if not data:
                return False
            self.buffer += data
            return True

    def _read_until(self, marker: bytes, deadline: float | None) -> bytes:
        while marker not in self.buffer:
            if not self._fill(deadline):
                raise ConnectionClosed("stream ended")
        head, _, self.buffer = self.buffer.partition(marker)
        return head

    def _read_exact(self, count: int, deadline: float | None) -> bytes:
        while len(self.buffer) < count:
            if not self._fill(deadline):
                raise ConnectionClosed("stream ended")
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def _body_pieces(self, deadline: float | None):
        if self.chunked:
            while True:
                size = int(self._read_until(b"\r\n", deadline).split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    return
                yield self._read_exact(size, deadline)
                self._read_exact(2, deadline)
        elif "content-length" in self.headers:
            yield self._read_exact(int(self.headers["content-length"]), deadline)
        else:
            if self.buffer:
                data, self.buffer = self.buffer, b""
                yield data
            while self._fill(deadline):
                data, self.buffer = self.buffer, b""
                yield data

    def _read_body(self, deadline: float) -> bytes:
        try:
            return b"".join(self._body_pieces(deadline))
        except ConnectionClosed:
            return b""

    def _pump(self) -> None:
        text = ""
        try:
            for piece in self._body_pieces(None):
                text += piece.decode()
                text = text.replace("\r\n", "\n")
                while "\n\n" in text:
                    block, text = text.split("\n\n", 1)
                    name, data = "message", []
                    for line in block.split("\n"):
                        field, _, value = line.partition(":")
                        value = value[1:] if value.startswith(" ") else value
                        if field == "event":
                            name = value
                        elif field == "data":
                            data.append(value)
                    raw = "\n".join(data)
                    try:
                        parsed = json.loads(raw) if raw else None
                    except ValueError:
                        parsed = raw
                    self.events.put((name, parsed))
        except (ConnectionClosed, OSError, TimeoutError):
            pass
        finally:
            self.ended.set()
            self.events.put(("<end>", None))

    def next_event(self, timeout: float = TIMEOUT, skip_keep_alive: bool = True) -> tuple[str, Any]:
        """The next (event, data); keep-alive events are skipped; ("<end>", None) once the stream ended."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError("no event on the stream within the timeout")
            try:
                event = self.events.get(timeout=remaining)
            except queue.Empty:
                raise AssertionError("no event on the stream within the timeout") from None
            if event[0] == "<end>":
                self.events.put(event)  # stays ended
            if skip_keep_alive and event[0] == "keep-alive":
                continue
            return event

    def json_body(self) -> Any:
        return json.loads(self.body.decode())

    def close(self) -> None:
        self._stop = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


def open_stream(host: str, namespace: str, path: str, *, token: str | None = None, via: str = "header",
                **params) -> EventStream:
    """An SSE stream at `path` of `namespace`, optionally with a credential (header Bearer or ?auth=)."""
    query = {"ns": namespace, **params}
    headers = {}
    if token is not None:
        if via == "header":
            headers["Authorization"] = f"Bearer {token}"
        else:
            query[via] = token
    return EventStream(host, path, query, headers)
