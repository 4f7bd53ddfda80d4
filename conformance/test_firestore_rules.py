"""Firestore security rules enforced on the REST API, as production enforces them.

- Each request is one method: a document read is `get`, a query or a collection listing is `list`, a write
  to an absent document is `create`, to an existing one `update`, a delete is `delete`.
- `request.resource.data` is the document as it would be after the write (a masked patch merged into the
  stored fields, transforms applied: a server timestamp equals `request.time`).
- `getAfter()` sees the state after the whole commit.
- Rules are not filters: a query is allowed only if the rules hold for every document it could return,
  judged from the query's constraints, whatever the stored data.
- A denial is 403 `{"error":{"code":403,"message":"Missing or insufficient permissions.","status":
  "PERMISSION_DENIED"}}` (the message every SDK surfaces for a rules denial).
- `Authorization: Bearer owner` bypasses rules; a project without rules is open, as in the official emulator.

Rules are loaded per project through the official emulator's `PUT /emulator/v1/projects/{p}:securityRules`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from firestore_support import (
    Firestore,
    Timestamp,
    data_of,
    delete,
    encode,
    field_filter,
    firestore_host,  # noqa: F401 (fixture)
    new_project,
    ok,
    permission_denied,
    query,
    update,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "firestore"
STAMP = [{"fieldPath": "timestamp", "setToServerValue": "REQUEST_TIME"}]

OPERATIONS_RULES = """rules_version = '2';
service cloud.firestore {
  match /databases/{database}/documents {
    match /gets/{id} { allow get: if true; }
    match /lists/{id} { allow list: if true; }
    match /creates/{id} { allow create: if true; }
    match /updates/{id} { allow update: if true; }
    match /deletes/{id} { allow delete: if true; }

    match /counters/{id} {
      allow read: if true;
      allow update: if request.resource.data.count == resource.data.count + 1
                    && request.resource.data.owner == resource.data.owner;
    }

    match /stamped/{id} {
      allow create: if request.resource.data.at == request.time;
    }

    match /teams/{team} {
      allow create: if getAfter(/databases/$(database)/documents/teamIndex/$(team)).data.team == team;
    }
    match /teamIndex/{team} {
      allow create: if true;
    }

    match /notes/{id} {
      allow get, list: if request.auth != null && resource.data.owner == request.auth.uid;
    }

    match /pages/{id} {
      allow list: if request.query.limit <= 10;
    }

    match /{path=**}/items/{id} {
      allow list: if resource.data.public == true;
    }

    match /admin/{id} {
      allow read, write: if request.auth.token.admin == true;
    }
  }
}
"""

DENY_ALL = """rules_version = '2';
service cloud.firestore {
  match /databases/{database}/documents {
    match /{document=**} { allow read, write: if false; }
  }
}
"""


def with_rules(host: str, rules: str) -> Firestore:
    """An admin client on a fresh project with `rules` loaded."""
    admin = Firestore(host, new_project(), token="owner")
    response = ok(admin.load_rules(rules))
    assert not [i for i in response.get("issues", []) if i.get("severity") == "ERROR"], response
    return admin


@pytest.fixture
def ops(firestore_host) -> Firestore:
    return with_rules(firestore_host, OPERATIONS_RULES)


# --------------------------------------------------------------------------------------------
# get, list, create, update, delete are decided separately

COLLECTIONS = ["gets", "lists", "creates", "updates", "deletes"]


def attempt(client: Firestore, collection: str, operation: str):
    if operation == "get":
        return client.get(f"{collection}/existing")
    if operation == "list":
        return client.run_query(query(collection))
    if operation == "create":
        return client.commit([update(client.name(f"{collection}/new"), {"v": 2})])
    if operation == "update":
        return client.commit([update(client.name(f"{collection}/existing"), {"v": 3})])
    if operation == "delete":
        return client.commit([delete(client.name(f"{collection}/existing"))])
    raise AssertionError(operation)


@pytest.mark.parametrize("collection", COLLECTIONS)
@pytest.mark.parametrize("operation", ["get", "list", "create", "update", "delete"])
def test_each_method_is_decided_by_its_own_rule(ops, collection, operation):
    ops.set(f"{collection}/existing", {"v": 1})
    user = ops.as_user("alice")
    response = attempt(user, collection, operation)
    if collection == operation + "s":
        ok(response)
    else:
        permission_denied(response)
        assert ops.data(f"{collection}/existing") == {"v": 1}, "a denied request changes nothing"
        assert ops.data(f"{collection}/new") is None


def test_rest_list_of_a_collection_is_a_list_request(ops):
    ops.set("lists/existing", {"v": 1})
    ops.set("gets/existing", {"v": 1})
    user = ops.as_user("alice")
    assert [d["name"] for d in ok(user.list("lists"))["documents"]] == [ops.name("lists/existing")]
    permission_denied(user.list("gets"))


@pytest.mark.parametrize("collection, allowed", [("creates", True), ("updates", False)])
def test_masked_write_to_a_missing_document_is_a_create(ops, collection, allowed):
    user = ops.as_user("alice")
    response = user.commit([update(user.name(f"{collection}/fresh"), {"v": 1}, mask=["v"])])
    if allowed:
        ok(response)
    else:
        permission_denied(response)


def test_batch_write_is_for_administrators_only(ops):
    """BatchWrite with a user's credentials is refused whole, whatever the rules allow, as the official emulator
    refuses it (firebase-tools#3833) and production refuses end-user credentials; server SDKs call it as admin."""
    user = ops.as_user("alice")
    response = user.batch_write([update(user.name("creates/one"), {"v": 1}), update(user.name("gets/two"), {"v": 2})])
    assert response.status_code == 403, response.text
    assert response.json()["error"]["message"] == "Batch writes require admin authentication."
    assert ops.data("creates/one") is None and ops.data("gets/two") is None
    body = ok(ops.batch_write([update(ops.name("creates/one"), {"v": 1}), update(ops.name("gets/two"), {"v": 2})]))
    assert body["status"] == [{}, {}], body
    assert ops.data("creates/one") == {"v": 1} and ops.data("gets/two") == {"v": 2}


def test_denied_transaction_commit_is_permission_denied(ops):
    user = ops.as_user("alice")
    transaction = user.begin()
    permission_denied(user.commit([update(user.name("gets/x"), {"v": 1})], transaction=transaction))
    assert ops.data("gets/x") is None


def test_request_query_limit_is_checked_against_the_query(ops):
    ops.set("pages/p1", {"v": 1})
    user = ops.as_user("alice")
    assert len(user.query_docs(query("pages", limit=5))) == 1
    permission_denied(user.run_query(query("pages", limit=20)))
    permission_denied(user.run_query(query("pages")))


def test_custom_claims_reach_request_auth_token(ops):
    ops.set("admin/a", {"v": 1})
    ok(ops.as_user("boss", admin=True).get("admin/a"))
    permission_denied(ops.as_user("worker").get("admin/a"))
    permission_denied(ops.as_user("worker", admin="true").get("admin/a"))


def test_allowed_get_of_missing_document_is_not_found(ops):
    user = ops.as_user("alice")
    response = user.get("gets/missing")
    assert response.status_code == 404, response.text


# --------------------------------------------------------------------------------------------
# request.resource, request.time, getAfter


def test_request_resource_is_the_document_after_a_masked_patch(ops):
    ops.set("counters/c", {"count": 1, "owner": "o"})
    user = ops.as_user("alice")
    ok(user.commit([update(user.name("counters/c"), {"count": 2}, mask=["count"])]))
    permission_denied(user.commit([update(user.name("counters/c"), {"count": 4}, mask=["count"])]))
    permission_denied(user.commit([update(user.name("counters/c"), {"count": 3})]))  # a set drops owner
    assert ops.data("counters/c") == {"count": 2, "owner": "o"}


def test_request_resource_includes_transform_results(ops):
    ops.set("counters/c", {"count": 1, "owner": "o"})
    user = ops.as_user("alice")
    increment = [{"fieldPath": "count", "increment": encode(1)}]
    ok(user.commit([update(user.name("counters/c"), {}, mask=[], transforms=increment)]))
    assert ops.data("counters/c") == {"count": 2, "owner": "o"}


def test_server_timestamp_equals_request_time(ops):
    user = ops.as_user("alice")
    stamp = [{"fieldPath": "at", "setToServerValue": "REQUEST_TIME"}]
    ok(user.commit([update(user.name("stamped/s"), {"v": 1}, transforms=stamp)]))
    client_time = {"at": Timestamp("2020-01-01T00:00:00Z")}
    permission_denied(user.commit([update(user.name("stamped/t"), client_time)]))
    assert ops.data("stamped/t") is None


def test_get_after_sees_the_whole_pending_commit(ops):
    user = ops.as_user("alice")
    ok(
        user.commit(
            [
                update(user.name("teams/red"), {"name": "Red"}),
                update(user.name("teamIndex/red"), {"team": "red"}),
            ]
        )
    )
    assert ops.data("teams/red") == {"name": "Red"}
    permission_denied(user.commit([update(user.name("teams/blue"), {"name": "Blue"})]))
    permission_denied(
        user.commit(
            [
                update(user.name("teamIndex/green"), {"team": "not-green"}),
                update(user.name("teams/green"), {"name": "Green"}),
            ]
        )
    )
    assert ops.data("teamIndex/green") is None, "a denied commit writes nothing, not even its allowed writes"


# --------------------------------------------------------------------------------------------
# Rules are not filters


def test_query_allowed_only_when_its_constraints_satisfy_the_rule(ops):
    ops.set("notes/n1", {"owner": "alice", "t": 1})
    ops.set("notes/n2", {"owner": "bob", "t": 2})
    ops.set("notes/n3", {"owner": "alice", "t": 3})
    alice = ops.as_user("alice")
    mine = alice.query_docs(query("notes", where=field_filter("owner", "EQUAL", "alice")))
    assert [d["name"] for d in mine] == [ops.name("notes/n1"), ops.name("notes/n3")]
    permission_denied(alice.run_query(query("notes")))  # matching documents exist; still denied
    permission_denied(alice.run_query(query("notes", where=field_filter("owner", "EQUAL", "bob"))))
    permission_denied(alice.list("notes"))
    unauthenticated = ops.with_token(None)
    permission_denied(unauthenticated.run_query(query("notes", where=field_filter("owner", "EQUAL", "alice"))))


def test_collection_group_query_is_judged_by_its_constraints(ops):
    ops.set("shops/s1/items/i1", {"public": True})
    ops.set("shops/s2/items/i2", {"public": False})
    user = ops.as_user("alice")
    public = query("items", where=field_filter("public", "EQUAL", True), all_descendants=True)
    assert [d["name"] for d in user.query_docs(public)] == [ops.name("shops/s1/items/i1")]
    permission_denied(user.run_query(query("items", all_descendants=True)))


def test_get_is_decided_on_the_stored_document(ops):
    ops.set("notes/n1", {"owner": "alice"})
    ops.set("notes/n2", {"owner": "bob"})
    alice = ops.as_user("alice")
    assert data_of(ok(alice.get("notes/n1"))) == {"owner": "alice"}
    permission_denied(alice.get("notes/n2"))
    permission_denied(ops.with_token(None).get("notes/n1"))


def test_batch_get_is_decided_per_document(ops):
    ops.set("notes/n1", {"owner": "alice"})
    ops.set("notes/n2", {"owner": "bob"})
    alice = ops.as_user("alice")
    ok(alice.batch_get({"documents": [ops.name("notes/n1")]}))
    permission_denied(alice.batch_get({"documents": [ops.name("notes/n2")]}))


# --------------------------------------------------------------------------------------------
# Owner bypass and no rules


def test_owner_bypasses_rules(firestore_host):
    admin = with_rules(firestore_host, DENY_ALL)
    ok(admin.commit([update(admin.name("c/d"), {"v": 1})]))
    assert data_of(ok(admin.get("c/d"))) == {"v": 1}
    assert len(admin.query_docs(query("c"))) == 1
    user = admin.as_user("alice")
    permission_denied(user.get("c/d"))
    permission_denied(user.run_query(query("c")))
    permission_denied(user.commit([update(user.name("c/e"), {"v": 1})]))


EXPLAINED = """rules_version = '2';
service cloud.firestore {
  match /databases/{database}/documents {
    match /closed/{doc} {
      allow get: if false;
    }
    match /typed/{doc} {
      allow create: if request.resource.data.n > 3 && request.resource.data.s is string;
      allow update: if false;
    }
    match /signed/{doc} {
      allow get: if request.auth.uid == 'x';
    }
  }
}
"""


@pytest.mark.parametrize("operation, detail", [
    ("get closed", "false for 'get' @ L5"),
    ("create typed", "Property s is undefined on object. for 'create' @ L8"),
    ("update typed", "false for 'update' @ L9"),
    ("get signed", "Null value error. for 'get' @ L12"),
])
def test_denial_says_which_rule_said_no(firestore_host, operation, detail):
    """After production's message, on the next line, what the official emulator says of each statement
    that applied, in its words (asked the same rules and requests, it says the same for these; it lists
    some statements twice, and for the update the create statement too, which Hearth does not)."""
    admin = with_rules(firestore_host, EXPLAINED)
    admin.set("typed/old", {"n": 1})
    user = admin.with_token(None)
    requests_by_operation = {
        "get closed": lambda: user.get("closed/x"),
        "create typed": lambda: user.commit([update(user.name("typed/new"), {"n": 5}, exists=False)]),
        "update typed": lambda: user.commit([update(user.name("typed/old"), {"n": 5})]),
        "get signed": lambda: user.get("signed/x"),
    }
    error = permission_denied(requests_by_operation[operation]())
    assert error["message"] == "Missing or insufficient permissions.\n" + detail


MISSING = """rules_version = '2';
service cloud.firestore {
  match /databases/{database}/documents {
    match /a/{doc} { allow get: if get(/databases/$(database)/documents/zz/missing) == null; }
    match /b/{doc} { allow get: if getAfter(/databases/$(database)/documents/zz/missing) == null; }
    match /c/{doc} { allow get: if !exists(/databases/$(database)/documents/zz/missing); }
    match /d/{doc} { allow get: if get(/databases/$(database)/documents/zz/missing) == null || true; }
  }
}
"""


@pytest.mark.parametrize("collection, allowed", [("a", False), ("b", False), ("c", True), ("d", True)])
def test_get_of_a_missing_document_is_an_error(firestore_host, collection, allowed):
    """As the official emulator answers (the docs say null): `get()` and `getAfter()` of a missing document
    fail the condition (`||` can absorb it); `exists()` is how to ask."""
    user = with_rules(firestore_host, MISSING).with_token(None)
    response = user.get(f"{collection}/x")
    if allowed:
        assert response.status_code == 404, response.text
    else:
        error = permission_denied(response)
        assert "Service call error. Function: [get" in error["message"], error


def test_project_without_rules_is_open(firestore_host):
    anyone = Firestore(firestore_host, new_project(), token=None)
    ok(anyone.commit([update(anyone.name("open/d"), {"v": 1})]))
    assert data_of(ok(anyone.get("open/d"))) == {"v": 1}
    assert len(anyone.query_docs(query("open"))) == 1


def test_rules_are_per_project(firestore_host):
    locked = with_rules(firestore_host, DENY_ALL)
    open_project = Firestore(firestore_host, new_project(), token=None)
    permission_denied(locked.with_token(None).commit([update(locked.name("c/d"), {"v": 1})]))
    ok(open_project.commit([update(open_project.name("c/d"), {"v": 1})]))


# --------------------------------------------------------------------------------------------
# The chat app's rules (fixtures/firestore/chat.rules)

ALICE, BOB, CAROL = "alice-uid", "bob-uid", "carol-uid"


@pytest.fixture
def chat(firestore_host) -> Firestore:
    admin = with_rules(firestore_host, (FIXTURES / "chat.rules").read_text())
    admin.set("conversations/c1", {"participantIds": [ALICE, BOB], "title": "A and B"})
    admin.set("conversations/c2", {"participantIds": [CAROL], "title": "C alone"})
    admin.set("conversations/c1/messages/m1", {"senderId": ALICE, "text": "hi", "status": "sent"})
    admin.set("conversations/c1/typing/" + ALICE, {"typing": True})
    admin.set("users/" + ALICE, {"name": "Alice"})
    return admin


def new_message(client: Firestore, conversation: str, message_id: str, sender: str) -> dict:
    name = client.name(f"conversations/{conversation}/messages/{message_id}")
    return update(name, {"senderId": sender, "text": "hello", "status": "sent"}, exists=False, transforms=STAMP)


def test_chat_participants_read_the_conversation(chat):
    assert data_of(ok(chat.as_user(ALICE).get("conversations/c1")))["title"] == "A and B"
    assert data_of(ok(chat.as_user(BOB).get("conversations/c1")))["title"] == "A and B"
    permission_denied(chat.as_user(CAROL).get("conversations/c1"))
    permission_denied(chat.with_token(None).get("conversations/c1"))


def test_chat_conversation_query_by_participant_is_allowed(chat):
    alice = chat.as_user(ALICE)
    mine = alice.query_docs(query("conversations", where=field_filter("participantIds", "ARRAY_CONTAINS", ALICE)))
    assert [d["name"] for d in mine] == [chat.name("conversations/c1")]
    permission_denied(alice.run_query(query("conversations")))
    permission_denied(
        alice.run_query(query("conversations", where=field_filter("participantIds", "ARRAY_CONTAINS", CAROL)))
    )
    permission_denied(
        chat.with_token(None).run_query(
            query("conversations", where=field_filter("participantIds", "ARRAY_CONTAINS", ALICE))
        )
    )


def test_chat_messages_are_read_only_by_participants(chat):
    messages = query("messages")
    bob = chat.as_user(BOB)
    assert [d["name"] for d in bob.query_docs(messages, parent="conversations/c1")] == [
        chat.name("conversations/c1/messages/m1")
    ]
    assert data_of(ok(bob.get("conversations/c1/messages/m1")))["text"] == "hi"
    permission_denied(chat.as_user(CAROL).run_query(messages, parent="conversations/c1"))
    permission_denied(chat.as_user(CAROL).get("conversations/c1/messages/m1"))
    permission_denied(chat.with_token(None).run_query(messages, parent="conversations/c1"))
    permission_denied(chat.with_token(None).get("conversations/c1/messages/m1"))


def test_chat_participant_sends_a_message_with_server_timestamp(chat):
    alice = chat.as_user(ALICE)
    response = ok(alice.commit([new_message(alice, "c1", "m2", ALICE)]))
    stored = chat.data("conversations/c1/messages/m2")
    assert stored["senderId"] == ALICE and stored["status"] == "sent"
    assert isinstance(stored["timestamp"], Timestamp), stored
    assert response["writeResults"][0]["transformResults"][0]["timestampValue"] == stored["timestamp"].text


def test_chat_message_writes_are_denied_to_others(chat):
    alice = chat.as_user(ALICE)
    permission_denied(alice.commit([new_message(alice, "c1", "m3", BOB)]))  # posing as Bob
    client_time = update(
        alice.name("conversations/c1/messages/m4"),
        {"senderId": ALICE, "text": "x", "timestamp": Timestamp("2020-01-01T00:00:00Z")},
    )
    permission_denied(alice.commit([client_time]))  # a timestamp that is not request.time
    carol = chat.as_user(CAROL)
    permission_denied(carol.commit([new_message(carol, "c1", "m5", CAROL)]))
    anonymous = chat.with_token(None)
    permission_denied(anonymous.commit([new_message(anonymous, "c1", "m6", ALICE)]))
    permission_denied(carol.commit([update(carol.name("conversations/c1/messages/m1"), {"status": "read"}, mask=["status"])]))
    for message_id in ("m3", "m4", "m5", "m6"):
        assert chat.data(f"conversations/c1/messages/{message_id}") is None


def test_chat_read_receipt_by_the_other_participant(chat):
    bob = chat.as_user(BOB)
    ok(bob.commit([update(bob.name("conversations/c1/messages/m1"), {"status": "read"}, mask=["status"], exists=True)]))
    assert chat.data("conversations/c1/messages/m1")["status"] == "read"
    permission_denied(bob.commit([delete(bob.name("conversations/c1/messages/m1"))]))  # only the sender deletes
    ok(chat.as_user(ALICE).commit([delete(chat.name("conversations/c1/messages/m1"))]))


def test_chat_typing_indicator_only_for_oneself_in_ones_conversation(chat):
    bob = chat.as_user(BOB)
    ok(bob.commit([update(bob.name(f"conversations/c1/typing/{BOB}"), {"typing": True})]))
    permission_denied(bob.commit([update(bob.name(f"conversations/c1/typing/{ALICE}"), {"typing": False})]))
    carol = chat.as_user(CAROL)
    permission_denied(carol.commit([update(carol.name(f"conversations/c1/typing/{CAROL}"), {"typing": True})]))
    assert [d["name"] for d in bob.query_docs(query("typing"), parent="conversations/c1")] == [
        chat.name(f"conversations/c1/typing/{ALICE}"),
        chat.name(f"conversations/c1/typing/{BOB}"),
    ]
    permission_denied(carol.run_query(query("typing"), parent="conversations/c1"))


def test_chat_users_and_conversation_creation(chat):
    alice = chat.as_user(ALICE)
    ok(alice.commit([update(alice.name(f"users/{ALICE}"), {"name": "Alice A."})]))
    permission_denied(alice.commit([update(alice.name(f"users/{BOB}"), {"name": "Bob?"})]))
    assert data_of(ok(chat.as_user(BOB).get(f"users/{ALICE}"))) == {"name": "Alice A."}
    permission_denied(chat.with_token(None).get(f"users/{ALICE}"))
    carol = chat.as_user(CAROL)
    ok(carol.commit([update(carol.name("conversations/c3"), {"participantIds": [CAROL, "dave-uid"]}, exists=False)]))
    permission_denied(carol.commit([update(carol.name("conversations/c4"), {"participantIds": ["dave-uid"]}, exists=False)]))
    permission_denied(carol.commit([update(carol.name("conversations/c1"), {"title": "mine"}, mask=["title"])]))
    assert chat.data("conversations/c1")["title"] == "A and B"
