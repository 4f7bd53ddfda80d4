"""The Realtime Database REST API: `http://host/<path>.json?ns=<namespace>`.

What each group encodes, and where it comes from:
- Methods (firebase.google.com/docs/reference/rest/database): GET reads (`null` when absent), PUT overwrites
  and echoes the data written, PATCH updates named children (keys may be paths, null deletes) and echoes the
  body, POST adds a child under a server push id and answers `{"name": id}`, DELETE answers `null`;
  `X-HTTP-Method-Override` on a POST; the root is `/.json`.
- Parameters (docs/database/rest/retrieve-data, save-data): `print=silent` → 204 with no body (writes and
  reads), `print=pretty`, `shallow=true` (children replaced by `true`, not combinable with queries),
  `format=export` (`.priority`/`.value`), `orderBy` with JSON-encoded `"$key"`/`"$value"`/`"$priority"`/child
  path, `startAt`/`endAt`/`equalTo` JSON values, `limitToFirst`/`limitToLast`; filtering without `orderBy` is a
  400; results are an unsorted object holding exactly the window.
- Conditional requests (firebase.blog 2017 "Introducing Conditional REST Requests", firebase-admin-python
  db.py get(etag)/get_if_changed/set_if_unchanged): `X-Firebase-ETag: true` → `ETag`; an empty location's
  ETag is `null_etag`; `if-match` mismatch → 412 with the current value and its ETag; `if-none-match`
  match → 304.
- Errors are `{"error": "<text>"}`: 400 for unparsable JSON, invalid keys and bad query parameters, 401
  `Permission denied` when the rules refuse. Credentials: `?auth=`, `?access_token=`, `Authorization: Bearer`;
  `Bearer owner` is the emulator admin.
- Push ids: 20 characters of `-0-9A-Z_a-z`, the first 8 the creation time in ms; later ids sort after earlier.
- Emulator-only `GET /.inspect/databases.json?ns=<project>` lists the namespaces (firebase-tools hubExport.ts).
"""

from __future__ import annotations

import json

import pytest
import requests

from database_support import (
    SERVER_TIMESTAMP,
    DatabaseRest,
    DatabaseSocket,
    anonymous,  # noqa: F401 (fixture)
    data_push,
    database_host,  # noqa: F401 (fixture)
    increment,
    is_push_id,
    load_rules,
    now_ms,
    ns,  # noqa: F401 (fixture)
    owner,  # noqa: F401 (fixture)
    push_id_time,
    rest_denied,
    rest_error,
    user_token,
)

pytestmark = pytest.mark.timeout(60)

HEIGHTS = {
    "bruhathkayosaurus": {"height": 25, "name": "b"},
    "lambeosaurus": {"height": 2.1, "name": "l"},
    "linhenykus": {"height": 0.6, "name": "li"},
    "pterodactyl": {"height": 0.6, "name": "p"},
    "stegosaurus": {"height": 4, "name": "s"},
    "triceratops": {"height": 3, "name": "t"},
}


def q(value) -> str:
    """A JSON-encoded query parameter value, as the SDKs send it."""
    return json.dumps(value)


# --------------------------------------------------------------------------------------------
# Methods


def test_put_echoes_and_get_reads(owner):
    response = owner.put("/users/jack", {"first": "Jack", "last": "Sparrow"})
    assert response.status_code == 200, response.text
    assert response.headers.get("Content-Type", "").startswith("application/json"), response.headers
    assert response.json() == {"first": "Jack", "last": "Sparrow"}
    assert owner.value("/users/jack") == {"first": "Jack", "last": "Sparrow"}
    assert owner.value("/users/jack/first") == "Jack"
    assert owner.value("/") == {"users": {"jack": {"first": "Jack", "last": "Sparrow"}}}
    root = owner.http.get(f"http://{owner.host}/.json", params={"ns": owner.namespace},
                          headers={"Authorization": "Bearer owner"}, timeout=10)
    assert root.status_code == 200 and root.json() == {"users": {"jack": {"first": "Jack", "last": "Sparrow"}}}


def test_leaves_of_every_type(owner):
    for value in ("text", 42, -1.5, True, False, "", {"nested": {"deep": [1, 2]}}):
        response = owner.put("/v", value)
        assert response.status_code == 200 and response.json() == value, (value, response.text)
        assert owner.value("/v") == value


def test_get_of_an_absent_location_is_null(owner):
    response = owner.get("/nothing/here")
    assert response.status_code == 200
    assert response.text.strip() == "null"


def test_put_at_a_deep_path_creates_the_parents(owner):
    owner.set("/a/b/c", 1)
    assert owner.value("/a") == {"b": {"c": 1}}
    owner.set("/", {"replaced": True})  # PUT /.json replaces the whole database
    assert owner.value("/") == {"replaced": True}


def test_patch_updates_named_children_and_echoes_the_body(owner):
    owner.set("/users/jack", {"first": "Jack", "last": "Sparrow", "age": 40, "nick": {"a": 1, "b": 2}})
    body = {"last": "Jones", "nick/a": 10, "age": None}
    response = owner.patch("/users/jack", body)
    assert response.status_code == 200, response.text
    assert response.json() == body
    assert owner.value("/users/jack") == {"first": "Jack", "last": "Jones", "nick": {"a": 10, "b": 2}}


def test_patch_at_the_root_is_a_multi_location_update(owner):
    owner.set("/x", {"keep": 1})
    response = owner.patch("/", {"x/new": 2, "y/z": 3})
    assert response.status_code == 200
    assert owner.value("/") == {"x": {"keep": 1, "new": 2}, "y": {"z": 3}}


def test_post_adds_a_child_under_a_push_id(owner):
    before = now_ms()
    first = owner.post("/messages", {"text": "Ahoy!"})
    second = owner.post("/messages", "second")
    after = now_ms()
    assert first.status_code == 200 and second.status_code == 200
    assert set(first.json()) == {"name"} and set(second.json()) == {"name"}
    a, b = first.json()["name"], second.json()["name"]
    assert is_push_id(a) and is_push_id(b), (a, b)
    assert a < b  # later pushes sort after earlier ones
    assert before - 60_000 <= push_id_time(a) <= after + 60_000
    assert owner.value("/messages") == {a: {"text": "Ahoy!"}, b: "second"}


def test_delete_answers_null_and_removes(owner):
    owner.set("/a/b", {"c": 1})
    response = owner.delete("/a/b")
    assert response.status_code == 200
    assert response.text.strip() == "null"
    assert owner.value("/a") is None  # empty parents vanish


def test_put_null_deletes(owner):
    owner.set("/a", {"b": 1, "c": 2})
    owner.set("/a/b", None)
    assert owner.value("/a") == {"c": 2}
    response = owner.put("/a", {"c": None, "d": {"e": None}})
    assert response.status_code == 200
    assert owner.value("/a") is None


def test_method_override(owner):
    url = owner.url("/o")
    headers = {"Authorization": "Bearer owner"}
    params = {"ns": owner.namespace}
    put = requests.post(url, params=params, data=json.dumps({"a": 1, "b": 2}),
                        headers={**headers, "X-HTTP-Method-Override": "PUT"}, timeout=10)
    assert put.status_code == 200 and put.json() == {"a": 1, "b": 2}
    assert owner.value("/o") == {"a": 1, "b": 2}  # not pushed under an id
    patch = requests.post(url, params=params, data=json.dumps({"b": 3}),
                          headers={**headers, "X-HTTP-Method-Override": "PATCH"}, timeout=10)
    assert patch.status_code == 200
    assert owner.value("/o") == {"a": 1, "b": 3}
    delete = requests.post(url, params=params, headers={**headers, "X-HTTP-Method-Override": "DELETE"}, timeout=10)
    assert delete.status_code == 200
    assert owner.value("/o") is None


def test_server_values_over_rest(owner):
    before = now_ms()
    owner.set("/t", {"at": SERVER_TIMESTAMP, "n": 5})
    after = now_ms()
    stored = owner.value("/t")
    assert isinstance(stored["at"], int) and before - 1000 <= stored["at"] <= after + 1000, stored
    assert owner.patch("/t", {"n": increment(2)}).status_code == 200
    assert owner.value("/t/n") == 7


def test_rest_writes_reach_websocket_listeners(owner, database_host, ns):
    connection = DatabaseSocket(database_host, ns)
    try:
        start, ok_index = connection.listen("/feed")
        owner.set("/feed/one", {"v": 1})
        push = connection.wait_push(lambda p: p["b"]["p"].startswith("feed"), start=ok_index + 1)
        assert push == data_push("feed/one", {"v": 1}), push
    finally:
        connection.close()


# --------------------------------------------------------------------------------------------
# print, shallow, format


def test_print_silent_answers_204_without_a_body(owner):
    for method, body in (("PUT", {"a": 1}), ("PATCH", {"b": 2}), ("POST", "pushed")):
        response = owner.request(method, "/silent", body, params={"print": "silent"})
        assert response.status_code == 204, (method, response.status_code, response.text)
        assert response.content == b""
    stored = owner.value("/silent")
    assert stored["a"] == 1 and stored["b"] == 2 and list(stored.values()).count("pushed") == 1
    read = owner.get("/silent", print="silent")
    assert read.status_code == 204 and read.content == b""
    delete = owner.delete("/silent", print="silent")
    assert delete.status_code == 204 and delete.content == b""
    assert owner.value("/silent") is None


def test_print_pretty(owner):
    owner.set("/p", {"a": {"b": 1}, "c": [1, 2]})
    response = owner.get("/p", print="pretty")
    assert response.status_code == 200
    assert "\n" in response.text.strip()
    assert response.json() == {"a": {"b": 1}, "c": [1, 2]}


def test_shallow(owner):
    owner.set("/s", {"obj": {"deep": {"er": 1}}, "num": 3, "str": "x", "t": True})
    assert owner.value("/s", shallow="true") == {"obj": True, "num": True, "str": True, "t": True}
    assert owner.value("/s/num", shallow="true") == 3
    assert owner.value("/s/str", shallow="true") == "x"
    assert owner.value("/s/obj", shallow="true") == {"deep": True}
    assert owner.value("/nothing", shallow="true") is None
    rest_error(owner.get("/s", shallow="true", orderBy=q("$key")), 400)


def test_format_export_shows_priorities(owner):
    owner.set("/e", {"a": {".value": 1, ".priority": 2}, "b": {"c": "x", ".priority": "p"}})
    assert owner.value("/e") == {"a": 1, "b": {"c": "x"}}
    assert owner.value("/e", format="export") == {"a": {".value": 1, ".priority": 2},
                                                  "b": {"c": "x", ".priority": "p"}}
    owner.set("/e/b/.priority", 9)
    assert owner.value("/e/b", format="export") == {"c": "x", ".priority": 9}


def test_arrays_render_as_arrays(owner):
    owner.set("/arr", ["a", "b", "c"])
    assert owner.value("/arr") == ["a", "b", "c"]
    assert owner.value("/arr/1") == "b"
    assert owner.value("/arr", shallow="true") == {"0": True, "1": True, "2": True}


# --------------------------------------------------------------------------------------------
# ETags


def etag_of(rest: DatabaseRest, path: str) -> tuple[object, str]:
    response = rest.request("GET", path, headers={"X-Firebase-ETag": "true"})
    assert response.status_code == 200, response.text
    etag = response.headers.get("ETag")
    assert etag, response.headers
    return response.json(), etag


def test_etag_of_a_location(owner):
    assert etag_of(owner, "/e") == (None, "null_etag")
    owner.set("/e", {"a": 1})
    value, first = etag_of(owner, "/e")
    assert value == {"a": 1} and first != "null_etag"
    assert etag_of(owner, "/e")[1] == first  # deterministic
    owner.set("/e/a", 2)
    assert etag_of(owner, "/e")[1] != first
    owner.set("/e/a", 1)
    assert etag_of(owner, "/e")[1] == first  # a content hash, not a version counter


def test_if_match(owner):
    owner.set("/c", 1)
    _, etag = etag_of(owner, "/c")
    good = owner.request("PUT", "/c", 2, headers={"if-match": etag})
    assert good.status_code == 200 and good.json() == 2
    stale = owner.request("PUT", "/c", 3, headers={"if-match": etag})
    assert stale.status_code == 412, stale.text
    assert stale.json() == 2  # the current value
    assert stale.headers.get("ETag") == etag_of(owner, "/c")[1]
    assert owner.value("/c") == 2
    stale_delete = owner.request("DELETE", "/c", headers={"if-match": etag})
    assert stale_delete.status_code == 412
    assert owner.value("/c") == 2


def test_if_match_null_etag_creates_only_if_absent(owner):
    created = owner.request("PUT", "/once", {"v": 1}, headers={"if-match": "null_etag"})
    assert created.status_code == 200, created.text
    again = owner.request("PUT", "/once", {"v": 2}, headers={"if-match": "null_etag"})
    assert again.status_code == 412
    assert again.json() == {"v": 1}
    assert owner.value("/once") == {"v": 1}


def test_if_none_match(owner):
    owner.set("/n", {"x": 1})
    _, etag = etag_of(owner, "/n")
    unchanged = owner.request("GET", "/n", headers={"if-none-match": etag})
    assert unchanged.status_code == 304
    owner.set("/n/x", 2)
    changed = owner.request("GET", "/n", headers={"if-none-match": etag})
    assert changed.status_code == 200 and changed.json() == {"x": 2}
    assert changed.headers.get("ETag") not in (None, etag)


# --------------------------------------------------------------------------------------------
# Queries


def test_order_by_key_with_limits(owner):
    owner.set("/k", {"b": 1, "a": 2, "10": 3, "9": 4, "c": 5})
    assert owner.value("/k", orderBy=q("$key"), limitToFirst=2) == {"9": 4, "10": 3}
    assert owner.value("/k", orderBy=q("$key"), limitToLast=2) == {"b": 1, "c": 5}
    assert owner.value("/k", orderBy=q("$key"), startAt=q("a"), endAt=q("b")) == {"a": 2, "b": 1}
    assert owner.value("/k", orderBy=q("$key"), equalTo=q("c")) == {"c": 5}


def test_order_by_child(owner):
    owner.set("/dinos", HEIGHTS)
    assert owner.value("/dinos", orderBy=q("height"), startAt=3, endAt=10) == {
        "stegosaurus": HEIGHTS["stegosaurus"], "triceratops": HEIGHTS["triceratops"]}
    assert owner.value("/dinos", orderBy=q("height"), limitToFirst=2) == {
        "linhenykus": HEIGHTS["linhenykus"], "pterodactyl": HEIGHTS["pterodactyl"]}
    assert owner.value("/dinos", orderBy=q("height"), limitToLast=1) == {
        "bruhathkayosaurus": HEIGHTS["bruhathkayosaurus"]}
    assert owner.value("/dinos", orderBy=q("height"), equalTo=0.6) == {
        "linhenykus": HEIGHTS["linhenykus"], "pterodactyl": HEIGHTS["pterodactyl"]}
    assert owner.value("/dinos", orderBy=q("name"), equalTo=q("t")) == {"triceratops": HEIGHTS["triceratops"]}
    assert owner.value("/dinos", orderBy=q("height"), startAt=100) in ({}, None)


def test_order_by_nested_child_and_missing_children(owner):
    owner.set("/n", {"a": {"d": {"x": 2}}, "b": {"d": {"x": 1}}, "c": {"other": 1}})
    assert owner.value("/n", orderBy=q("d/x"), limitToFirst=2) == {"c": {"other": 1}, "b": {"d": {"x": 1}}}
    assert owner.value("/n", orderBy=q("d/x"), startAt=2) == {"a": {"d": {"x": 2}}}


def test_order_by_value(owner):
    owner.set("/scores", {"a": 50, "b": 10, "c": "text", "d": True, "e": 30})
    assert owner.value("/scores", orderBy=q("$value"), limitToLast=2) == {"a": 50, "c": "text"}
    assert owner.value("/scores", orderBy=q("$value"), limitToFirst=2) == {"d": True, "b": 10}
    assert owner.value("/scores", orderBy=q("$value"), startAt=20, endAt=60) == {"a": 50, "e": 30}
    assert owner.value("/scores", orderBy=q("$value"), equalTo="true") == {"d": True}


def test_order_by_priority(owner):
    owner.set("/pr", {"a": {".value": 1, ".priority": 3}, "b": {".value": 2, ".priority": 1},
                      "c": {".value": 3, ".priority": 2}})
    assert owner.value("/pr", orderBy=q("$priority"), limitToFirst=2) == {"b": 2, "c": 3}
    assert owner.value("/pr", orderBy=q("$priority"), startAt=2) == {"a": 1, "c": 3}


def test_query_parameter_errors(owner):
    owner.set("/k", {"a": 1})
    rest_error(owner.get("/k", limitToFirst=1), 400)  # orderBy must be defined
    rest_error(owner.get("/k", startAt=q("a")), 400)
    rest_error(owner.get("/k", orderBy="$key"), 400)  # not JSON-encoded
    rest_error(owner.get("/k", orderBy=q("$key"), limitToFirst="abc"), 400)
    rest_error(owner.get("/k", orderBy=q("$key"), startAt="not json"), 400)


# --------------------------------------------------------------------------------------------
# Bad input


def test_invalid_json_body_is_a_400(owner):
    for method in ("PUT", "PATCH", "POST"):
        response = owner.request(method, "/j", data=b'{"a": 1,,}')
        rest_error(response, 400)
    assert owner.value("/j") is None


def test_invalid_keys_are_a_400(owner):
    for bad in ({"a.b": 1}, {"x": {"c$d": 1}}, {"e#f": 1}, {"g[h]": 1}, {"": 1}, {"a/b": 1}):
        rest_error(owner.put("/bad", bad), 400)
    rest_error(owner.patch("/bad", {"ok": 1, "no.pe": 2}), 400)
    assert owner.value("/bad") is None
    rest_error(owner.put("/in.valid/path", 1), 400)


def test_patch_needs_an_object(owner):
    rest_error(owner.patch("/p", 5), 400)
    assert owner.value("/p") is None


# --------------------------------------------------------------------------------------------
# Credentials and rules


def test_credentials_in_every_place(database_host, ns, project_id):
    load_rules(database_host, ns, {"rules": {".read": "auth != null", ".write": "auth != null"}})
    token = user_token(project_id, "u1")
    rest_denied(DatabaseRest(database_host, ns).get("/x"))
    rest_denied(DatabaseRest(database_host, ns).put("/x", 1))
    for via in ("header", "auth", "access_token"):
        client = DatabaseRest(database_host, ns, token, via)
        response = client.put("/x", via)
        assert response.status_code == 200, (via, response.text)
        assert client.value("/x") == via
    admin = DatabaseRest(database_host, ns, "owner")
    assert admin.value("/x") == "access_token"


def test_owner_bypasses_rules(database_host, ns):
    load_rules(database_host, ns, {"rules": {".read": False, ".write": False}})
    admin = DatabaseRest(database_host, ns, "owner")
    admin.set("/locked", {"a": 1})
    assert admin.value("/locked") == {"a": 1}
    rest_denied(DatabaseRest(database_host, ns).get("/locked"))


# --------------------------------------------------------------------------------------------
# Emulator endpoints


def test_inspect_lists_namespaces(owner, project_id):
    owner.set("/here", True)
    response = requests.get(f"http://{owner.host}/.inspect/databases.json", params={"ns": project_id},
                            headers={"Authorization": "Bearer owner"}, timeout=10)
    assert response.status_code == 200, response.text
    listed = response.json()
    assert isinstance(listed, list)
    assert {"name": owner.namespace} in listed, listed
    assert all(isinstance(entry, dict) and isinstance(entry.get("name"), str) for entry in listed), listed
