"""firebase-admin's `db` module (Python, pinned in requirements.txt) against the emulator.

What each group encodes, and where it comes from (firebase-admin-python 7.7.0 `firebase_admin/db.py`,
`_sseclient.py`, `_utils.EmulatorAdminCredentials`):
- Emulator mode: a `databaseURL` of `http://host:port?ns=<ns>`, or an `https://<ns>.firebaseio.com` URL with
  FIREBASE_DATABASE_EMULATOR_HOST set; the SDK then sends `Authorization: Bearer owner` and `?ns=`.
- get/set/update/push/delete are REST calls (`print=silent` on set and update, POST → `{"name"}` for push);
  `get(shallow=True)`; `get(etag=True)` reads the `ETag` header (`null_etag` when empty);
  `get_if_changed` relies on 304 for `if-none-match`; `set_if_unchanged` and `transaction` rely on 412 with
  the current value and `ETag` for a stale `if-match`.
- Queries send `orderBy` as JSON plus `startAt`/`endAt`/`equalTo`/limits; the server returns exactly the
  window (the SDK sorts it client-side).
- `listen` reads the SSE stream: the first event is a put of the whole value at "/", then put/patch events.
- `databaseAuthVariableOverride` sends `auth_variable_override=<json>`: rules see that `auth`.
"""

from __future__ import annotations

import threading
import uuid

import pytest

from database_support import (
    database_host,  # noqa: F401 (fixture)
    is_push_id,
    load_rules,
    ns,  # noqa: F401 (fixture)
    owner,  # noqa: F401 (fixture)
)

pytestmark = pytest.mark.timeout(60)

HEIGHTS = {
    "bruhathkayosaurus": {"height": 25, "length": 44},
    "lambeosaurus": {"height": 2.1, "length": 12.5},
    "linhenykus": {"height": 0.6, "length": 1},
    "pterodactyl": {"height": 0.6, "length": 0.8},
    "stegosaurus": {"height": 4, "length": 9},
    "triceratops": {"height": 3, "length": 9},
}


def make_app(options: dict):
    import firebase_admin

    return firebase_admin.initialize_app(options=options, name=f"db-{uuid.uuid4().hex[:10]}")


@pytest.fixture
def admin_db(database_host, ns, project_id):
    """`reference(path)` on a firebase_admin app pointed at this test's namespace."""
    import firebase_admin
    from firebase_admin import db

    app = make_app({"databaseURL": f"http://{database_host}?ns={ns}", "projectId": project_id})
    yield lambda path="/": db.reference(path, app=app)
    firebase_admin.delete_app(app)


def test_set_get_and_children(admin_db):
    ref = admin_db("/users/jack")
    ref.set({"first": "Jack", "last": "Sparrow", "tags": ["a", "b"]})
    assert ref.get() == {"first": "Jack", "last": "Sparrow", "tags": ["a", "b"]}
    assert ref.child("first").get() == "Jack"
    assert admin_db("/users").get() == {"jack": {"first": "Jack", "last": "Sparrow", "tags": ["a", "b"]}}
    assert admin_db("/missing").get() is None
    ref.child("age").set(40)
    assert ref.child("age").get() == 40


def test_update_is_multi_location(admin_db):
    root = admin_db("/")
    root.child("a").set({"keep": 1, "change": 1})
    root.update({"a/change": 2, "b/c": "new", "a/gone": None})
    assert root.get() == {"a": {"keep": 1, "change": 2}, "b": {"c": "new"}}
    root.child("a").update({"keep": None})
    assert root.child("a").get() == {"change": 2}


def test_push_adds_children_under_push_ids(admin_db):
    messages = admin_db("/messages")
    first = messages.push({"text": "hi"})
    second = messages.push()
    assert is_push_id(first.key) and is_push_id(second.key)
    assert first.key < second.key
    assert messages.get() == {first.key: {"text": "hi"}, second.key: ""}


def test_delete(admin_db):
    ref = admin_db("/doomed")
    ref.set({"x": 1})
    ref.child("x").delete()
    assert ref.get() is None
    assert admin_db("/").get() is None


def test_shallow_get(admin_db):
    ref = admin_db("/s")
    ref.set({"a": {"deep": 1}, "b": 2})
    assert ref.get(shallow=True) == {"a": True, "b": True}


def test_etags(admin_db):
    ref = admin_db("/e")
    assert ref.get(etag=True) == (None, "null_etag")
    ref.set({"v": 1})
    value, etag = ref.get(etag=True)
    assert value == {"v": 1} and isinstance(etag, str) and etag != "null_etag"
    assert ref.get_if_changed(etag) == (False, None, None)
    ref.child("v").set(2)
    changed, new_value, new_etag = ref.get_if_changed(etag)
    assert changed is True and new_value == {"v": 2} and new_etag not in (None, etag)


def test_set_if_unchanged(admin_db):
    ref = admin_db("/c")
    ok, value, _ = ref.set_if_unchanged("null_etag", {"n": 1})
    assert ok is True and value == {"n": 1}
    assert ref.get() == {"n": 1}
    ok, current, etag = ref.set_if_unchanged("null_etag", {"n": 99})
    assert ok is False and current == {"n": 1}
    assert etag == ref.get(etag=True)[1]
    ok, value, _ = ref.set_if_unchanged(etag, {"n": 2})
    assert ok is True and ref.get() == {"n": 2}


def test_transaction(admin_db):
    counter = admin_db("/counter")
    assert counter.transaction(lambda current: (current or 0) + 1) == 1
    assert counter.transaction(lambda current: (current or 0) + 1) == 2
    calls = []

    def contended(current):
        calls.append(current)
        if len(calls) == 1:
            counter.set(10)  # another writer gets in between: the first attempt must be refused (412)
        return (current or 0) + 1

    assert counter.transaction(contended) == 11
    assert calls == [2, 10]
    assert counter.get() == 11


def test_transaction_that_raises_leaves_the_data(admin_db):
    ref = admin_db("/t")
    ref.set("before")

    def refuse(_current):
        raise ValueError("no")

    with pytest.raises(ValueError):
        ref.transaction(refuse)
    assert ref.get() == "before"


def test_order_by_child_queries(admin_db):
    dinos = admin_db("/dinos")
    dinos.set(HEIGHTS)
    result = dinos.order_by_child("height").start_at(3).end_at(10).get()
    assert list(result) == ["triceratops", "stegosaurus"]
    result = dinos.order_by_child("height").limit_to_first(3).get()
    assert list(result) == ["linhenykus", "pterodactyl", "lambeosaurus"]
    result = dinos.order_by_child("height").limit_to_last(2).get()
    assert list(result) == ["stegosaurus", "bruhathkayosaurus"]
    result = dinos.order_by_child("height").equal_to(0.6).get()
    assert list(result) == ["linhenykus", "pterodactyl"]
    result = dinos.order_by_child("length").start_at(9).limit_to_first(2).get()
    assert dict(result) == {"stegosaurus": HEIGHTS["stegosaurus"], "triceratops": HEIGHTS["triceratops"]}


def test_order_by_key_and_value(admin_db):
    scores = admin_db("/scores")
    scores.set({"b": 10, "a": 30, "d": 20, "c": 5})
    assert list(scores.order_by_key().limit_to_first(2).get()) == ["a", "b"]
    assert list(scores.order_by_key().start_at("c").get()) == ["c", "d"]
    assert list(scores.order_by_value().limit_to_last(2).get()) == ["d", "a"]
    assert dict(scores.order_by_value().start_at(10).end_at(20).get()) == {"b": 10, "d": 20}
    assert dict(scores.order_by_value().equal_to(5).get()) == {"c": 5}


# ListenerRegistration.close() closes the response under the SDK's reader thread, which then dies with an
# AttributeError inside urllib3 (firebase-admin 7.7.0 client-side; the events asserted here all came first).
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_listen(admin_db):
    ref = admin_db("/live")
    ref.set({"a": 1})
    events = []
    arrived = threading.Condition()

    def callback(event):
        with arrived:
            events.append((event.event_type, event.path, event.data))
            arrived.notify_all()

    def wait_for(count: int):
        with arrived:
            assert arrived.wait_for(lambda: len(events) >= count, timeout=10), events

    registration = ref.listen(callback)
    try:
        wait_for(1)
        assert events[0] == ("put", "/", {"a": 1})
        ref.child("b").set(2)
        wait_for(2)
        assert events[1] == ("put", "/b", 2)
        ref.update({"c": 3})
        wait_for(3)
        assert events[2] == ("patch", "/", {"c": 3})
        ref.child("a").delete()
        wait_for(4)
        assert events[3] == ("put", "/a", None)
    finally:
        registration.close()


def test_emulator_host_variable_with_a_production_url(database_host, ns, project_id, monkeypatch, owner):
    import firebase_admin
    from firebase_admin import db

    monkeypatch.setenv("FIREBASE_DATABASE_EMULATOR_HOST", database_host)
    app = make_app({"databaseURL": f"https://{ns}.firebaseio.com", "projectId": project_id})
    try:
        db.reference("/via-env", app=app).set("yes")
        assert owner.value("/via-env") == "yes"  # same namespace, taken from the URL's host
    finally:
        firebase_admin.delete_app(app)


def test_auth_variable_override(database_host, ns, project_id):
    import firebase_admin
    from firebase_admin import db, exceptions

    load_rules(database_host, ns, {"rules": {"users": {"$uid": {
        ".read": "auth != null && auth.uid === $uid", ".write": "auth != null && auth.uid === $uid"}}}})
    url = f"http://{database_host}?ns={ns}"
    as_u1 = make_app({"databaseURL": url, "projectId": project_id, "databaseAuthVariableOverride": {"uid": "u1"}})
    as_nobody = make_app({"databaseURL": url, "projectId": project_id, "databaseAuthVariableOverride": None})
    try:
        db.reference("/users/u1", app=as_u1).set({"name": "Ann"})
        assert db.reference("/users/u1", app=as_u1).get() == {"name": "Ann"}
        with pytest.raises(exceptions.FirebaseError) as denied:
            db.reference("/users/u2", app=as_u1).set({"name": "Bob"})
        assert "Permission denied" in str(denied.value)
        with pytest.raises(exceptions.FirebaseError):
            db.reference("/users/u1", app=as_nobody).get()
    finally:
        firebase_admin.delete_app(as_u1)
        firebase_admin.delete_app(as_nobody)
