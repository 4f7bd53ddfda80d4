"""The browser SDK's streams over WebChannel: `Listen` and `Write` at
`/google.firestore.v1.Firestore/{Listen,Write}/channel`, on the emulator's REST port.

Driven by firestore_webchannel_support.WebChannel, a client written from Closure's BrowserChannel (VER=8)
implementation (webchannelbase.js, channelrequest.js, wirev8.js) configured as the web SDK configures it
(webchannel_connection.ts: `sendRawJson`, `encodeInitMessageHeaders`, `httpSessionIdParam: 'gsessionid'`).
Expected behaviour is what that client relies on and what production serves it (shared/reference/
firestore.md §5, §6, §9):
  - the handshake answers array 0 `["c", SID, "", 8, …]` with an `X-HTTP-Session-Id` header, CORS-exposed
    to the page's origin with credentials;
  - every body is length-prefixed chunks whose lengths count UTF-16 code units;
  - server arrays are numbered consecutively from 1 on the back channel (`noop`s included), unacknowledged
    arrays are re-sent to a new back channel, forward-channel maps are delivered once however often a POST
    is retried;
  - the messages are the gRPC ones in proto3 JSON: Listen gives ADD, the documents, CURRENT, a global
    NO_CHANGE snapshot, then changes + snapshots; a target the rules deny is removed with cause 7; a Write
    stream hands out a stream token, then answers each batch with a new token, a commit time and write
    results; an RPC error is a payload `[{"error":{"code","message","status"}}]`;
  - `TYPE=terminate` ends the session: the SID is then unknown (400 "Unknown SID").

Every queue wait is ≤ 10 s, every channel is terminated at the end of its test.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from firestore_support import (
    to_milliseconds,
    PERMISSION_DENIED_MESSAGE,
    Firestore,
    data_of,
    delete,
    firestore_host,  # noqa: F401 (fixture)
    id_token,
    new_project,
    ok,
    update,
)
from firestore_webchannel_support import (
    ForwardRequest,
    WebChannel,
    decode_body,
    is_global_snapshot,
    is_target_change,
    listen_documents,
    listen_query,
    remove_target,
    significant,
    utf16_units,
)

pytestmark = pytest.mark.timeout(90)

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "firestore"
ORIGIN = "http://localhost:5173"
STAMP = [{"fieldPath": "timestamp", "setToServerValue": "REQUEST_TIME"}]


# --------------------------------------------------------------------------------------------
# Fixtures and helpers


@pytest.fixture
def db(firestore_host) -> Firestore:
    """The REST admin client of a fresh project."""
    return Firestore(firestore_host, new_project(), token="owner")


# Hearth answers a channel's POSTs on the connection's event loop, and passes a POST it cannot take there (on
# a connection closing after it, say) to its server's responder: every test runs both ways. A server that
# answers every POST one way (the official emulator) runs each test twice alike.
POST_PATHS = {"event-loop": {}, "responder": {"Connection": "close"}}


@pytest.fixture(params=list(POST_PATHS))
def channels(firestore_host, request):
    """A factory of WebChannels on the emulator; all are terminated at the end of the test."""
    made: list[WebChannel] = []

    def make(project: str, method: str, **kwargs) -> WebChannel:
        kwargs.setdefault("post_headers", POST_PATHS[request.param])
        channel = WebChannel(firestore_host, project, method, **kwargs)
        made.append(channel)
        return channel

    yield make
    for channel in made:
        channel.close()


def open_listen(channels, db: Firestore, first: dict, *, token: str | None = "owner", long_poll: bool = False,
                origin: str | None = None) -> WebChannel:
    """A Listen channel opened with `first` in its handshake and its back channel started."""
    channel = channels(db.project, "Listen", token=token, origin=origin)
    response = channel.open(first)
    assert response.status_code == 200, f"handshake: {response.status_code} {response.text[:2000]}"
    if long_poll:
        channel.start_long_polling()
    else:
        channel.start_streaming()
    return channel


def open_write(channels, db: Firestore, *, token: str | None = "owner") -> tuple[WebChannel, str]:
    """A Write channel after its handshake exchange; returns it and the first stream token."""
    channel = channels(db.project, "Write", token=token)
    response = channel.open({"database": db.database_name})
    assert response.status_code == 200, f"handshake: {response.status_code} {response.text[:2000]}"
    channel.start_streaming()
    first = channel.next()
    assert "error" not in first, first
    assert isinstance(first.get("streamId"), str) and first["streamId"], first
    assert isinstance(first.get("streamToken"), str) and first["streamToken"], first
    assert not first.get("writeResults"), "the handshake response has no write results"
    return channel, first["streamToken"]


def assert_initial_sequence(messages: list[dict], target_id: int, names: list[str]) -> None:
    """ADD, a documentChange per document (in order), CURRENT with a resume token, the global snapshot."""
    assert significant(messages) == [
        ("ADD", (target_id,)),
        *[("doc", name, (target_id,)) for name in names],
        ("CURRENT", (target_id,)),
        ("snapshot",),
    ], messages
    current = next(m for m in messages if is_target_change(m, "CURRENT", target_id))["targetChange"]
    assert isinstance(current.get("resumeToken"), str) and current["resumeToken"], current
    snapshot = messages[-1]["targetChange"]
    assert set(snapshot) == {"resumeToken", "readTime"}, (
        f"a global snapshot is NO_CHANGE (omitted), no target ids, a resume token and a read time: {snapshot}")
    assert snapshot["resumeToken"], snapshot


def assert_consecutive(channel: WebChannel, first_id: int = 1) -> None:
    """The arrays received so far are numbered first_id, first_id + 1, … in arrival order."""
    ids = [array.id for array in channel.received]
    assert ids == list(range(first_id, first_id + len(ids))), f"array ids are consecutive: {ids}"


def is_error(message) -> bool:
    return isinstance(message, dict) and "error" in message


def write_payloads(channel: WebChannel) -> list:
    return [array.message for array in channel.received if not array.is_noop]


def chat_project(db: Firestore) -> None:
    """Loads the chat rules on db's project, with conversation c1 between alice and bob."""
    response = db.load_rules((FIXTURES / "chat.rules").read_text())
    assert response.status_code == 200, f"loading rules: {response.status_code} {response.text[:2000]}"
    assert not [i for i in response.json().get("issues", []) if i.get("severity") == "ERROR"], response.json()
    db.set("conversations/c1", {"participantIds": ["alice", "bob"], "title": "c1"})
    ok(db.commit([update(db.name("conversations/c1/messages/m0"), {"senderId": "alice", "text": "hi"},
                         transforms=STAMP)]))


# --------------------------------------------------------------------------------------------
# Handshake


def test_handshake_answers_the_c_array_session_id_and_cors(db, channels):
    channel = channels(db.project, "Listen", origin=ORIGIN)
    response = channel.open(listen_query(db.database_name, 2, "rooms"))
    assert response.status_code == 200, response.text

    # One chunk, "<UTF-16 length>\n[[0,["c",SID,"",8,…]]]".
    text = response.content.decode()
    size, _, chunk = text.partition("\n")
    assert size.isdigit() and int(size) == utf16_units(chunk), f"one length-prefixed chunk: {text!r}"
    arrays = json.loads(chunk)
    assert len(arrays) >= 1 and arrays[0][0] == 0, arrays
    c = arrays[0][1]
    assert c[0] == "c" and isinstance(c[1], str) and c[1], c
    assert c[2] == "", "no host prefix"
    assert c[3] == 8, "protocol version 8"
    if len(c) > 5:
        assert isinstance(c[5], int) and c[5] > 0, f"a keepalive in ms: {c}"
    assert channel.sid == c[1]

    session_id = response.headers.get("X-HTTP-Session-Id")
    assert session_id, f"the handshake answers X-HTTP-Session-Id: {dict(response.headers)}"
    assert response.headers.get("Access-Control-Allow-Origin") == ORIGIN, dict(response.headers)
    assert response.headers.get("Access-Control-Allow-Credentials") == "true", dict(response.headers)
    exposed = [h.strip().lower() for h in response.headers.get("Access-Control-Expose-Headers", "").split(",")]
    assert "x-http-session-id" in exposed, f"the page's script must be able to read X-HTTP-Session-Id: {exposed}"

    # The request sent in the handshake is running: its ADD arrives on the back channel (arrays numbered
    # from 1, a noop first if the back channel came before it), whose answer carries CORS headers too.
    back = channel.start_streaming()
    assert is_target_change(channel.next(), "ADD", 2), channel.received
    assert_consecutive(channel)
    assert back.headers.get("Access-Control-Allow-Origin") == ORIGIN, back.headers
    assert back.headers.get("Access-Control-Allow-Credentials") == "true", back.headers

    other = channels(db.project, "Listen")
    assert other.open(listen_query(db.database_name, 2, "rooms")).status_code == 200
    assert other.sid != channel.sid, "each handshake opens its own session"


def test_handshake_without_maps_then_first_request_at_map_zero(db, channels):
    """A handshake with count=0 (Closure sends one when nothing was queued yet); the first request then
    goes on the forward channel with ofs=0. No back channel is open yet: the answer's first value says so
    (0), as the official emulator and Closure's server answer."""
    channel = channels(db.project, "Write")
    assert channel.open().status_code == 200
    answer = channel.send({"database": db.database_name}).answer
    assert answer[0] == 0 and isinstance(answer[1], int) and isinstance(answer[2], int), answer
    channel.start_streaming()
    first = channel.next()
    assert "streamToken" in first and "error" not in first, first


# --------------------------------------------------------------------------------------------
# Listen


def test_listen_query_target_initial_results_then_live_changes(db, channels):
    first = db.set("rooms/a", {"n": 1, "title": "first"})
    channel = open_listen(channels, db, listen_query(db.database_name, 2, "rooms"))

    initial = channel.until(is_global_snapshot)
    assert_initial_sequence(initial, 2, [db.name("rooms/a")])
    document = initial[1]["documentChange"]["document"]
    assert data_of(document) == {"n": 1, "title": "first"}
    assert document["fields"]["n"] == {"integerValue": "1"}, "int64 is a JSON string in proto3 JSON"
    assert document["updateTime"] == first["writeResults"][0]["updateTime"]
    assert document["createTime"] == document["updateTime"]
    read_times = [initial[-1]["targetChange"]["readTime"]]

    written = db.set("rooms/b", {"n": 2})
    after = channel.until(is_global_snapshot)
    assert significant(after) == [("doc", db.name("rooms/b"), (2,)), ("snapshot",)], after
    changed = after[0]["documentChange"]["document"]
    assert data_of(changed) == {"n": 2}
    assert changed["updateTime"] == written["writeResults"][0]["updateTime"]
    read_times.append(after[-1]["targetChange"]["readTime"])
    assert after[-1]["targetChange"]["resumeToken"] != initial[-1]["targetChange"]["resumeToken"]

    ok(db.delete("rooms/a"))
    after = channel.until(is_global_snapshot)
    assert significant(after) == [("delete", db.name("rooms/a")), ("snapshot",)], after
    assert after[0]["documentDelete"].get("removedTargetIds") == [2], after[0]
    read_times.append(after[-1]["targetChange"]["readTime"])
    assert read_times == sorted(read_times), f"read times never go backwards: {read_times}"

    assert_consecutive(channel)


def test_listen_documents_target_on_a_missing_document(db, channels):
    channel = open_listen(channels, db, listen_documents(db.database_name, 4, ["rooms/missing"]))
    initial = channel.until(is_global_snapshot)
    assert_initial_sequence(initial, 4, [])

    db.set("rooms/other", {"n": 0})  # not the target's document
    db.set("rooms/missing", {"n": 1})
    after = channel.until(is_global_snapshot)
    assert significant(after) == [("doc", db.name("rooms/missing"), (4,)), ("snapshot",)], after
    assert data_of(after[0]["documentChange"]["document"]) == {"n": 1}


def test_remove_target_answers_remove_and_nothing_more_for_it(db, channels):
    db.set("rooms/a", {"n": 1})
    channel = open_listen(channels, db, listen_query(db.database_name, 2, "rooms"))
    channel.until(is_global_snapshot)

    answer = channel.send(remove_target(db.database_name, 2)).answer
    assert len(answer) == 3 and answer[0] == 1, f"[1, last array id, outstanding bytes]: {answer}"
    assert all(isinstance(n, int) and n >= 0 for n in answer[1:]), answer
    removed = channel.until(lambda m: is_target_change(m, "REMOVE"))
    assert significant(removed) == [("REMOVE", (2,), 0)], removed
    assert "cause" not in removed[-1]["targetChange"], "a requested removal has no cause"

    db.set("rooms/b", {"n": 2})  # after the removal: nothing for target 2
    channel.send(listen_documents(db.database_name, 3, ["rooms/c"]))
    later = channel.until(is_global_snapshot)
    assert_initial_sequence(later, 3, [])
    assert not [m for m in later if "documentChange" in m], later


def test_handshake_carrying_two_requests_then_forward_maps_from_two(db, channels):
    """Closure sends every map queued before the handshake goes out (the SDK's sends in the same tick):
    maps 0 and 1 in the handshake, the next forward POST starts at ofs=2."""
    db.set("rooms/a", {"n": 1})
    channel = channels(db.project, "Listen")
    assert channel.open(listen_query(db.database_name, 2, "rooms"),
                        listen_documents(db.database_name, 4, ["rooms/a"])).status_code == 200
    channel.start_streaming()
    first = channel.until(is_global_snapshot)
    if ("CURRENT", (4,)) not in significant(first):  # one snapshot for both targets, or one each
        first += channel.until(is_global_snapshot)
    view = significant(first)
    for target_id in (2, 4):
        assert view.count(("ADD", (target_id,))) == 1, view
        assert view.count(("CURRENT", (target_id,))) == 1, view
    assert {entry[2] for entry in view if entry[0] == "doc"} <= {(2,), (4,), (2, 4), (4, 2)}, view

    request = channel.send(remove_target(db.database_name, 4))
    assert request.offset == 2
    removed = channel.until(lambda m: is_target_change(m, "REMOVE"))
    assert significant(removed)[-1] == ("REMOVE", (4,), 0), removed


def test_listen_resume_token_and_expected_count(db, channels):
    """A resumed target (`resumeToken` + `expectedCount`, as the SDK sends it) ends up with the current
    results: either only what changed since the token, or a RESET and everything."""
    db.set("rooms/a", {"n": 1})
    channel = open_listen(channels, db, listen_query(db.database_name, 2, "rooms"))
    token = channel.until(is_global_snapshot)[-1]["targetChange"]["resumeToken"]
    channel.send(remove_target(db.database_name, 2))
    channel.until(lambda m: is_target_change(m, "REMOVE", 2))

    db.set("rooms/b", {"n": 2})  # while nobody listens
    channel.send(listen_query(db.database_name, 2, "rooms", resumeToken=token, expectedCount=1))
    resumed = channel.until(is_global_snapshot)
    filters = [entry for entry in significant(resumed) if entry[0] == "filter"]
    assert filters in ([], [("filter", 2, 2)]), "an existence filter carries the target's current count"
    view = [entry for entry in significant(resumed) if entry[0] != "filter"]
    assert view[0] == ("ADD", (2,)) and view[-2:] == [("CURRENT", (2,)), ("snapshot",)], view
    changed = {entry[1] for entry in view if entry[0] == "doc"}
    if ("RESET", (2,)) in view:
        assert changed == {db.name("rooms/a"), db.name("rooms/b")}, view
    else:
        assert changed == {db.name("rooms/b")}, f"without RESET only what changed is sent: {view}"
        assert filters, "a delta is followed by the existence filter that lets the client check its count"
    assert not [m for m in resumed if is_error(m)], resumed


# --------------------------------------------------------------------------------------------
# Write


def test_write_stream_token_chain_transform_and_listener(db, channels):
    listener = open_listen(channels, db, listen_documents(db.database_name, 2, ["rooms/w"]))
    assert_initial_sequence(listener.until(is_global_snapshot), 2, [])

    channel, token = open_write(channels, db)
    write = update(db.name("rooms/w"), {"title": "hello", "n": 1}, exists=False, transforms=STAMP)
    answer = channel.send({"streamToken": token, "writes": [write]}).answer
    assert answer[0] == 1, answer
    response = channel.next()
    assert not is_error(response), response
    assert response["streamToken"] and response["streamToken"] != token, "each response has a new token"
    commit_time = response["commitTime"]
    (result,) = response["writeResults"]
    assert result["updateTime"] == commit_time, response
    assert result["transformResults"] == [{"timestampValue": to_milliseconds(commit_time)}], (
        "a REQUEST_TIME transform's result is the commit time to the millisecond")

    # The listener on its own channel sees the document as written.
    seen = listener.until(is_global_snapshot)
    assert significant(seen) == [("doc", db.name("rooms/w"), (2,)), ("snapshot",)], seen
    document = seen[0]["documentChange"]["document"]
    assert data_of(document)["title"] == "hello"
    assert document["fields"]["timestamp"] == {"timestampValue": to_milliseconds(commit_time)}
    assert document["updateTime"] == commit_time

    # The next batch chains on the new token: an update and a delete in one batch.
    second_token = response["streamToken"]
    channel.send({"streamToken": second_token, "writes": [
        update(db.name("rooms/w"), {"n": 2}, mask=["n"], exists=True),
        delete(db.name("rooms/gone")),
    ]})
    second = channel.next()
    assert not is_error(second), second
    assert second["streamToken"] not in (token, second_token), second
    assert len(second["writeResults"]) == 2, second
    assert second["commitTime"] >= commit_time
    assert db.data("rooms/w") == {"title": "hello", "n": 2, "timestamp": data_of(document)["timestamp"]}

    # The SDK's teardown: an empty batch with the last token; never an error.
    channel.send({"streamToken": second["streamToken"], "writes": []})
    time.sleep(0.3)
    assert not [m for m in write_payloads(channel) if is_error(m)], write_payloads(channel)
    assert_consecutive(channel)


def test_invalid_write_is_an_error_payload(db, channels):
    db.set("rooms/x", {"n": 1})
    channel, token = open_write(channels, db)
    channel.send({"streamToken": token, "writes": [update(db.name("rooms/x"), {"n": 2}, exists=False)]})
    message = channel.next()
    assert set(message) == {"error"}, f"an RPC error is [{{error:{{code,message,status}}}}]: {message}"
    error = message["error"]
    assert error["status"] == "ALREADY_EXISTS" and error["code"] == 6, error
    assert isinstance(error["message"], str) and error["message"], error


# --------------------------------------------------------------------------------------------
# Security rules


def test_rules_denied_listen_target_is_removed_with_permission_denied(db, channels):
    chat_project(db)
    mallory = id_token("mallory", db.project)
    channel = open_listen(channels, db, listen_query(db.database_name, 5, "messages", parent="conversations/c1"),
                          token=mallory)
    responses = channel.until(lambda m: is_target_change(m, "REMOVE", 5))
    assert [entry[0] for entry in significant(responses)] in (["ADD", "REMOVE"], ["REMOVE"]), responses
    removal = responses[-1]["targetChange"]
    assert removal["targetIds"] == [5]
    assert removal["cause"]["code"] == 7, f"PERMISSION_DENIED: {removal}"
    assert removal["cause"]["message"].startswith(PERMISSION_DENIED_MESSAGE + "\n"), removal
    assert not [m for m in responses if is_error(m)], "a denied target is not a stream error"

    # The stream stays usable for what the rules allow.
    db.set("users/mallory", {"name": "Mallory"})
    channel.send(listen_documents(db.database_name, 6, ["users/mallory"]))
    allowed = channel.until(is_global_snapshot)
    assert_initial_sequence(allowed, 6, [db.name("users/mallory")])

    # A participant may listen to the same query.
    alice = open_listen(channels, db, listen_query(db.database_name, 5, "messages", parent="conversations/c1"),
                        token=id_token("alice", db.project))
    assert_initial_sequence(alice.until(is_global_snapshot), 5, [db.name("conversations/c1/messages/m0")])


def test_rules_denied_write_batch_is_a_permission_denied_error(db, channels):
    chat_project(db)
    mallory, token = open_write(channels, db, token=id_token("mallory", db.project))
    message = {"senderId": "mallory", "text": "let me in"}
    mallory.send({"streamToken": token, "writes": [
        update(db.name("conversations/c1/messages/m1"), message, exists=False, transforms=STAMP)]})
    denied = mallory.next()
    error = denied.get("error", {})
    assert (error.get("code"), error.get("status")) == (7, "PERMISSION_DENIED"), (
        f"a denied batch ends the Write stream with PERMISSION_DENIED: {denied}")
    assert error["message"].startswith(PERMISSION_DENIED_MESSAGE + "\n"), denied
    assert db.data("conversations/c1/messages/m1") is None

    # The same write by a participant passes (timestamp == request.time through the transform).
    alice, token = open_write(channels, db, token=id_token("alice", db.project))
    alice.send({"streamToken": token, "writes": [update(db.name("conversations/c1/messages/m1"),
                                                        {"senderId": "alice", "text": "hi"}, exists=False,
                                                        transforms=STAMP)]})
    accepted = alice.next()
    assert not is_error(accepted), accepted
    assert len(accepted["writeResults"]) == 1
    assert db.data("conversations/c1/messages/m1")["senderId"] == "alice"


# --------------------------------------------------------------------------------------------
# Long polling


def test_long_polling_delivers_the_same_sequence(db, channels):
    db.set("rooms/a", {"n": 1})
    channel = open_listen(channels, db, listen_query(db.database_name, 2, "rooms"), long_poll=True, origin=ORIGIN)
    started = time.monotonic()
    initial = channel.until(is_global_snapshot)
    assert_initial_sequence(initial, 2, [db.name("rooms/a")])

    db.set("rooms/b", {"n": 2})
    after = channel.until(is_global_snapshot)
    assert significant(after) == [("doc", db.name("rooms/b"), (2,)), ("snapshot",)], after

    ok(db.delete("rooms/a"))
    after = channel.until(is_global_snapshot)
    assert significant(after) == [("delete", db.name("rooms/a")), ("snapshot",)], after
    assert time.monotonic() - started < 10, "a pending long poll is answered as soon as there is data"

    assert_consecutive(channel)
    polls = [back for back in channel.back_channels if back.done.is_set()]
    assert polls and all(back.status == 200 and back.error is None for back in polls), channel.back_channels
    for earlier, later in zip(polls, polls[1:]):
        assert earlier.arrays, f"each long poll ends after a batch: {earlier}"
        assert later.aid == earlier.arrays[-1].id, "each poll acknowledges what the previous one brought"
    for back in polls:
        assert len(decode_body(back.body)) == 1, f"a long poll answers one chunk: {back.body!r}"
    assert polls[0].headers.get("Access-Control-Allow-Origin") == ORIGIN, polls[0].headers


@pytest.mark.parametrize("long_poll", [False, True], ids=["streaming", "long-polling"])
def test_rapid_writes_arrive_once_each_in_order(db, channels, long_poll):
    """Writes made while the back channel is busy (or between two polls) are neither lost nor repeated."""
    channel = open_listen(channels, db, listen_query(db.database_name, 2, "rooms"), long_poll=long_poll)
    assert_initial_sequence(channel.until(is_global_snapshot), 2, [])
    names = [db.name(f"rooms/d{i:02d}") for i in range(20)]
    for i in range(20):
        db.set(f"rooms/d{i:02d}", {"i": i})
    seen: list[str] = []
    while len(seen) < 20:
        for message in channel.until(is_global_snapshot):
            seen += [entry[1] for entry in significant([message]) if entry[0] == "doc"]
    assert seen == names, f"each write once, in commit order: {seen}"
    assert_consecutive(channel)


def test_long_poll_with_timeout_answers_a_noop(db, channels):
    channel = channels(db.project, "Listen")
    assert channel.open(listen_documents(db.database_name, 2, ["rooms/a"])).status_code == 200
    # ADD, CURRENT, then the snapshot: a poll ends with the first batch it gets, so the snapshot may come
    # on a second poll.
    for _ in range(5):
        channel.poll()
        if channel.received and is_global_snapshot(channel.received[-1].message):
            break
    assert is_global_snapshot(channel.received[-1].message), channel.received

    started = time.monotonic()
    back = channel.poll(timeout_ms=1000)  # nothing to send
    elapsed = time.monotonic() - started
    assert back.status == 200, back
    assert [array.payload for array in back.arrays] == [["noop"]], back.arrays
    assert back.arrays[0].id == channel.received[-2].id + 1, "a noop takes the next array id"
    assert elapsed < 10, f"the long poll ends around its TO (1 s), not after the 20 s keepalive: {elapsed:.1f} s"


# --------------------------------------------------------------------------------------------
# Reliability: retries and re-sends


def test_retried_forward_post_is_delivered_once(db, channels):
    channel = open_listen(channels, db, listen_query(db.database_name, 2, "rooms"))
    channel.until(is_global_snapshot)

    first = channel.send(remove_target(db.database_name, 2))  # "lost" answer: retried as is
    again = channel.resend(ForwardRequest(first.rid, first.offset, first.messages))
    assert again.answer[0] == 1, again.answer
    # Closure's retry also carries the maps queued since: the same ofs, removeTarget again + a new addTarget.
    channel.retry(first, listen_documents(db.database_name, 3, ["rooms/x"]))

    messages = channel.until(is_global_snapshot)
    time.sleep(0.3)
    messages += [array.message for array in channel.pending() if not array.is_noop]
    view = significant(messages)
    assert view.count(("REMOVE", (2,), 0)) == 1, f"the removeTarget map is delivered once: {view}"
    assert view.count(("ADD", (3,))) == 1, f"the new map of the retry is delivered once: {view}"
    assert not [m for m in messages if is_error(m)], messages
    assert ("REMOVE", (2,), 0) in view[:view.index(("ADD", (3,)))], f"maps are delivered in order: {view}"


def test_overlapping_forward_posts_out_of_order_are_delivered_in_map_order(db, channels):
    """A page served over HTTP/2 has Closure send up to ten forward POSTs at once, each with the next maps
    (ForwardChannelRequestPool): they can arrive out of order, and the stream must still see its requests in
    map order, each once."""
    channel = open_listen(channels, db, listen_query(db.database_name, 2, "rooms"))
    channel.until(is_global_snapshot)

    offset = channel._next_map_id
    first = ForwardRequest(rid=channel._rid(), offset=offset, messages=[remove_target(db.database_name, 2)])
    second = ForwardRequest(rid=channel._rid(), offset=offset + 1,
                            messages=[listen_documents(db.database_name, 3, ["rooms/x"])])
    channel._next_map_id += 2
    channel.resend(second)  # arrives first: waits for map `offset`
    channel.resend(first)

    messages = channel.until(is_global_snapshot)
    time.sleep(0.3)
    messages += [array.message for array in channel.pending() if not array.is_noop]
    view = significant(messages)
    assert not [m for m in messages if is_error(m)], messages
    assert view.count(("REMOVE", (2,), 0)) == 1, f"the first map is delivered, once: {view}"
    assert view.count(("ADD", (3,))) == 1, f"the second map is delivered, once: {view}"
    assert view.index(("REMOVE", (2,), 0)) < view.index(("ADD", (3,))), f"in map order: {view}"


def test_forward_maps_that_wait_without_end_break_the_session(db, channels):
    """Maps ahead of one that never comes are not held without end: past the limit the POST is refused and
    the session is gone (the SDK then starts a new one)."""
    channel = open_listen(channels, db, listen_query(db.database_name, 2, "rooms"))
    channel.until(is_global_snapshot)

    start = channel._next_map_id + 1  # map `_next_map_id` never comes
    answers = []
    for batch in range(11):
        request = ForwardRequest(rid=channel._rid(), offset=start + batch * 1000,
                                 messages=[remove_target(db.database_name, 2)] * 1000)
        answers.append(channel.post(request).status_code)
        if answers[-1] != 200:
            break
    # The official emulator refuses after 3,000-4,000 waiting maps (400, no body); Hearth after 10,000.
    assert answers[-1] == 400 and set(answers[:-1]) <= {200}, answers
    gone = channel.post(ForwardRequest(channel._rid(), channel._next_map_id, [remove_target(db.database_name, 2)]))
    assert gone.status_code == 400, (gone.status_code, gone.text[:300])


def test_new_back_channel_resends_unacknowledged_arrays(db, channels):
    db.set("rooms/a", {"n": 1})
    channel = open_listen(channels, db, listen_query(db.database_name, 2, "rooms"))
    channel.until(is_global_snapshot)
    first_back = channel.back_channels[0]
    originals = list(channel.received)  # [noop,] ADD, doc, CURRENT, snapshot
    assert_consecutive(channel)
    kept, lost = originals[0], originals[1:]
    assert len(lost) >= 3, originals

    # The client lost the arrays after the first (its back channel broke): a new back channel
    # acknowledging only the first gets them again, with the same ids, and replaces the old one.
    second_back = channel.start_streaming(aid=kept.id)
    resent = [channel.next_array() for _ in lost]
    assert [(a.id, a.payload, a.via) for a in resent] == [
        (a.id, a.payload, second_back.name) for a in lost], resent
    assert first_back.done.wait(5), "the replaced back channel ends"
    assert first_back.error is None, first_back.error

    db.set("rooms/b", {"n": 2})  # new arrays go to the new back channel
    after = channel.until(is_global_snapshot)
    assert significant(after) == [("doc", db.name("rooms/b"), (2,)), ("snapshot",)]
    assert {a.via for a in channel.received[len(originals):]} == {second_back.name}

    # A streaming back channel with nothing to send starts with a noop, which takes the next id.
    last = channel.last_array_id
    third_back = channel.start_streaming()
    noop = channel.next_array()
    assert (noop.id, noop.payload, noop.via) == (last + 1, ["noop"], third_back.name), noop
    db.set("rooms/c", {"n": 3})
    after = channel.until(is_global_snapshot)
    assert significant(after) == [("doc", db.name("rooms/c"), (2,)), ("snapshot",)]
    assert channel.received[-2].id == last + 2


# --------------------------------------------------------------------------------------------
# Framing


UNICODE = {
    "latin": "héllo wörld ñ",
    "cjk": "日本語のテキスト",
    "emoji": "😀🎉👩‍👩‍👧 " * 40,  # astral: 2 UTF-16 units, 4 UTF-8 bytes each
    "music": "𝄞 clef",
    "mixed": "a😀b\u00e9c\u4e2dd𝄞e",
}


def test_non_ascii_and_emoji_survive_utf16_chunk_framing(db, channels):
    data = {**UNICODE, "🔑 key": "value ✓"}
    db.set("rooms/u", data)

    # Streaming: the incremental decoder slices by UTF-16 units.
    stream = open_listen(channels, db, listen_query(db.database_name, 2, "rooms"))
    initial = stream.until(is_global_snapshot)
    assert_initial_sequence(initial, 2, [db.name("rooms/u")])
    assert data_of(initial[1]["documentChange"]["document"]) == data

    # The raw body of a long poll: each length equals the chunk's UTF-16 length (not its byte length).
    poll = channels(db.project, "Listen")
    assert poll.open(listen_documents(db.database_name, 3, ["rooms/u"])).status_code == 200
    back = poll.poll()
    text = back.body.decode("utf-8")
    size, _, chunk = text.partition("\n")
    assert int(size) == utf16_units(chunk), (
        f"length {size}, chunk of {utf16_units(chunk)} UTF-16 units, {len(chunk.encode())} bytes")
    assert int(size) != len(chunk.encode()), "the document's non-ASCII text makes units and bytes differ"
    messages = [array.message for array in poll.received if not array.is_noop]
    doc = next(m for m in messages if "documentChange" in m)
    assert data_of(doc["documentChange"]["document"]) == data

    # Forward channel: a Write carrying the same text (percent-encoded UTF-8) stores it intact, and it
    # comes back live to the streaming listener.
    writer, token = open_write(channels, db)
    writer.send({"streamToken": token, "writes": [update(db.name("rooms/v"), data)]})
    assert not is_error(writer.next())
    assert db.data("rooms/v") == data
    live = stream.until(is_global_snapshot)
    assert significant(live) == [("doc", db.name("rooms/v"), (2,)), ("snapshot",)]
    assert data_of(live[0]["documentChange"]["document"]) == data


def test_large_document_with_astral_text_streams_intact(db, channels):
    """A ~600 KB document of mixed 1-4 byte characters: its chunk spans many reads, cut anywhere (inside a
    UTF-8 sequence, between a surrogate pair's units) and must add up to exactly its UTF-16 length."""
    big = ("😀é中a𝄞" * 50_000)[:250_000]
    stream = open_listen(channels, db, listen_documents(db.database_name, 2, ["rooms/big"]))
    assert_initial_sequence(stream.until(is_global_snapshot), 2, [])
    db.set("rooms/big", {"big": big, "tail": "✓"})
    after = stream.until(is_global_snapshot)
    assert significant(after) == [("doc", db.name("rooms/big"), (2,)), ("snapshot",)]
    assert data_of(after[0]["documentChange"]["document"]) == {"big": big, "tail": "✓"}

    poll = channels(db.project, "Listen")
    assert poll.open(listen_documents(db.database_name, 3, ["rooms/big"])).status_code == 200
    back = poll.poll()
    size, _, chunk = back.body.decode("utf-8").partition("\n")
    assert int(size) == utf16_units(chunk), f"length {size}, {utf16_units(chunk)} UTF-16 units"
    doc = next(a.message for a in poll.received if not a.is_noop and "documentChange" in a.message)
    assert data_of(doc["documentChange"]["document"])["big"] == big


# --------------------------------------------------------------------------------------------
# Terminate


def test_terminate_ends_the_session_then_unknown_sid(db, channels):
    channel = open_listen(channels, db, listen_query(db.database_name, 2, "rooms"))
    channel.until(is_global_snapshot)
    back = channel.back_channels[0]

    response = channel.terminate()  # POST, as navigator.sendBeacon sends it
    assert response.status_code == 200, response.text
    assert back.done.wait(5), "terminate ends the open back channel"

    for attempt in (
        channel.post(ForwardRequest(channel._rid(), 1, [remove_target(db.database_name, 2)])),
        channel.http.get(channel.base, params=channel.back_channel_params(channel.last_array_id, False), timeout=5),
        channel.http.get(channel.base, params=channel.back_channel_params(channel.last_array_id, True), timeout=5),
    ):
        assert attempt.status_code == 400, f"{attempt.request.method}: {attempt.status_code} {attempt.text[:500]}"
        assert attempt.text.find("Unknown SID") > 0, (
            f"Closure recognizes an unknown session by 'Unknown SID' at an index > 0: {attempt.text[:500]}")

    # TYPE=terminate as a GET (an Image's request) works too.
    other = channels(db.project, "Write")
    assert other.open({"database": db.database_name}).status_code == 200
    assert other.terminate("GET").status_code == 200
    assert other.poll().status == 400


def test_listen_with_vector_values_and_a_vector_search_target(db, channels):
    """Vector values reach a WebChannel listener as they were written; a query target with a vector search
    (findNearest) gets the nearest documents with their distances, as the official emulator's listeners do
    (conformance/differential/test_vector_search.py checks the search itself)."""
    vector = {"mapValue": {"fields": {"__type__": {"stringValue": "__vector__"},
                                      "value": {"arrayValue": {"values": [{"doubleValue": 1.0}, {"doubleValue": 0.5}]}}}}}
    ok(db.commit([{"update": {"name": db.name("embeddings/a"), "fields": {"v": vector}}}]))
    channel = open_listen(channels, db, listen_query(db.database_name, 2, "embeddings"))
    initial = channel.until(is_global_snapshot)
    assert_initial_sequence(initial, 2, [db.name("embeddings/a")])
    assert initial[1]["documentChange"]["document"]["fields"]["v"] == vector

    search = listen_query(db.database_name, 3, "embeddings")
    search["addTarget"]["query"]["structuredQuery"] = {
        "from": [{"collectionId": "embeddings"}],
        "findNearest": {"vectorField": {"fieldPath": "v"}, "queryVector": vector, "distanceMeasure": "EUCLIDEAN",
                        "limit": 5, "distanceResultField": "distance"}}
    searching = open_listen(channels, db, search)
    found = searching.until(is_global_snapshot)
    assert_initial_sequence(found, 3, [db.name("embeddings/a")])
    assert found[1]["documentChange"]["document"]["fields"]["distance"] == {"doubleValue": 0}
