"""A small WebChannel client for the Firestore emulator's browser streams, written from the protocol.

The Firestore web SDK runs its `Listen` and `Write` streams over Closure's WebChannel (the BrowserChannel
protocol, VER=8), configured in packages/firestore/src/platform/browser/webchannel_connection.ts of
firebase/firebase-js-sdk with `sendRawJson: true`, `encodeInitMessageHeaders: true`,
`httpSessionIdParam: 'gsessionid'` and `messageUrlParams: {database}`. This module speaks that protocol as
Closure's `goog.labs.net.webChannel` implements it (webchannelbase.js, channelrequest.js, wirev8.js) and
as shared/reference/firestore.md §9 summarizes it:

* Handshake (`open`): `POST <base>?VER=8&database=..&RID=<random>&CVER=22&X-HTTP-Session-Id=gsessionid&zx=..&t=1`
  with an `application/x-www-form-urlencoded` body `headers=<"Name:value\\r\\n"…>&count=N&ofs=0&req0___data__=<JSON>…`:
  the first messages travel with the handshake, the HTTP headers the SDK would send (Authorization …) in
  the `headers` field. The answer is array 0, `["c", SID, hostPrefix, 8, serverVersion, keepaliveMs]`, and
  an `X-HTTP-Session-Id` header whose value every later request carries as `gsessionid`.
* Forward channel (`send`): `POST …&SID=..&RID=<n>&AID=<last array id received>` with
  `count=K&ofs=<map id of the first>&req0___data__=…`; map ids count up across the session (the
  handshake's are 0..N-1); a retry repeats the same RID, `ofs` and maps (`resend`). Answer `[0|1, last array id
  queued, bytes not yet on a back channel]`.
* Back channel: `GET …&RID=rpc&SID=..&AID=<n>&CI=0|1&TYPE=xmlhttp`. `CI=0` streams (`start_streaming`):
  the response stays open and chunks are appended; `CI=1` long polls (`start_long_polling`): each response
  ends after one batch and the client asks again with its new AID.
* Every response body is a run of chunks `<length>\\n<JSON text>`, the length counting UTF-16 code units
  (what `responseText.slice` counts in a browser: channelrequest.js `getNextChunk_`), not bytes.
  `ChunkDecoder` decodes the bytes as UTF-8 incrementally and slices by UTF-16 units.
* Server → client: `[[arrayId, payload], …]`, ids consecutive from 0 (`c`); a payload is `["noop"]` (a
  keepalive, which takes an id too), `["close"]` / `["stop"]`, or `[message]` — the proto3 JSON
  ListenResponse / WriteResponse (or an RPC error `{"error":{"code","message","status"}}`) that the SDK reads
  as `data[0]`.
* `close`: `TYPE=terminate` with the SID (the browser sends it with `navigator.sendBeacon`, a POST).

Arrays are put on a queue in arrival order, whichever request carried them; `last_array_id` follows
Closure's `lastArrayId_` (the id of the last array received) and is sent as `AID`.
"""

from __future__ import annotations

import codecs
import json
import queue
import random
import re
import string
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable
from urllib.parse import quote

import requests

SERVICE = "google.firestore.v1.Firestore"
CLIENT_VERSION = 22  # CVER: Closure's WebChannelBase.clientVersion_
PROTOCOL_VERSION = 8  # VER
SDK_API_CLIENT = "gl-js/ fire/11.0.0"  # X-Goog-Api-Client as the SDK sets it (rest_connection.ts)
NOOP = ["noop"]


class ProtocolError(AssertionError):
    """The server broke the WebChannel wire format."""


# --------------------------------------------------------------------------------------------
# Chunk framing


def utf16_units(text: str) -> int:
    """The length of `text` in UTF-16 code units (JavaScript's `String.length`)."""
    return sum(2 if ord(c) > 0xFFFF else 1 for c in text)


class ChunkDecoder:
    """Splits a response body, fed as it arrives, into chunk texts: `<decimal length>\\n<text>` repeated,
    the length in UTF-16 code units (channelrequest.js `getNextChunk_` over `responseText`)."""

    SIZE = re.compile(r"[0-9]+")

    def __init__(self):
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors="strict")
        self._text = ""

    def feed(self, data: bytes) -> list[str]:
        """The chunks completed by `data`."""
        self._text += self._utf8.decode(data)
        chunks = []
        while True:
            chunk = self._next()
            if chunk is None:
                return chunks
            chunks.append(chunk)

    def finish(self) -> None:
        """The body ended: nothing may be left over (an incomplete chunk, a cut UTF-8 sequence)."""
        self._text += self._utf8.decode(b"", final=True)
        if self._text:
            raise ProtocolError(f"the response ended inside a chunk: {self._text[:200]!r}")

    def _next(self) -> str | None:
        newline = self._text.find("\n")
        if newline < 0:
            if self._text and not self.SIZE.fullmatch(self._text):
                raise ProtocolError(f"a chunk does not start with its length: {self._text[:200]!r}")
            return None
        size_text = self._text[:newline]
        if not self.SIZE.fullmatch(size_text):
            raise ProtocolError(f"a chunk does not start with its length: {self._text[:200]!r}")
        size = int(size_text)
        start = newline + 1
        units = 0
        end = start
        while units < size:
            if end == len(self._text):
                return None  # incomplete: wait for more
            units += 2 if ord(self._text[end]) > 0xFFFF else 1
            end += 1
        if units != size:
            raise ProtocolError(f"a chunk length of {size} UTF-16 units splits a surrogate pair: "
                                f"{self._text[start:end]!r}")
        chunk = self._text[start:end]
        self._text = self._text[end:]
        return chunk


def decode_body(body: bytes) -> list[Any]:
    """A whole response body's chunks, each parsed as JSON."""
    decoder = ChunkDecoder()
    chunks = decoder.feed(body)
    decoder.finish()
    return [json.loads(chunk) for chunk in chunks]


# --------------------------------------------------------------------------------------------
# Forward-channel encoding


def encode_uri_component(text: str) -> str:
    """JavaScript's encodeURIComponent."""
    return quote(text, safe="-_.!~*'()")


def raw_json(message: Any) -> str:
    """A message as `sendRawJson` sends it: JSON.stringify (compact, non-ASCII as is)."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


def encode_maps(messages: list[Any], offset: int) -> str:
    """wirev8.js `encodeMessageQueue` of `{__data__: JSON}` maps: `count=K&ofs=<first map id>&reqI___data__=…`
    (no `ofs` when there are no maps)."""
    parts = [f"count={len(messages)}"]
    if messages:
        parts.append(f"ofs={offset}")
    for index, message in enumerate(messages):
        parts.append(f"req{index}___data__={encode_uri_component(raw_json(message))}")
    return "&".join(parts)


def encode_headers(headers: dict[str, str]) -> str:
    """HttpCors `generateEncodedHttpHeadersOverwriteParam`: `Name:value\\r\\n` per header, URL-encoded."""
    return encode_uri_component("".join(f"{name}:{value}\r\n" for name, value in headers.items()))


def random_zx() -> str:
    """`zx`, the cache buster goog.Uri.makeUnique adds."""
    return "".join(random.choice(string.ascii_lowercase + string.digits) for _ in range(12))


# --------------------------------------------------------------------------------------------
# The channel


@dataclass
class Array:
    """One server array: its id, its payload and which request carried it ("handshake", "stream 1",
    "poll 3" …)."""

    id: int
    payload: list
    via: str

    @property
    def is_noop(self) -> bool:
        return self.payload == NOOP

    @property
    def message(self) -> Any:
        """The RPC message (`data[0]` in the SDK)."""
        return self.payload[0]


@dataclass
class ForwardRequest:
    """A forward-channel POST as sent, so that it can be retried exactly."""

    rid: int
    offset: int
    messages: list
    response: requests.Response | None = None

    @property
    def answer(self) -> list:
        """The parsed `[back channel open (1) or not (0), last array id, outstanding bytes]`."""
        chunks = decode_body(self.response.content)
        assert len(chunks) == 1, f"one chunk answers a forward POST: {chunks!r}"
        return chunks[0]


@dataclass
class BackChannel:
    """One back-channel GET and what became of it."""

    name: str
    aid: int
    status: int | None = None
    headers: dict = field(default_factory=dict)
    body: bytes = b""  # a long poll's whole body
    arrays: list = field(default_factory=list)
    error: BaseException | None = None
    done: threading.Event = field(default_factory=threading.Event)


class WebChannel:
    """One WebChannel session on `/google.firestore.v1.Firestore/<method>/channel` of a Firestore
    emulator at `host`, carrying `token` as the SDK does (in the handshake's `headers` field)."""

    def __init__(self, host: str, project: str, method: str, *, database: str = "(default)",
                 token: str | None = "owner", origin: str | None = None, http: requests.Session | None = None,
                 post_headers: dict | None = None):
        self.base = f"http://{host}/{SERVICE}/{method}/channel"
        self.post_headers = post_headers or {}
        self.database = f"projects/{project}/databases/{database}"
        self.token = token
        self.origin = origin
        self.http = http or requests.Session()
        self.sid: str | None = None
        self.http_session_id: str | None = None
        self.handshake: requests.Response | None = None
        self.handshake_arrays: list = []
        self.last_array_id = -1  # lastArrayId_
        self.arrays: queue.Queue[Array] = queue.Queue()
        self.received: list[Array] = []  # every array, in arrival order
        self.back_channels: list[BackChannel] = []
        self.closed = False
        self._next_rid = random.randrange(100_000)
        self._next_map_id = 0
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []

    # URLs -------------------------------------------------------------------------------------

    def _params(self, **extra) -> dict:
        """The parameters every request carries (createDataUri + addAdditionalParams_), then `extra`, then
        `zx` and `t` (ChannelRequest)."""
        params: dict = {"database": self.database}
        if self.http_session_id is not None:
            params["gsessionid"] = self.http_session_id
        params["VER"] = PROTOCOL_VERSION
        params.update(extra)
        params["zx"] = random_zx()
        params["t"] = 1
        return params

    def _headers(self, extra: dict | None = None, post: bool = False) -> dict:
        headers = {"Origin": self.origin} if self.origin else {}
        headers.update(extra or {})
        if post:
            headers.update(self.post_headers)
        return headers

    def _rid(self) -> int:
        rid = self._next_rid
        self._next_rid += 1
        return rid

    def init_headers(self) -> dict[str, str]:
        """The headers the SDK puts in `initMessageHeaders` (rest_connection.ts modifyHeadersForRequest)."""
        headers = {"X-Goog-Api-Client": SDK_API_CLIENT, "Content-Type": "text/plain"}
        if self.token is not None:
            headers["Authorization"] = f"Bearer {self.token}"
        return headers

    # Arrays ------------------------------------------------------------------------------------

    def _receive(self, batch: Any, via: str) -> list[Array]:
        """Records one chunk's arrays `[[id, payload], …]`."""
        if not isinstance(batch, list) or not all(isinstance(a, list) and len(a) == 2 for a in batch):
            raise ProtocolError(f"a chunk is a list of [id, payload] arrays: {batch!r}")
        arrays = []
        with self._lock:
            for array_id, payload in batch:
                if not isinstance(array_id, int) or not isinstance(payload, list):
                    raise ProtocolError(f"an array is [int id, list payload]: {[array_id, payload]!r}")
                array = Array(array_id, payload, via)
                self.last_array_id = array_id
                self.received.append(array)
                arrays.append(array)
        for array in arrays:
            self.arrays.put(array)
        return arrays

    def next_array(self, timeout: float = 10.0) -> Array:
        """The next array received (noops included)."""
        try:
            return self.arrays.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no array within {timeout} s; received so far: {self.received!r}; "
                                 f"back channels: {self.back_channels!r}") from None

    def next(self, timeout: float = 10.0) -> Any:
        """The next RPC message (noops skipped)."""
        while True:
            array = self.next_array(timeout)
            if not array.is_noop:
                return array.message

    def until(self, predicate: Callable[[Any], bool], timeout: float = 10.0) -> list[Any]:
        """Messages up to and including the first one matching `predicate`."""
        messages = []
        while True:
            message = self.next(timeout)
            messages.append(message)
            if predicate(message):
                return messages

    def pending(self) -> list[Array]:
        """The arrays received and not yet taken, without waiting."""
        arrays = []
        while True:
            try:
                arrays.append(self.arrays.get_nowait())
            except queue.Empty:
                return arrays

    # Handshake ----------------------------------------------------------------------------------

    def open(self, *messages: Any) -> requests.Response:
        """The handshake, with `messages` as the first maps (ids 0..N-1). Records the SID and the HTTP
        session id; returns the response (asserting only that it is a well-formed `c` array)."""
        rid = self._rid()
        body = "headers=" + encode_headers(self.init_headers()) + "&" + encode_maps(list(messages), 0)
        params = self._params(RID=rid, CVER=CLIENT_VERSION, **{"X-HTTP-Session-Id": "gsessionid"})
        response = self.http.post(
            self.base, params=params, data=body.encode(),
            headers=self._headers({"Content-Type": "application/x-www-form-urlencoded"}, post=True), timeout=10)
        self.handshake = response
        self._next_map_id = len(messages)
        if response.status_code != 200:
            return response
        chunks = decode_body(response.content)
        if not chunks or not chunks[0] or chunks[0][0][0] != 0 or chunks[0][0][1][0] != "c":
            raise ProtocolError(f"the handshake answers array 0 [\"c\", SID, …]: {chunks!r}")
        first, *rest = chunks[0]
        self.handshake_arrays = [first]
        self.sid = first[1][1]
        self.last_array_id = 0
        self.http_session_id = response.headers.get("X-HTTP-Session-Id")
        for batch in [chunks[0][1:], *chunks[1:]]:  # arrays after `c` in the handshake answer
            if batch:
                self._receive(batch, "handshake")
        return response

    # Forward channel ---------------------------------------------------------------------------------

    def send(self, *messages: Any) -> ForwardRequest:
        """Sends `messages` on the forward channel with the next map ids; returns the request (its answer
        asserted 200)."""
        request = ForwardRequest(rid=self._rid(), offset=self._next_map_id, messages=list(messages))
        self._next_map_id += len(messages)
        return self.resend(request)

    def retry(self, request: ForwardRequest, *more: Any) -> ForwardRequest:
        """Closure's retry of a failed forward POST (makeForwardChannelRequest_ with requeuePendingMaps_):
        the same RID and maps from the same `ofs`, plus maps queued since (`more`, the next map ids)."""
        retried = ForwardRequest(rid=request.rid, offset=request.offset, messages=[*request.messages, *more])
        self._next_map_id += len(more)
        return self.resend(retried)

    def resend(self, request: ForwardRequest, aid: int | None = None) -> ForwardRequest:
        """POSTs `request` (again: a retry keeps its RID, `ofs` and maps), acknowledging `aid` (default: the
        last array received)."""
        response = self.post(request, aid)
        assert response.status_code == 200, (
            f"forward channel POST: {response.status_code} {response.text[:2000]}")
        return request

    def post(self, request: ForwardRequest, aid: int | None = None) -> requests.Response:
        """The forward POST of `request`, whatever its answer."""
        aid = self.last_array_id if aid is None else aid
        params = self._params(SID=self.sid, RID=request.rid, AID=aid)
        response = self.http.post(
            self.base, params=params, data=encode_maps(request.messages, request.offset).encode(),
            headers=self._headers({"Content-Type": "application/x-www-form-urlencoded"}, post=True), timeout=10)
        request.response = response
        return response

    # Back channel -------------------------------------------------------------------------------------

    def back_channel_params(self, aid: int, long_poll: bool, timeout_ms: int | None = None) -> dict:
        extra: dict = {"RID": "rpc", "SID": self.sid, "AID": aid, "CI": 1 if long_poll else 0}
        if long_poll and timeout_ms:
            extra["TO"] = timeout_ms
        extra["TYPE"] = "xmlhttp"
        return self._params(**extra)

    def start_streaming(self, aid: int | None = None) -> BackChannel:
        """Opens a streaming back channel (CI=0) read by a thread until the server ends it."""
        back = BackChannel(f"stream {len(self.back_channels) + 1}", self.last_array_id if aid is None else aid)
        self.back_channels.append(back)
        self._spawn(self._stream, back)
        return back

    def _stream(self, back: BackChannel) -> None:
        try:
            response = self.http.get(self.base, params=self.back_channel_params(back.aid, False),
                                     headers=self._headers(), stream=True, timeout=(5, 40))
            with response:
                back.status, back.headers = response.status_code, dict(response.headers)
                if response.status_code != 200:
                    back.error = ProtocolError(f"back channel: {response.status_code} {response.text[:500]}")
                    return
                decoder = ChunkDecoder()
                for data in response.iter_content(chunk_size=None):
                    for chunk in decoder.feed(data):
                        back.arrays.extend(self._receive(json.loads(chunk), back.name))
                decoder.finish()
        except BaseException as error:  # noqa: BLE001 — recorded for the test to report
            if not self.closed:
                back.error = error
        finally:
            back.done.set()

    def poll(self, aid: int | None = None, timeout_ms: int | None = None) -> BackChannel:
        """One long-poll back channel (CI=1), synchronously."""
        back = BackChannel(f"poll {len(self.back_channels) + 1}", self.last_array_id if aid is None else aid)
        self.back_channels.append(back)
        try:
            response = self.http.get(self.base, params=self.back_channel_params(back.aid, True, timeout_ms),
                                     headers=self._headers(), timeout=(5, 40))
            back.status, back.headers, back.body = response.status_code, dict(response.headers), response.content
            if response.status_code == 200:
                for batch in decode_body(response.content):
                    back.arrays.extend(self._receive(batch, back.name))
        finally:
            back.done.set()
        return back

    def start_long_polling(self) -> None:
        """Long polls in a thread, as Closure does with `forceLongPolling`: a CI=1 GET, and after each
        answer the next with the new AID, until the channel closes or a poll fails."""
        self._spawn(self._long_poll)

    def _long_poll(self) -> None:
        while not self.closed:
            try:
                back = self.poll()
            except BaseException as error:  # noqa: BLE001
                if not self.closed:
                    self.back_channels[-1].error = error
                return
            if back.status != 200:
                if not self.closed:
                    back.error = ProtocolError(f"long poll answered {back.status}")
                return
            if not back.arrays:
                if not self.closed:
                    back.error = ProtocolError("a long poll answered no array (an empty body is an error)")
                return

    def _spawn(self, target, *args) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        self._threads.append(thread)
        thread.start()

    # Close ----------------------------------------------------------------------------------------------

    def terminate(self, method: str = "POST") -> requests.Response:
        """`TYPE=terminate` for this SID (POST with an empty body, as `navigator.sendBeacon` sends it; or
        GET, as an Image does)."""
        self.closed = True
        params = self._params(SID=self.sid, RID=self._rid(), TYPE="terminate")
        if method == "POST":
            return self.http.post(self.base, params=params, data=b"", headers=self._headers(post=True), timeout=10)
        return self.http.get(self.base, params=params, headers=self._headers(), timeout=10)

    def close(self) -> None:
        """Terminates the session (if open) and waits briefly for the reader threads to end."""
        if self.sid is not None and not self.closed:
            try:
                self.terminate()
            except requests.RequestException:
                pass
        self.closed = True
        for thread in self._threads:
            thread.join(timeout=3)
        self.http.close()


# --------------------------------------------------------------------------------------------
# Listen / Write message helpers


def listen_query(database: str, target_id: int, collection: str, parent: str = "", **extra) -> dict:
    """An addTarget for a query over `collection` under `parent` (a document path, "" for the root), as
    the browser SDK serializes it (toQueryTarget: the normalized order by `__name__`)."""
    structured = {"from": [{"collectionId": collection}],
                  "orderBy": [{"field": {"fieldPath": "__name__"}, "direction": "ASCENDING"}]}
    root = f"{database}/documents"
    target: dict = {"targetId": target_id,
                    "query": {"parent": f"{root}/{parent}" if parent else root, "structuredQuery": structured}}
    target.update(extra)
    return {"database": database, "addTarget": target}


def listen_documents(database: str, target_id: int, paths: Iterable[str], **extra) -> dict:
    target: dict = {"targetId": target_id,
                    "documents": {"documents": [f"{database}/documents/{path}" for path in paths]}}
    target.update(extra)
    return {"database": database, "addTarget": target}


def remove_target(database: str, target_id: int) -> dict:
    return {"database": database, "removeTarget": target_id}


def target_change(message: Any) -> dict | None:
    return message.get("targetChange") if isinstance(message, dict) else None


def is_global_snapshot(message: Any) -> bool:
    """`{"targetChange":{"resumeToken","readTime"}}`: NO_CHANGE (the default, omitted) for no target ids,
    with a read time."""
    change = target_change(message)
    return (change is not None and change.get("targetChangeType", "NO_CHANGE") == "NO_CHANGE"
            and not change.get("targetIds") and "readTime" in change)


def is_target_change(message: Any, change_type: str, target_id: int | None = None) -> bool:
    change = target_change(message)
    if change is None or change.get("targetChangeType", "NO_CHANGE") != change_type:
        return False
    return target_id is None or target_id in change.get("targetIds", [])


def significant(messages: list[Any]) -> list[tuple]:
    """A compact view of Listen messages without per-target NO_CHANGE: ("ADD", ids), ("doc", name, ids),
    ("CURRENT", ids), ("snapshot",), ("delete", name), ("remove", name), ("REMOVE", ids, cause code),
    ("filter", target id, count)."""
    view = []
    for message in messages:
        if "targetChange" in message:
            change = message["targetChange"]
            change_type = change.get("targetChangeType", "NO_CHANGE")
            ids = tuple(change.get("targetIds", []))
            if change_type == "NO_CHANGE":
                if is_global_snapshot(message):
                    view.append(("snapshot",))
            elif change_type == "REMOVE":
                view.append(("REMOVE", ids, change.get("cause", {}).get("code", 0)))
            else:
                view.append((change_type, ids))
        elif "documentChange" in message:
            change = message["documentChange"]
            view.append(("doc", change["document"]["name"], tuple(change.get("targetIds", []))))
        elif "documentDelete" in message:
            view.append(("delete", message["documentDelete"]["document"]))
        elif "documentRemove" in message:
            view.append(("remove", message["documentRemove"]["document"]))
        elif "filter" in message:
            view.append(("filter", message["filter"].get("targetId", 0), message["filter"].get("count", 0)))
        else:
            view.append(tuple(message))
    return view
