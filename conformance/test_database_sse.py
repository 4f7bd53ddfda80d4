"""REST streaming (Server-Sent Events): `GET <path>.json` with `Accept: text/event-stream`.

What each group encodes, and where it comes from (firebase.google.com/docs/database/rest/retrieve-data
"Streaming from the REST API", firebase.blog 2014/03 "Announcing Streaming for the Firebase REST API",
firebase-admin-python `db.py` Event/ListenerRegistration and `_sseclient.py`):
- The response is `text/event-stream`; the first event is `put` with `{"path": "/", "data": <whole value>}`.
- Later changes are `put` (`path` relative to the stream's location, `data` replaces what is there) or
  `patch` (`data` holds children to update at `path`), for writes made over REST or over the WebSocket, at,
  below or above the location; writes elsewhere send nothing.
- `keep-alive` events (data null) may come at any time and are ignored by clients.
- `cancel` (data null) when the rules stop allowing the read; the stream then ends. A stream the rules refuse
  from the start is an ordinary 401 `{"error": "Permission denied"}`.
- Credentials and query parameters (`auth`, `orderBy`, limits) apply to streams as to GETs.
"""

from __future__ import annotations

import time

import pytest

from database_support import (
    OK_WRITE,
    OWNER,
    DatabaseSocket,
    EventStream,
    database_host,  # noqa: F401 (fixture)
    get_at,
    load_rules,
    merge_at,
    ns,  # noqa: F401 (fixture)
    open_stream,
    owner,  # noqa: F401 (fixture)
    set_at,
    user_token,
)

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def streams(database_host, ns):
    """A factory of event streams on this test's namespace (as admin unless told otherwise); all closed at
    the end."""
    opened: list[EventStream] = []

    def open_one(path: str, token: str | None = OWNER, via: str = "header", **params) -> EventStream:
        stream = open_stream(database_host, ns, path, token=token, via=via, **params)
        opened.append(stream)
        return stream

    yield open_one
    for stream in opened:
        stream.close()


def started(stream: EventStream):
    """Asserts a 200 event stream and returns the data of its first event, which must be a put at "/"."""
    assert stream.status == 200, (stream.status, stream.body)
    assert stream.headers.get("content-type", "").startswith("text/event-stream"), stream.headers
    name, data = stream.next_event()
    assert name == "put", (name, data)
    assert set(data) == {"path", "data"} and data["path"] == "/", data
    return data["data"]


def apply_event(tree, name: str, data: dict):
    if name == "put":
        return set_at(tree, data["path"], data["data"])
    if name == "patch":
        return merge_at(tree, data["path"], data["data"])
    raise AssertionError(f"unexpected event {name}: {data}")


def test_stream_starts_with_the_whole_value(streams, owner):
    owner.set("/s", {"a": 1, "b": {"c": True}})
    assert started(streams("/s")) == {"a": 1, "b": {"c": True}}


def test_stream_of_an_empty_location_and_of_a_leaf(streams, owner):
    assert started(streams("/empty")) is None
    owner.set("/leaf", 5)
    leaf = streams("/leaf")
    assert started(leaf) == 5
    owner.set("/leaf", 6)
    assert leaf.next_event() == ("put", {"path": "/", "data": 6})


def test_rest_writes_become_put_and_patch_events(streams, owner):
    owner.set("/s", {"a": 1})
    stream = streams("/s")
    started(stream)
    owner.set("/s/b", 2)
    assert stream.next_event() == ("put", {"path": "/b", "data": 2})
    owner.set("/s/deep/er", "x")
    assert stream.next_event() == ("put", {"path": "/deep/er", "data": "x"})
    assert owner.patch("/s", {"c": 3}).status_code == 200
    assert stream.next_event() == ("patch", {"path": "/", "data": {"c": 3}})
    assert owner.patch("/s", {"a": None}).status_code == 200
    name, data = stream.next_event()
    assert name in ("patch", "put") and get_at(apply_event({"a": 1, "c": 3}, name, data), "a") is None, (name, data)
    assert owner.patch("/s/deep", {"y": 1}).status_code == 200
    assert stream.next_event() == ("patch", {"path": "/deep", "data": {"y": 1}})
    assert owner.delete("/s/b").status_code == 200
    assert stream.next_event() == ("put", {"path": "/b", "data": None})
    owner.set("/s", "replaced")
    assert stream.next_event() == ("put", {"path": "/", "data": "replaced"})


def test_writes_above_the_location_arrive_as_the_new_value_here(streams, owner):
    owner.set("/a/b", {"x": 1})
    stream = streams("/a/b")
    tree = started(stream)
    owner.set("/a", {"b": {"y": 2}, "sibling": 1})
    name, data = stream.next_event()
    tree = apply_event(tree, name, data)
    assert tree == {"y": 2}, (name, data)


def test_writes_elsewhere_send_nothing(streams, owner):
    stream = streams("/mine")
    started(stream)
    owner.set("/other", 1)
    owner.set("/minestrone", 1)  # a sibling sharing the prefix
    owner.set("/mine/x", 1)
    assert stream.next_event() == ("put", {"path": "/x", "data": 1})


def test_websocket_writes_reach_the_stream(streams, owner, database_host, ns):
    owner.set("/room", {"title": "t"})
    stream = streams("/room")
    tree = started(stream)
    connection = DatabaseSocket(database_host, ns)
    try:
        assert connection.put("/room/members/u1", True) == OK_WRITE
        event = stream.next_event()
        assert event == ("put", {"path": "/members/u1", "data": True}), event
        tree = apply_event(tree, *event)
        assert connection.merge("/room", {"title": "new", "members/u2": True}) == OK_WRITE
        name, data = stream.next_event()
        assert name == "patch", (name, data)
        assert data["path"] == "/", data
        tree = apply_event(tree, name, data)
        assert tree == {"title": "new", "members": {"u1": True, "u2": True}}
        assert tree == owner.value("/room")
    finally:
        connection.close()


def test_every_stream_gets_every_event(streams, owner):
    first, second = streams("/x"), streams("/")
    started(first)
    started(second)
    owner.set("/x/y", 1)
    assert first.next_event() == ("put", {"path": "/y", "data": 1})
    assert second.next_event() == ("put", {"path": "/x/y", "data": 1})


def test_an_idle_stream_stays_open(streams, owner):
    stream = streams("/idle")
    started(stream)
    time.sleep(2)  # idle on purpose: a server-side idle timeout or a stray frame would show here
    assert not stream.ended.is_set()
    owner.set("/idle", "awake")
    assert stream.next_event() == ("put", {"path": "/", "data": "awake"})  # keep-alives skipped, if any


def test_stream_refused_by_the_rules_is_a_401(streams, database_host, ns):
    load_rules(database_host, ns, {"rules": {".read": False}})
    stream = streams("/x", token=None)
    assert stream.status == 401, (stream.status, stream.body)
    assert stream.json_body() == {"error": "Permission denied"}


def test_stream_with_an_auth_parameter(streams, owner, database_host, ns, project_id):
    load_rules(database_host, ns, {"rules": {"users": {"$uid": {".read": "auth.uid === $uid"}}}})
    owner.set("/users/u1", {"name": "Ann"})
    stream = streams("/users/u1", token=user_token(project_id, "u1"), via="auth")
    assert started(stream) == {"name": "Ann"}
    refused = streams("/users/u1", token=user_token(project_id, "u2"), via="auth")
    assert refused.status == 401


def test_stream_is_cancelled_when_the_rules_stop_allowing_the_read(streams, owner, database_host, ns):
    load_rules(database_host, ns, {"rules": {".read": True, ".write": True}})
    owner.set("/open", {"a": 1})
    stream = streams("/open", token=None)
    assert started(stream) == {"a": 1}
    load_rules(database_host, ns, {"rules": {".read": False, ".write": True}})
    owner.set("/open/a", 2)  # whether or not the rules change alone triggers it, a change must not leak
    name, data = stream.next_event()
    assert (name, data) == ("cancel", None), (name, data)
    assert stream.next_event()[0] == "<end>"


def test_query_parameters_apply_to_streams(streams, owner):
    owner.set("/q", {"a": 1, "b": 2, "c": 3})
    stream = streams("/q", orderBy='"$key"', limitToFirst=2)
    assert started(stream) == {"a": 1, "b": 2}
    ranged = streams("/q", orderBy='"$value"', startAt=2)
    assert started(ranged) == {"b": 2, "c": 3}
