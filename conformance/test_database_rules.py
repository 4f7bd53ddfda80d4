"""Realtime Database security rules (database.rules.json) over REST and the WebSocket, as production
evaluates them, and the chat app's rules.

What each group encodes, and where it comes from (firebase.google.com/docs/database/security/core-syntax,
/rules-conditions, /docs/reference/security/database, /docs/database/security/rules-conditions#query-based_rules):
- `.read`/`.write` cascade: a grant at a location covers everything below it and a deeper rule cannot take it
  back; a read of a parent needs a grant at the parent or above (children's grants do not add up).
- `.validate` does not cascade, runs only when access was granted, is not applied to deletes, and is
  evaluated for every node whose value the write changes — including ancestors of the written location,
  with `newData` being the data as it would be after the write; `$other: {".validate": false}` refuses
  unknown children.
- Variables: `auth` (null when signed out, `auth.uid`, `auth.token.<claim>` with custom claims and
  `auth.token.firebase.sign_in_provider`), `$wildcard` captures, `root`/`data`/`newData` snapshots with
  child()/parent()/exists()/hasChild()/hasChildren()/isNumber()/isString()/isBoolean()/val(), `now`, string
  methods (length, contains, beginsWith, endsWith, replace, toLowerCase, toUpperCase, matches(/regex/)).
- Query-based rules: `query.orderByChild`, `query.equalTo`, `query.limitToFirst` see the REST query
  parameters and the WebSocket query object.
- A PATCH / WebSocket merge is allowed only if every path it touches is; otherwise nothing is written.
- Denials: REST 401 `{"error": "Permission denied"}`, WebSocket `{"s":"permission_denied","d":"Permission
  denied"}`.
- Rules are set with `PUT /.settings/rules.json` (comments allowed) and read back with GET; a parse error is
  a 400 `{"error"}` whose message names the line ("<line>:<column>: …", as the Firebase CLI shows deploy errors).
"""

from __future__ import annotations

import json
import re

import pytest
import requests

from database_support import (
    CHAT_RULES,
    OK_WRITE,
    PERMISSION_DENIED,
    SERVER_TIMESTAMP,
    assert_listen_ok,
    DatabaseRest,
    database_host,  # noqa: F401 (fixture)
    get_rules,
    load_rules,
    now_ms,
    ns,  # noqa: F401 (fixture)
    owner,  # noqa: F401 (fixture)
    put_rules,
    rest_denied,
    rest_error,
    sockets,  # noqa: F401 (fixture)
    strip_comments,
    user_token,
)

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def as_user(database_host, ns, project_id):
    """REST as a signed-in user (`?auth=<unsigned ID token>`), or signed out with uid None."""

    def make(uid: str | None, **claims) -> DatabaseRest:
        if uid is None:
            return DatabaseRest(database_host, ns)
        return DatabaseRest(database_host, ns, user_token(project_id, uid, **claims), via="auth")

    return make


def ok(response):
    assert response.status_code == 200, f"{response.status_code} {response.text}"
    return response.json()


# --------------------------------------------------------------------------------------------
# Rules endpoint


def test_rules_round_trip_with_comments(database_host, ns):
    text = """{
  // who may read what
  "rules": {
    /* everything is public */
    ".read": true,
    ".write": "auth != null"
  }
}"""
    response = put_rules(database_host, ns, text)
    assert response.status_code == 200, response.text
    read = get_rules(database_host, ns)
    assert read.status_code == 200
    assert json.loads(strip_comments(read.text)) == {"rules": {".read": True, ".write": "auth != null"}}


def test_rules_parse_error_names_the_line(database_host, ns):
    bad_expression = '{\n  "rules": {\n    ".read": "auth != null &&",\n    ".write": false\n  }\n}'
    message = rest_error(put_rules(database_host, ns, bad_expression), 400)
    assert re.search(r"(^|\D)3:\d+", message) or re.search(r"(?i)line 3\b", message), message
    unknown_method = '{\n  "rules": {\n    "a": {\n      ".validate": "newData.isArray()"\n    }\n  }\n}'
    message = rest_error(put_rules(database_host, ns, unknown_method), 400)
    assert re.search(r"(^|\D)4:\d+", message) or re.search(r"(?i)line 4\b", message), message
    assert "isArray" in message, message
    not_json = '{\n  "rules": {\n    ".read": true\n    ".write": true\n  }\n}'
    message = rest_error(put_rules(database_host, ns, not_json), 400)
    assert re.search(r"(^|\D)4:\d+", message) or re.search(r"(?i)line 4\b", message), message


def test_rejected_rules_leave_the_previous_ones(database_host, ns, as_user):
    load_rules(database_host, ns, {"rules": {".read": True, ".write": False}})
    assert put_rules(database_host, ns, '{"rules": {".read": "nonsense(("}}').status_code == 400
    rest_denied(as_user(None).put("/x", 1))
    assert ok(as_user(None).get("/x")) is None


# --------------------------------------------------------------------------------------------
# Cascading


def test_grants_cascade_and_cannot_be_revoked_below(database_host, ns, owner, as_user):
    load_rules(database_host, ns, {"rules": {
        "public": {".read": True, "secret": {".read": False}},
        "board": {".write": "auth != null", "locked": {".write": False}},
        "items": {"$id": {".read": True}},
    }})
    owner.set("/public", {"secret": {"x": 1}, "y": 2})
    owner.set("/items", {"a": 1, "b": 2})
    anonymous, signed_in = as_user(None), as_user("u1")
    assert ok(anonymous.get("/public/secret")) == {"x": 1}  # the shallower grant wins
    assert ok(anonymous.get("/public")) == {"secret": {"x": 1}, "y": 2}
    rest_denied(anonymous.get("/"))
    assert ok(anonymous.get("/items/a")) == 1
    rest_denied(anonymous.get("/items"))  # grants on every child do not make a grant on the parent
    ok(signed_in.put("/board/locked/z", 1))  # write granted at /board covers /board/locked
    rest_denied(anonymous.put("/board/post", 1))


def test_websocket_sees_the_same_cascade(sockets, database_host, ns, owner, project_id):
    load_rules(database_host, ns, {"rules": {"public": {".read": True, ".write": "auth != null"}}})
    owner.set("/public/a", 1)
    anonymous = sockets()
    assert anonymous.get("/public/a") == {"s": "ok", "d": 1}
    assert anonymous.get("/") == PERMISSION_DENIED
    assert anonymous.put("/public/b", 2) == PERMISSION_DENIED
    signed_in = sockets(user_token(project_id, "u1"))
    assert signed_in.put("/public/b", 2) == OK_WRITE
    assert signed_in.put("/elsewhere", 2) == PERMISSION_DENIED


# --------------------------------------------------------------------------------------------
# Validation


WIDGET_RULES = {"rules": {
    ".read": True,
    "valid_colors": {".write": False},
    "widget": {
        ".write": True,
        ".validate": "newData.hasChildren(['color', 'size'])",
        "size": {".validate": "newData.isNumber() && newData.val() >= 0 && newData.val() <= 99"},
        "color": {".validate": "root.child('valid_colors/' + newData.val()).exists()"},
        "$other": {".validate": False},
    },
}}


def test_validate_rules(database_host, ns, owner, as_user):
    load_rules(database_host, ns, WIDGET_RULES)
    owner.set("/valid_colors", {"red": True, "blue": True})
    client = as_user(None)
    ok(client.put("/widget", {"color": "red", "size": 10}))
    rest_denied(client.put("/widget", {"color": "green", "size": 10}))  # not a valid color
    rest_denied(client.put("/widget", {"color": "red", "size": 100}))
    rest_denied(client.put("/widget", {"color": "red", "size": "10"}))
    rest_denied(client.put("/widget", {"color": "red"}))  # hasChildren
    rest_denied(client.put("/widget", {"color": "red", "size": 1, "extra": 1}))  # $other
    ok(client.put("/widget/size", 20))  # the parent's validate sees the merged result
    rest_denied(client.put("/widget/size", -1))
    ok(client.patch("/widget", {"color": "blue", "size": 30}))
    rest_denied(client.patch("/widget", {"color": "blue", "size": 300}))  # all or nothing
    assert ok(client.get("/widget")) == {"color": "blue", "size": 30}
    rest_denied(client.delete("/widget/size"))  # the widget left behind would lack its size
    ok(client.delete("/widget"))  # validate is not applied to deletes
    assert ok(client.get("/widget")) is None


def test_validate_needs_a_write_grant(database_host, ns, as_user):
    load_rules(database_host, ns, {"rules": {"x": {".validate": True}}})
    rest_denied(as_user(None).put("/x", 1))


def test_type_and_string_methods(database_host, ns, as_user):
    load_rules(database_host, ns, {"rules": {"$key": {
        ".write": True,
        "code": {".validate": "newData.isString() && newData.val().matches(/^[A-Z]{3}-\\d+$/)"},
        "name": {".validate": "newData.val().length >= 2 && newData.val().length <= 5 && "
                              "newData.val().toLowerCase() == newData.val()"},
        "url": {".validate": "newData.val().beginsWith('https://') && newData.val().endsWith('.com') && "
                             "!newData.val().contains(' ')"},
        "slug": {".validate": "newData.val().replace('-', '') == 'abc' && newData.val().toUpperCase() == 'A-BC'"},
        "flag": {".validate": "newData.isBoolean()"},
        "n": {".validate": "newData.isNumber() && newData.val() % 2 == 0"},
    }}})
    client = as_user(None)
    ok(client.put("/k/code", "ABC-123"))
    rest_denied(client.put("/k/code", "abc-123"))
    rest_denied(client.put("/k/code", 123))
    ok(client.put("/k/name", "ann"))
    rest_denied(client.put("/k/name", "Ann"))
    rest_denied(client.put("/k/name", "a"))
    rest_denied(client.put("/k/name", "annabel"))
    ok(client.put("/k/url", "https://example.com"))
    rest_denied(client.put("/k/url", "http://example.com"))
    rest_denied(client.put("/k/url", "https://ex ample.com"))
    ok(client.put("/k/slug", "a-bc"))
    rest_denied(client.put("/k/slug", "abd"))
    ok(client.put("/k/flag", False))
    rest_denied(client.put("/k/flag", "false"))
    ok(client.put("/k/n", 4))
    rest_denied(client.put("/k/n", 3))


# --------------------------------------------------------------------------------------------
# auth, wildcards, snapshots, now


def test_wildcards_and_auth_uid(database_host, ns, as_user, sockets, project_id):
    load_rules(database_host, ns, {"rules": {"users": {"$uid": {
        ".read": "auth != null && auth.uid == $uid",
        ".write": "auth != null && auth.uid == $uid",
        "posts": {"$post": {".validate": "$post.beginsWith('p')"}},
    }}}})
    ok(as_user("u1").put("/users/u1", {"name": "Ann"}))
    rest_denied(as_user("u2").put("/users/u1", {"name": "Eve"}))
    rest_denied(as_user(None).get("/users/u1"))
    assert ok(as_user("u1").get("/users/u1")) == {"name": "Ann"}
    ok(as_user("u1").put("/users/u1/posts/p1", "hello"))
    rest_denied(as_user("u1").put("/users/u1/posts/q1", "hello"))
    socket_u2 = sockets(user_token(project_id, "u2"))
    assert socket_u2.put("/users/u2/name", "Bob") == OK_WRITE
    assert socket_u2.get("/users/u1") == PERMISSION_DENIED


def test_auth_token_claims(database_host, ns, as_user):
    load_rules(database_host, ns, {"rules": {
        "admin": {".read": "auth.token.admin === true", ".write": "auth.token.admin === true"},
        "verified": {".write": "auth.token.email_verified == true && auth.token.email.endsWith('@example.com')"},
        "provider": {".write": "auth.token.firebase.sign_in_provider == 'custom'"},
    }})
    ok(as_user("boss", admin=True).put("/admin/x", 1))
    rest_denied(as_user("pleb").put("/admin/x", 1))
    rest_denied(as_user("pleb", admin="true").put("/admin/x", 1))  # strict equality with a string
    ok(as_user("v", email="v@example.com", email_verified=True).put("/verified/x", 1))
    rest_denied(as_user("w", email="w@example.com", email_verified=False).put("/verified/x", 1))
    rest_denied(as_user("x", email="x@other.org", email_verified=True).put("/verified/x", 1))
    ok(as_user("c").put("/provider/x", 1))


def test_root_data_and_new_data(database_host, ns, owner, as_user):
    load_rules(database_host, ns, {"rules": {
        "admins": {".read": False},
        "docs": {"$doc": {
            ".read": "data.child('owner').val() == auth.uid || root.child('admins').child(auth.uid).exists()",
            ".write": "(!data.exists() && newData.child('owner').val() == auth.uid) || "
                      "(data.exists() && data.child('owner').val() == auth.uid && "
                      "newData.child('owner').val() == data.child('owner').val()) || "
                      "root.child('admins/' + auth.uid).val() === true",
        }},
        "once": {"$id": {".write": "!data.exists()", ".read": True}},
        "pairs": {"$id": {".write": True, "a": {".validate": "newData.parent().child('b').val() == newData.val()"}}},
    }})
    owner.set("/admins", {"root1": True})
    alice, bob, admin = as_user("alice"), as_user("bob"), as_user("root1")
    ok(alice.put("/docs/d1", {"owner": "alice", "text": "hi"}))
    rest_denied(bob.put("/docs/d2", {"owner": "alice", "text": "forged"}))
    rest_denied(bob.put("/docs/d1", {"owner": "bob", "text": "stolen"}))
    rest_denied(alice.put("/docs/d1", {"owner": "bob", "text": "give away"}))
    ok(alice.put("/docs/d1/text", "edited"))
    rest_denied(bob.get("/docs/d1"))
    assert ok(admin.get("/docs/d1")) == {"owner": "alice", "text": "edited"}
    ok(admin.put("/docs/d1/text", "moderated"))
    ok(bob.put("/once/x", 1))
    rest_denied(bob.put("/once/x", 2))
    ok(bob.put("/pairs/p", {"a": 1, "b": 1}))
    rest_denied(bob.put("/pairs/q", {"a": 1, "b": 2}))


def test_now(database_host, ns, as_user, sockets):
    load_rules(database_host, ns, {"rules": {"events": {"$id": {
        ".write": True,
        ".read": True,
        "at": {".validate": "newData.isNumber() && newData.val() <= now && newData.val() > now - 60000"},
    }}}})
    client = as_user(None)
    ok(client.put("/events/a/at", SERVER_TIMESTAMP))
    ok(client.put("/events/b/at", now_ms() - 1000))
    rest_denied(client.put("/events/c/at", now_ms() + 3_600_000))
    rest_denied(client.put("/events/d/at", now_ms() - 3_600_000))
    connection = sockets()
    assert connection.put("/events/e", {"at": SERVER_TIMESTAMP}) == OK_WRITE
    assert connection.put("/events/f", {"at": now_ms() + 3_600_000}) == PERMISSION_DENIED


# --------------------------------------------------------------------------------------------
# Query-based rules


QUERY_RULES = {"rules": {
    "notes": {
        ".read": "auth != null && query.orderByChild == 'owner' && query.equalTo == auth.uid",
        ".write": True,
    },
    "feed": {".read": "query.limitToFirst <= 2", ".write": True},
}}


def test_query_based_rules_over_rest(database_host, ns, owner, as_user):
    load_rules(database_host, ns, QUERY_RULES)
    owner.set("/notes", {"n1": {"owner": "u1", "t": "a"}, "n2": {"owner": "u2", "t": "b"}})
    owner.set("/feed", {"a": 1, "b": 2, "c": 3})
    u1 = as_user("u1")
    assert ok(u1.get("/notes", orderBy='"owner"', equalTo='"u1"')) == {"n1": {"owner": "u1", "t": "a"}}
    rest_denied(u1.get("/notes"))
    rest_denied(u1.get("/notes", orderBy='"owner"', equalTo='"u2"'))
    rest_denied(u1.get("/notes", orderBy='"t"', equalTo='"u1"'))
    assert ok(u1.get("/feed", orderBy='"$key"', limitToFirst=2)) == {"a": 1, "b": 2}
    rest_denied(u1.get("/feed", orderBy='"$key"', limitToFirst=3))
    rest_denied(u1.get("/feed"))


def test_query_based_rules_over_websocket(database_host, ns, owner, sockets, project_id):
    load_rules(database_host, ns, QUERY_RULES)
    owner.set("/notes", {"n1": {"owner": "u1"}, "n2": {"owner": "u2"}})
    u1 = sockets(user_token(project_id, "u1"))
    equal_u1 = {"i": "owner", "sp": "u1", "sin": True, "ep": "u1", "ein": True}  # orderByChild('owner').equalTo('u1')
    start, index = u1.listen("/notes", query=equal_u1, tag=1)
    assert_listen_ok(u1.messages[index]["d"]["b"])
    assert {"a": "d", "b": {"p": "notes", "d": {"n1": {"owner": "u1"}}, "t": 1}} in u1.pushes(start, index)
    _, index = u1.listen("/notes", query={"i": "owner", "sp": "u2", "sin": True, "ep": "u2", "ein": True}, tag=2)
    assert u1.messages[index]["d"]["b"] == PERMISSION_DENIED
    _, index = u1.listen("/notes")
    assert u1.messages[index]["d"]["b"] == PERMISSION_DENIED
    assert u1.get("/feed", {"i": ".key", "l": 2, "vf": "l"}) == {"s": "ok", "d": None}
    assert u1.get("/feed", {"i": ".key", "l": 5, "vf": "l"}) == PERMISSION_DENIED


# --------------------------------------------------------------------------------------------
# Multi-path writes and admin


def test_multi_path_update_is_all_or_nothing(database_host, ns, as_user, sockets, owner):
    load_rules(database_host, ns, {"rules": {"open": {".write": True}, "closed": {".write": False}}})
    rest_denied(as_user(None).patch("/", {"open/a": 1, "closed/b": 2}))
    connection = sockets()
    assert connection.merge("/", {"open/c": 3, "closed/d": 4}) == PERMISSION_DENIED
    assert owner.value("/") is None
    ok(as_user(None).patch("/", {"open/a": 1, "open/b": 2}))
    assert owner.value("/") == {"open": {"a": 1, "b": 2}}


def test_owner_bypasses_everything(database_host, ns, owner, sockets):
    load_rules(database_host, ns, {"rules": {".read": False, ".write": False, "x": {".validate": False}}})
    owner.set("/x", "admin writes skip validation too")
    assert owner.value("/x") == "admin writes skip validation too"
    admin = sockets(admin=True)
    assert admin.put("/y", 1) == OK_WRITE
    assert admin.get("/x") == {"s": "ok", "d": "admin writes skip validation too"}


# --------------------------------------------------------------------------------------------
# The chat app's rules


def test_chat_rules_fixture_is_the_apps_file():
    rules = json.loads(strip_comments(CHAT_RULES))
    assert rules == {"rules": {"presence": {"$userId": {
        ".read": "auth != null", ".write": "auth != null && auth.uid == $userId"}}}}


def test_chat_rules(database_host, ns, as_user, sockets, project_id):
    load_rules(database_host, ns, CHAT_RULES)
    u1, u2, anonymous = as_user("u1"), as_user("u2"), as_user(None)
    ok(u1.put("/presence/u1", {"online": True, "lastSeen": SERVER_TIMESTAMP}))
    rest_denied(u2.put("/presence/u1", {"online": False}))
    rest_denied(anonymous.put("/presence/u1", {"online": False}))
    seen = ok(u2.get("/presence/u1"))
    assert seen["online"] is True and isinstance(seen["lastSeen"], int)
    rest_denied(anonymous.get("/presence/u1"))
    rest_denied(u1.get("/presence"))
    rest_denied(u1.put("/elsewhere", 1))
    connection = sockets(user_token(project_id, "u2"))
    assert connection.put("/presence/u2", {"online": True}) == OK_WRITE
    assert connection.call("o", {"p": "/presence/u2", "d": {"online": False, "lastSeen": SERVER_TIMESTAMP}}) == OK_WRITE
    assert connection.put("/presence/u1", {"online": True}) == PERMISSION_DENIED


# --------------------------------------------------------------------------------------------
# coverage (emulator only)


def test_rules_coverage_counts_evaluations(database_host, ns, as_user):
    rules = '{"rules": {"open": {".read": true}, "closed": {".read": "auth != null && auth.uid == \'nobody\'"}, "never": {".write": false}}}'
    ok(put_rules(database_host, ns, rules))
    anonymous = as_user(None)
    assert anonymous.get("/open/x").status_code == 200
    assert anonymous.get("/closed/x").status_code == 401
    report = requests.get(f"http://{database_host}/.inspect/coverage.json", params={"ns": ns}, timeout=10)
    assert report.status_code == 200, report.text
    by_path = {(rule["path"], rule["kind"]): rule for rule in report.json()["rules"]}
    assert by_path[("/open", ".read")]["true"] >= 1
    assert by_path[("/closed", ".read")]["false"] >= 1
    assert by_path[("/never", ".write")]["evaluations"] == 0
    page = requests.get(f"http://{database_host}/.inspect/coverage", params={"ns": ns}, timeout=10)
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "&amp;&amp; auth.uid == " in page.text
