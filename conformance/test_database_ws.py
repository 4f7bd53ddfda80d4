"""The Realtime Database wire protocol v5 over WebSocket, replayed as the JS and iOS SDKs send it.

What each group encodes, and where it comes from (shared/reference/realtime-database.md, read off
firebase-js-sdk `realtime/Connection.ts`, `realtime/WebSocketConnection.ts`, `core/PersistentConnection.ts`,
the iOS `FPersistentConnection.m`, and public wire captures):
- Handshake: the server speaks first, `{"t":"c","d":{"t":"h","d":{"ts","v":"5","h","s"}}}`.
- Requests `{"t":"d","d":{"r","a","b"}}` are answered `{"t":"d","d":{"r","b":{"s","d"}}}`: stats, put and merge
  with `d: ""`, listen with `d: {}`, denials `{"s":"permission_denied","d":"Permission denied"}`.
- A listen's data push `{"a":"d","b":{"p":"path/without/slash","d":…}}` comes BEFORE its ok; a client's own
  write reaches its own listens before the write's ack (prod behaviour, avoids flicker).
- Merges take relative paths; nulls delete and empty parents vanish; priorities travel in export format and
  setPriority is a put to `<path>/.priority`; arrays are maps with index keys; ServerValue placeholders are
  resolved before storing and broadcasting.
- Transactions: a put with `h` = the node hash of the client's view commits only if it matches, else
  `datastale`, and the client gets the current data through its listen.
- Tagged queries (`q` + `t`): every push for them carries the tag; the window is maintained by the server
  (an element leaving a limit window is refilled from the server).
- Framing: a client frame above 16384 characters is sent as a count frame and parts; the client honours
  count frames from the server; the raw keepalive frame `0` is ignored; ping gets pong.
- onDisconnect `o`/`om`/`oc`: queued per connection, checked against the rules at registration, run when the
  socket goes away (clean close or the process being killed), server values resolved then.
- The chat app's presence (shared/design.md §1 scenario 3, fixtures/database/chat.rules.json).
"""

from __future__ import annotations

import base64
import json
import os
import signal

import pytest

from database_support import (
    CHAT_RULES,
    MAX_FRAME,
    OK_LISTEN,
    OK_WRITE,
    OWNER,
    PERMISSION_DENIED,
    SERVER_TIMESTAMP,
    DatabaseSocket,
    anonymous,  # noqa: F401 (fixture)
    apply_pushes,
    assert_listen_ok,
    data_push,
    database_host,  # noqa: F401 (fixture)
    get_at,
    increment,
    is_push,
    load_rules,
    node_hash,
    normalize,
    now_ms,
    ns,  # noqa: F401 (fixture)
    owner,  # noqa: F401 (fixture)
    sockets,  # noqa: F401 (fixture)
    spawn_client,
    user_token,
)

pytestmark = pytest.mark.timeout(60)

USER_RULES = {
    "rules": {
        "users": {
            "$uid": {
                ".read": "auth != null && auth.uid === $uid",
                ".write": "auth != null && auth.uid === $uid",
            }
        }
    }
}


def view(connection: DatabaseSocket, path: str, start: int = 0, end: int | None = None, tag: int | None = None):
    """The value at `path` after applying the pushes in `messages[start:end]` (only those with `tag`)."""
    return get_at(apply_pushes(connection.pushes(start, end), tag=tag), path)


def wait_view(connection: DatabaseSocket, path: str, expected, start: int = 0, tag: int | None = None,
              timeout: float = 10) -> int:
    """Waits until the pushes since `start` leave `expected` at `path`; the index of the last one needed."""
    def done(_message) -> bool:
        return normalize(view(connection, path, start, tag=tag)) == normalize(expected)

    if done(None):
        return len(connection.messages) - 1
    return connection.wait_for(lambda m: is_push(m) and done(m), timeout, start,
                               what=f"pushes leaving {expected!r} at {path}")


# --------------------------------------------------------------------------------------------
# Handshake, stats, auth


def test_server_hello_is_the_first_message(sockets):
    before = now_ms()
    connection = sockets()
    hello = connection.messages[0]
    assert hello["t"] == "c" and set(hello) == {"t", "d"}, hello
    assert hello["d"]["t"] == "h", hello
    data = hello["d"]["d"]
    assert {"ts", "v", "h", "s"} <= set(data), data
    assert data["v"] == "5"
    assert isinstance(data["ts"], int) and abs(data["ts"] - before) < 60_000, data
    assert isinstance(data["h"], str) and data["h"], data
    assert isinstance(data["s"], str) and data["s"], data


def test_every_connection_gets_its_own_session_id(sockets):
    first, second = sockets(), sockets()
    assert first.hello["d"]["d"]["s"] != second.hello["d"]["d"]["s"]


def test_stats_are_acknowledged(sockets):
    connection = sockets()
    assert connection.call("s", {"c": {"sdk.js.11-0-0": 1}}) == OK_WRITE


def test_auth_with_an_unsigned_id_token(sockets, database_host, ns, project_id):
    load_rules(database_host, ns, USER_RULES)
    token = user_token(project_id, "u1", admin=True)
    connection = sockets()
    reply = connection.auth(token)
    assert reply["s"] == "ok", reply
    data = reply["d"]
    assert isinstance(data, dict) and {"auth", "expires"} <= set(data), data
    auth = data["auth"]
    assert isinstance(auth, dict), data
    assert "u1" in (auth.get("uid"), auth.get("sub"), auth.get("user_id")), auth
    claims = json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))
    assert data["expires"] == claims["exp"], data
    assert connection.put("/users/u1/name", "Ann") == OK_WRITE
    assert connection.put("/users/u2/name", "Bob") == PERMISSION_DENIED


def test_a_garbage_credential_is_refused(sockets):
    connection = sockets()
    reply = connection.auth("not-a-token")
    assert reply["s"] in ("invalid_token", "expired_token", "permission_denied"), reply


def test_gauth_owner_bypasses_the_rules(sockets, database_host, ns):
    load_rules(database_host, ns, {"rules": {".read": False, ".write": False}})
    admin = sockets()
    assert admin.call("gauth", {"cred": OWNER})["s"] == "ok"
    assert admin.put("/secret", {"a": 1}) == OK_WRITE
    assert admin.get("/secret") == {"s": "ok", "d": {"a": 1}}
    stranger = sockets()
    assert stranger.put("/secret", 2) == PERMISSION_DENIED
    assert stranger.get("/secret") == PERMISSION_DENIED


def test_unauth_drops_the_credential(sockets, database_host, ns, project_id):
    load_rules(database_host, ns, USER_RULES)
    connection = sockets(user_token(project_id, "u1"))
    assert connection.put("/users/u1/a", 1) == OK_WRITE
    assert connection.call("unauth", {})["s"] == "ok"
    assert connection.put("/users/u1/a", 2) == PERMISSION_DENIED


# --------------------------------------------------------------------------------------------
# Listen


def test_listen_pushes_the_data_before_the_ok(sockets, owner):
    owner.set("/rooms", {"r1": {"name": "x"}})
    connection = sockets()
    start, ok_index = connection.listen("/rooms")
    assert connection.messages[ok_index]["d"]["b"] == OK_LISTEN
    pushes = connection.pushes(start, ok_index)
    assert pushes == [data_push("rooms", {"r1": {"name": "x"}})], connection.messages[start:]


def test_listen_at_the_root_pushes_the_whole_tree(sockets, owner):
    owner.set("/a", 1)
    connection = sockets()
    start, ok_index = connection.listen("/")
    assert connection.pushes(start, ok_index) == [data_push("", {"a": 1})]


def test_listen_on_an_empty_location_answers_ok(sockets):
    connection = sockets()
    start, ok_index = connection.listen("/nothing/here")
    assert connection.messages[ok_index]["d"]["b"] == OK_LISTEN
    for push in connection.pushes(start, ok_index):  # a push is optional here (hash "" matches), but null
        assert push == data_push("nothing/here", None), push


def test_listen_denied_by_rules_gets_no_data(sockets, owner, database_host, ns):
    owner.set("/private", {"x": 1})
    load_rules(database_host, ns, {"rules": {"private": {".read": False}}})
    connection = sockets()
    start, index = connection.listen("/private")
    assert connection.messages[index]["d"]["b"] == PERMISSION_DENIED
    assert connection.pushes(start, index) == []


def test_a_put_reaches_other_listeners_and_its_own_listen_before_the_ack(sockets):
    writer, other = sockets(), sockets()
    writer.listen("/chat")
    other.listen("/chat")
    writer_start, other_start = len(writer.messages), len(other.messages)
    request = writer.send_request("p", {"p": "/chat/m1", "d": {"text": "hi"}})
    ack = writer.response_index(request)
    assert writer.messages[ack]["d"]["b"] == OK_WRITE
    assert view(writer, "chat", 0, ack) == {"m1": {"text": "hi"}}, writer.messages[writer_start:]
    wait_view(other, "chat", {"m1": {"text": "hi"}}, 0)
    assert other.pushes(other_start)[0] == data_push("chat/m1", {"text": "hi"})


def test_merge_takes_relative_paths(sockets, owner):
    owner.set("/room", {"a": {"b": 0, "x": 1}, "c": 2, "keep": True})
    writer, listener = sockets(), sockets()
    listener.listen("/room")
    assert writer.merge("/room", {"a/b": 1, "c": None, "d": {"e": 2}}) == OK_WRITE
    expected = {"a": {"b": 1, "x": 1}, "d": {"e": 2}, "keep": True}
    assert owner.value("/room") == expected
    wait_view(listener, "room", expected)


def test_null_deletes_and_empty_parents_vanish(sockets, owner):
    connection = sockets()
    assert connection.put("/a/b/c", 1) == OK_WRITE
    assert connection.put("/a/b/c", None) == OK_WRITE
    assert owner.value("/a") is None
    assert owner.value("/") is None
    assert connection.put("/x", {"y": None, "z": 1, "w": {"v": None}}) == OK_WRITE
    assert owner.value("/x") == {"z": 1}
    assert connection.get("/x/w") == {"s": "ok", "d": None}


def test_priorities_travel_in_export_format(sockets, owner):
    connection = sockets()
    assert connection.put("/item", {"a": 1, ".priority": 5}) == OK_WRITE
    assert connection.get("/item") == {"s": "ok", "d": {"a": 1, ".priority": 5}}
    assert connection.put("/item/.priority", "high") == OK_WRITE  # setPriority
    assert connection.get("/item") == {"s": "ok", "d": {"a": 1, ".priority": "high"}}
    assert owner.value("/item") == {"a": 1}
    assert owner.value("/item", format="export") == {"a": 1, ".priority": "high"}
    assert connection.put("/leaf", {".value": "v", ".priority": 2}) == OK_WRITE
    assert connection.get("/leaf") == {"s": "ok", "d": {".value": "v", ".priority": 2}}
    assert owner.value("/leaf") == "v"
    listener = sockets()
    start, ok_index = listener.listen("/item")
    assert listener.pushes(start, ok_index) == [data_push("item", {"a": 1, ".priority": "high"})]


def test_arrays_are_stored_as_maps(sockets, owner):
    connection = sockets()
    assert connection.put("/arr", [10, 20, 30]) == OK_WRITE
    assert connection.get("/arr/1") == {"s": "ok", "d": 20}
    assert owner.value("/arr", shallow="true") == {"0": True, "1": True, "2": True}
    assert owner.value("/arr") == [10, 20, 30]
    assert connection.put("/arr/1", None) == OK_WRITE
    assert normalize(owner.value("/arr")) == {"0": 10, "2": 30}
    assert connection.merge("/arr", {"7": 70}) == OK_WRITE
    assert owner.value("/arr") == {"0": 10, "2": 30, "7": 70}


def test_server_timestamp_is_resolved_before_storing_and_broadcasting(sockets, owner):
    writer, listener = sockets(), sockets()
    listener.listen("/t")
    start = len(listener.messages)
    before = now_ms()
    assert writer.put("/t", {"at": SERVER_TIMESTAMP, "nested": {"again": SERVER_TIMESTAMP}}) == OK_WRITE
    after = now_ms()
    stored = owner.value("/t")
    assert isinstance(stored["at"], int) and before - 1000 <= stored["at"] <= after + 1000, stored
    assert stored["nested"]["again"] == stored["at"]
    wait_view(listener, "t", stored, start)
    assert ".sv" not in json.dumps(listener.messages[start:])


def test_server_increment(sockets, owner):
    connection = sockets()
    assert connection.put("/n", 5) == OK_WRITE
    assert connection.put("/n", increment(3)) == OK_WRITE
    assert owner.value("/n") == 8
    assert connection.put("/fresh", increment(2)) == OK_WRITE
    assert owner.value("/fresh") == 2
    assert connection.put("/s", "text") == OK_WRITE
    assert connection.put("/s", increment(1)) == OK_WRITE
    assert owner.value("/s") == 1
    assert connection.merge("/", {"n": increment(0.5), "m/k": increment(-4)}) == OK_WRITE
    assert owner.value("/n") == 8.5
    assert owner.value("/m/k") == -4


# --------------------------------------------------------------------------------------------
# Transactions (put with hash)


def test_transaction_with_the_current_hash_commits(sockets, owner):
    owner.set("/counter", 1)
    connection = sockets()
    start, ok_index = connection.listen("/counter")
    assert view(connection, "counter", start, ok_index) == 1
    assert connection.put("/counter", 2, hash=node_hash(1)) == OK_WRITE
    assert owner.value("/counter") == 2
    owner.set("/obj", {"b": {"x": True}, "a": "s", "10": 1.5, "9": 0})
    current = owner.value("/obj", format="export")
    assert connection.put("/obj", {"done": True}, hash=node_hash(current)) == OK_WRITE
    assert owner.value("/obj") == {"done": True}
    assert connection.put("/absent", "new", hash="") == OK_WRITE  # empty node hash is ""
    assert owner.value("/absent") == "new"


def test_transaction_with_a_stale_hash_is_datastale(sockets, owner):
    owner.set("/counter", 1)
    connection = sockets()
    start, ok_index = connection.listen("/counter")
    assert view(connection, "counter", start, ok_index) == 1
    owner.set("/counter", 10)
    reply = connection.put("/counter", 2, hash=node_hash(1))
    assert reply["s"] == "datastale", reply
    assert owner.value("/counter") == 10
    wait_view(connection, "counter", 10, start)  # the client learns the current value through its listen
    assert connection.put("/counter", 11, hash=node_hash(10)) == OK_WRITE
    assert connection.put("/absent", "x", hash=node_hash("something"))["s"] == "datastale"
    assert owner.value("/absent") is None


# --------------------------------------------------------------------------------------------
# Tagged queries


def test_tagged_limit_query_keeps_its_window(sockets, owner):
    owner.set("/scores", {"a": {"s": 1}, "b": {"s": 2}, "c": {"s": 3}})
    query = {"i": "s", "l": 2, "vf": "r"}  # orderByChild('s').limitToLast(2)
    connection = sockets()
    start, ok_index = connection.listen("/scores", query=query, tag=1)
    assert_listen_ok(connection.messages[ok_index]["d"]["b"])
    initial = connection.pushes(start, ok_index)
    assert initial == [data_push("scores", {"b": {"s": 2}, "c": {"s": 3}}, tag=1)], initial

    def window() -> dict:
        # The client's view: each tagged push applied, then trimmed to the limit (the SDK's LimitedFilter
        # evicts what falls out, so a child that re-enters the window must come from the server again).
        view_tree = None
        for push in connection.pushes(start):
            view_tree = apply_pushes([push], view_tree, tag=1)
            children = get_at(view_tree, "scores") or {}
            ordered = sorted(children.items(), key=lambda item: (item[1].get("s", 0), item[0]))
            view_tree = {"scores": dict(ordered[-2:])}
        return get_at(view_tree, "scores") or {}

    def wait_window(expected: dict) -> None:
        if window() != expected:
            connection.wait_for(lambda m: is_push(m) and window() == expected, start=start,
                                what=f"window {expected}")

    owner.set("/scores/d", {"s": 4})
    wait_window({"c": {"s": 3}, "d": {"s": 4}})
    owner.delete("/scores/c")
    wait_window({"b": {"s": 2}, "d": {"s": 4}})  # b comes back from the server
    owner.set("/scores/a", {"s": 0})  # outside the window: nothing visible changes
    connection.barrier()
    assert window() == {"b": {"s": 2}, "d": {"s": 4}}
    for push in connection.pushes(start):
        assert push["b"].get("t") == 1, push  # no untagged data for a tagged-only listener


def test_range_query_listen(sockets, owner):
    owner.set("/people", {"ann": {"age": 20}, "bob": {"age": 30}, "cid": {"age": 40}})
    connection = sockets()
    query = {"i": "age", "sp": 25, "sin": True, "ep": 35, "ein": True}  # startAt(25).endAt(35)
    start, ok_index = connection.listen("/people", query=query, tag=7)
    assert connection.pushes(start, ok_index) == [data_push("people", {"bob": {"age": 30}}, tag=7)]
    owner.set("/people/dan", {"age": 33})
    connection.wait_push(lambda p: p["b"].get("t") == 7 and "dan" in json.dumps(p["b"]), start=ok_index)


def test_unlisten_stops_pushes(sockets, owner):
    connection = sockets()
    connection.listen("/u")
    owner.set("/u/x", 1)
    wait_view(connection, "u", {"x": 1})
    connection.send_request("n", {"p": "/u"})
    connection.barrier()
    after = len(connection.messages)
    owner.set("/u/y", 2)
    connection.barrier()
    assert connection.pushes(after) == [], connection.messages[after:]


def test_tagged_unlisten_stops_pushes(sockets, owner):
    owner.set("/list", {"a": 1, "b": 2})
    connection = sockets()
    query = {"i": ".key", "l": 1, "vf": "l"}
    connection.listen("/list", query=query, tag=3)
    connection.send_request("n", {"p": "/list", "q": query, "t": 3})
    connection.barrier()
    after = len(connection.messages)
    owner.set("/list/0", 0)  # would enter the window (integer keys sort first)
    connection.barrier()
    assert connection.pushes(after) == []


# --------------------------------------------------------------------------------------------
# get, ping, keepalive


def test_get_returns_the_value(sockets, owner):
    owner.set("/g", {"a": 1, "scores": {"x": {"s": 1}, "y": {"s": 5}, "z": {"s": 3}}})
    connection = sockets()
    assert connection.get("/g/a") == {"s": "ok", "d": 1}
    assert connection.get("/g/missing") == {"s": "ok", "d": None}
    windowed = connection.get("/g/scores", {"i": "s", "l": 2, "vf": "r"})
    assert windowed == {"s": "ok", "d": {"y": {"s": 5}, "z": {"s": 3}}}


def test_ping_gets_pong(sockets):
    connection = sockets()
    start = len(connection.messages)
    connection.send_envelope({"t": "c", "d": {"t": "p", "d": {}}})
    index = connection.wait_for(lambda m: m.get("t") == "c", start=start, what="pong")
    assert connection.messages[index] == {"t": "c", "d": {"t": "o", "d": None}}


def test_keepalive_frame_is_ignored(sockets):
    connection = sockets()
    start = len(connection.messages)
    connection.send_raw("0")
    request = connection.send_request("s", {"c": {"sdk.js.11-0-0": 1}})
    index = connection.response_index(request)
    assert index == start, connection.messages[start:]  # nothing came back for "0"
    assert connection.put("/still", "works") == OK_WRITE


# --------------------------------------------------------------------------------------------
# Framing


def test_client_message_split_into_frames(sockets, owner):
    connection = sockets()
    value = {"text": "x" * 40_000, "more": ["y" * 5000] * 3}
    envelope = json.dumps({"t": "d", "d": {"r": connection.next_request, "a": "p", "b": {"p": "/big", "d": value}}},
                          separators=(",", ":"))
    assert len(envelope) > 2 * MAX_FRAME  # send_envelope sends "3" then three parts
    assert connection.put("/big", value) == OK_WRITE
    assert owner.value("/big") == value


def test_large_server_push_is_reassembled(sockets, owner):
    value = {"blob": "z" * 100_000, "items": {f"k{i:04d}": i for i in range(2000)}}
    owner.set("/large", value)
    connection = sockets()
    start, ok_index = connection.listen("/large")
    assert connection.pushes(start, ok_index) == [data_push("large", value)]
    assert connection.get("/large") == {"s": "ok", "d": value}


# --------------------------------------------------------------------------------------------
# Bad input


def test_invalid_key_in_put_is_refused_and_nothing_written(sockets, owner):
    connection = sockets()
    for bad in ({"a.b": 1}, {"ok": {"x$y": 1}}, {"a[0]": 1}, {"": 1}):
        reply = connection.put("/bad", bad)
        assert reply["s"] != "ok", (bad, reply)
    reply = connection.merge("/bad", {"fine": 1, "no#pe": 2})
    assert reply["s"] != "ok", reply
    assert owner.value("/bad") is None
    assert connection.put("/good", 1) == OK_WRITE  # the connection still works


def test_malformed_frame_does_not_take_the_server_down(sockets, database_host, ns, owner):
    connection = sockets()
    start = len(connection.messages)
    connection.send_raw("{this is not json")
    closed = connection.wait_closed(timeout=10)
    if not closed:
        # Still open: it must either have reported an error or go on answering requests.
        errored = any(m.get("t") == "c" and m["d"].get("t") == "e" for m in connection.messages[start:])
        answered = False
        try:
            answered = connection.call("s", {"c": {}}, timeout=5)["s"] == "ok"
        except AssertionError:
            answered = False
        assert errored or answered, connection.messages[start:]
    fresh = DatabaseSocket(database_host, ns)
    try:
        assert fresh.put("/after", "fine") == OK_WRITE
        assert fresh.get("/after") == {"s": "ok", "d": "fine"}
    finally:
        fresh.close()


def test_unknown_action_gets_an_error_status(sockets):
    connection = sockets()
    reply = connection.call("zz", {"p": "/x"})
    assert reply["s"] != "ok", reply
    assert connection.call("s", {"c": {}}) == OK_WRITE


# --------------------------------------------------------------------------------------------
# onDisconnect


def test_on_disconnect_operations_run_when_the_socket_closes(sockets, owner):
    leaving, watcher = sockets(), sockets()
    watcher.listen("/status")
    assert leaving.put("/status/a", {"online": True}) == OK_WRITE
    assert leaving.call("o", {"p": "/gone", "d": "never"}) == OK_WRITE
    assert leaving.call("oc", {"p": "/gone", "d": None}) == OK_WRITE
    assert leaving.call("o", {"p": "/status/a", "d": {"online": False, "at": SERVER_TIMESTAMP}}) == OK_WRITE
    assert leaving.call("om", {"p": "/status", "d": {"b/x": 1, "c": 2}}) == OK_WRITE
    assert leaving.call("o", {"p": "/marker", "d": True}) == OK_WRITE
    assert owner.value("/status") == {"a": {"online": True}}  # nothing ran yet
    before = now_ms()
    leaving.close()
    owner.wait_value("/marker", lambda v: v is True)
    status = owner.value("/status")
    assert status["a"]["online"] is False
    assert isinstance(status["a"]["at"], int) and status["a"]["at"] >= before - 1000, status
    assert status["b"] == {"x": 1} and status["c"] == 2, status
    assert owner.value("/gone") is None
    wait_view(watcher, "status", status)


def test_on_disconnect_cancel_of_a_child_keeps_the_rest_of_a_queued_set(sockets, owner):
    leaving = sockets()
    assert leaving.call("o", {"p": "/p", "d": {"a": 1, "b": 2}}) == OK_WRITE
    assert leaving.call("oc", {"p": "/p/a", "d": None}) == OK_WRITE
    assert leaving.call("o", {"p": "/marker", "d": True}) == OK_WRITE
    leaving.close()
    owner.wait_value("/marker", lambda v: v is True)
    assert owner.value("/p") == {"b": 2}


def test_on_disconnect_cancel_of_a_parent_drops_everything_below(sockets, owner):
    leaving = sockets()
    assert leaving.call("o", {"p": "/q/a", "d": 1}) == OK_WRITE
    assert leaving.call("om", {"p": "/q/b", "d": {"x": 1}}) == OK_WRITE
    assert leaving.call("oc", {"p": "/q", "d": None}) == OK_WRITE
    assert leaving.call("o", {"p": "/marker", "d": True}) == OK_WRITE
    leaving.close()
    owner.wait_value("/marker", lambda v: v is True)
    assert owner.value("/q") is None


def test_on_disconnect_denied_at_registration(sockets, database_host, ns):
    load_rules(database_host, ns, {"rules": {".read": True, "open": {".write": True}}})
    connection = sockets()
    assert connection.call("o", {"p": "/locked", "d": 1}) == PERMISSION_DENIED
    assert connection.call("om", {"p": "/locked", "d": {"a": 1}}) == PERMISSION_DENIED
    assert connection.call("o", {"p": "/open/x", "d": 1}) == OK_WRITE


# --------------------------------------------------------------------------------------------
# The chat app's presence


def test_presence_goes_offline_when_the_client_process_is_killed(sockets, database_host, ns, project_id, owner):
    load_rules(database_host, ns, CHAT_RULES)
    offline = {"online": False, "lastSeen": SERVER_TIMESTAMP}
    process, replies = spawn_client(database_host, ns, [
        ("auth", {"cred": user_token(project_id, "u1")}),
        ("p", {"p": "/presence/u1", "d": {"online": True}}),
        ("o", {"p": "/presence/u1", "d": offline}),
    ])
    try:
        assert [action for action, _ in replies] == ["auth", "p", "o"]
        assert all(reply["s"] == "ok" for _, reply in replies), replies
        watcher = sockets(user_token(project_id, "u2"))
        start, ok_index = watcher.listen("/presence/u1")
        assert view(watcher, "presence/u1", start, ok_index) == {"online": True}
        before = now_ms()
        os.kill(process.pid, signal.SIGKILL)
        process.wait(10)
        watcher.wait_for(lambda m: is_push(m) and (view(watcher, "presence/u1", start) or {}).get("online") is False,
                         timeout=10, start=ok_index, what="presence/u1 going offline")
        seen = view(watcher, "presence/u1", start)
        assert set(seen) == {"online", "lastSeen"}, seen
        assert isinstance(seen["lastSeen"], int) and seen["lastSeen"] >= before - 1000, seen
        assert owner.value("/presence/u1") == seen
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()
        process.stderr.close()


def test_presence_rules_keep_users_to_their_own_entry(sockets, database_host, ns, project_id):
    load_rules(database_host, ns, CHAT_RULES)
    u1 = sockets(user_token(project_id, "u1"))
    assert u1.put("/presence/u1", {"online": True}) == OK_WRITE
    assert u1.put("/presence/u2", {"online": True}) == PERMISSION_DENIED
    assert u1.call("o", {"p": "/presence/u2", "d": {"online": False}}) == PERMISSION_DENIED
    assert u1.get("/presence/u1") == {"s": "ok", "d": {"online": True}}
    assert u1.get("/presence") == PERMISSION_DENIED  # read is granted per user entry, not on the list
    stranger = sockets()
    start, index = stranger.listen("/presence/u1")
    assert stranger.messages[index]["d"]["b"] == PERMISSION_DENIED
    assert stranger.pushes(start, index) == []
