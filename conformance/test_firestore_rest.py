"""The Cloud Firestore emulator's REST API (v1) as curl, server code and the web SDK's unary calls use it.

Expected values are production Firestore's: routes and JSON shapes from googleapis
`google/firestore/v1/{firestore,document,write,query}.proto` and the REST reference; semantics from the
proto comments and the Value / transform docs; error texts production answered (quoted where asserted):
  - GET of an absent document: 404 `Document "projects/…/documents/c/missing" not found.` (a recorded
    production answer, `{"error":{"code":404,"message":…,"status":"NOT_FOUND"}}`, no `errors` array);
  - update of an absent document: `No document to update: projects/…` (NOT_FOUND, SDK write streams);
  - create over an existing one: `Document already exists: projects/…` (ALREADY_EXISTS, SDK write streams);
  - a document over 1 MiB: `Document '…' cannot be written because its size (1,048,667 bytes) exceeds the
    maximum allowed size of 1,048,576 bytes.` (INVALID_ARGUMENT; size as the "storage size" docs count it);
  - proto3 JSON decoding errors from Google's front end: `Invalid JSON payload received. Unknown name "x" at
    'document': Cannot find field.` and `Invalid value at 'document.fields[0].value.integer_value'
    (TYPE_INT64), "True"`;
  - writes in a read-only transaction: `Cannot modify entities in a read-only transaction.`.
Where production's message is not known, only the HTTP status and `error.status` are asserted.
Emulator-only endpoints (§8 of shared/reference/firestore.md) follow the official emulator.

Every test runs in a project of its own (`db` fixture), so tests never depend on each other.
"""

from __future__ import annotations

import re
import threading
from datetime import datetime

import pytest

from firestore_support import (
    Firestore,
    Geo,
    Ref,
    Timestamp,
    composite,
    data_of,
    db,  # noqa: F401 (fixture)
    delete,
    encode,
    field_filter,
    field_path_order,
    firestore_error,
    firestore_host,  # noqa: F401 (fixture)
    new_project,
    ok,
    query,
    unary_filter,
    update,
)

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)
AUTO_ID = re.compile(r"^[A-Za-z0-9]{20}$")
RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$")


def ts_nanos(text: str) -> int:
    """Nanoseconds since the epoch of an RFC 3339 timestamp (Z or offset, up to 9 fractional digits)."""
    match = re.match(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$", text)
    assert match, f"not an RFC 3339 timestamp: {text!r}"
    base, fraction, zone = match.groups()
    zone = "+00:00" if zone == "Z" else zone
    seconds = int(datetime.fromisoformat(base + zone).timestamp())
    return seconds * 1_000_000_000 + int((fraction or "").ljust(9, "0"))


def seed(db: Firestore, documents: dict[str, dict]) -> dict:
    """Writes every document (path → data) in one commit, as admin."""
    return ok(db.commit([update(db.name(path), data) for path, data in documents.items()]))


def names(documents: list[dict]) -> list[str]:
    return [doc["name"] for doc in documents]


# --------------------------------------------------------------------------------------------
# Get, create, patch, delete


def test_get_missing_document_is_not_found_with_production_message(db):
    name = db.name("c/missing")
    firestore_error(db.get("c/missing"), 404, "NOT_FOUND", f'Document "{name}" not found.')


def test_create_with_document_id_returns_the_document(db):
    response = ok(db.create("rooms", {"title": "general", "n": 1}, document_id="a"))
    assert response["name"] == db.name("rooms/a")
    assert data_of(response) == {"title": "general", "n": 1}
    assert RFC3339.match(response["createTime"]) and RFC3339.match(response["updateTime"]), response
    assert response["createTime"] == response["updateTime"], "a new document's create and update times agree"
    fetched = ok(db.get("rooms/a"))
    assert fetched == response


def test_create_over_an_existing_document_is_already_exists(db):
    ok(db.create("rooms", {"n": 1}, document_id="a"))
    firestore_error(
        db.create("rooms", {"n": 2}, document_id="a"),
        409,
        "ALREADY_EXISTS",
        f"Document already exists: {db.name('rooms/a')}",
    )
    assert db.data("rooms/a") == {"n": 1}, "the failed create changed nothing"


def test_create_without_document_id_picks_a_20_character_id(db):
    first = ok(db.create("rooms", {"n": 1}))
    second = ok(db.create("rooms", {"n": 2}))
    for doc in (first, second):
        collection, _, doc_id = doc["name"].rpartition("/")
        assert collection == db.name("rooms"), doc
        assert AUTO_ID.match(doc_id), doc_id
    assert first["name"] != second["name"]


def test_create_in_a_subcollection_of_a_missing_parent(db):
    ok(db.create("rooms/r1/messages", {"text": "hi"}, document_id="m1"))
    assert db.data("rooms/r1/messages/m1") == {"text": "hi"}
    firestore_error(db.get("rooms/r1"), 404, "NOT_FOUND", f'Document "{db.name("rooms/r1")}" not found.')


def test_patch_without_mask_replaces_the_document_and_creates_when_absent(db):
    created = ok(db.patch("c/d", {"a": 1, "b": 2}))
    assert data_of(created) == {"a": 1, "b": 2}
    replaced = ok(db.patch("c/d", {"c": 3}))
    assert data_of(replaced) == {"c": 3}, "PATCH without updateMask replaces every field"
    assert replaced["createTime"] == created["createTime"]


def test_patch_with_update_mask_touches_only_masked_fields(db):
    db.set("c/d", {"a": 1, "b": 2, "keep": True, "m": {"x": 1, "y": 2}})
    response = db.patch(
        "c/d",
        {"a": 10, "m": {"x": 5}},
        **{"updateMask.fieldPaths": ["a", "b", "m.x"]},
    )
    body = ok(response)
    expected = {"a": 10, "keep": True, "m": {"x": 5, "y": 2}}
    assert data_of(body) == expected, "masked paths absent from the body are deleted; unmasked fields stay"
    assert db.data("c/d") == expected


def test_patch_update_mask_with_backquoted_field_name(db):
    db.set("c/d", {"a": {"b": 1}})
    ok(db.patch("c/d", {"a.b": 2}, **{"updateMask.fieldPaths": ["`a.b`"]}))
    assert db.data("c/d") == {"a": {"b": 1}, "a.b": 2}, "a back-quoted path names one field containing a dot"


def test_patch_with_response_mask_returns_only_those_fields(db):
    db.set("c/d", {"a": 1, "b": 2})
    body = ok(db.patch("c/d", {"a": 5}, **{"updateMask.fieldPaths": ["a"], "mask.fieldPaths": ["b"]}))
    assert data_of(body) == {"b": 2}
    assert db.data("c/d") == {"a": 5, "b": 2}


def test_patch_with_exists_true_on_missing_document_is_not_found(db):
    firestore_error(
        db.patch("c/missing", {"a": 1}, **{"currentDocument.exists": "true"}),
        404,
        "NOT_FOUND",
        f"No document to update: {db.name('c/missing')}",
    )
    assert db.data("c/missing") is None


def test_patch_with_exists_false_on_existing_document_is_already_exists(db):
    db.set("c/d", {"a": 1})
    firestore_error(
        db.patch("c/d", {"a": 2}, **{"currentDocument.exists": "false"}),
        409,
        "ALREADY_EXISTS",
        f"Document already exists: {db.name('c/d')}",
    )
    assert db.data("c/d") == {"a": 1}


def test_patch_with_stale_update_time_is_failed_precondition(db):
    first = ok(db.patch("c/d", {"a": 1}))
    second = ok(db.patch("c/d", {"a": 2}))
    firestore_error(
        db.patch("c/d", {"a": 3}, **{"currentDocument.updateTime": first["updateTime"]}), 400, "FAILED_PRECONDITION"
    )
    ok(db.patch("c/d", {"a": 4}, **{"currentDocument.updateTime": second["updateTime"]}))
    assert db.data("c/d") == {"a": 4}


def test_get_with_mask_returns_only_the_masked_fields(db):
    db.set("c/d", {"a": 1, "b": 2, "m": {"x": 1, "y": 2}})
    body = ok(db.get("c/d", **{"mask.fieldPaths": ["a", "m.x"]}))
    assert body["name"] == db.name("c/d")
    assert data_of(body) == {"a": 1, "m": {"x": 1}}
    assert "createTime" in body and "updateTime" in body
    nothing = ok(db.get("c/d", **{"mask.fieldPaths": ["absent"]}))
    assert nothing.get("fields", {}) == {}


def test_update_keeps_create_time_and_advances_update_time(db):
    created = ok(db.create("c", {"v": 1}, document_id="d"))
    updated = ok(db.patch("c/d", {"v": 2}))
    assert updated["createTime"] == created["createTime"]
    assert ts_nanos(updated["updateTime"]) > ts_nanos(created["updateTime"])
    fetched = ok(db.get("c/d"))
    assert fetched["createTime"] == created["createTime"] and fetched["updateTime"] == updated["updateTime"]


def test_deleting_a_parent_keeps_its_subcollections(db):
    seed(db, {"c/d": {"v": 1}, "c/d/sub/e": {"v": 2}})
    ok(db.delete("c/d"))
    assert db.data("c/d/sub/e") == {"v": 2}
    assert ok(db.list_collection_ids("c/d")) == {"collectionIds": ["sub"]}
    assert ok(db.list("c", showMissing="true"))["documents"] == [{"name": db.name("c/d")}]


def test_delete_answers_empty_object_and_is_idempotent(db):
    db.set("c/d", {"a": 1})
    assert ok(db.delete("c/d")) == {}
    assert db.data("c/d") is None
    assert ok(db.delete("c/d")) == {}, "deleting an absent document succeeds"


def test_delete_with_exists_precondition_on_missing_document_is_not_found(db):
    firestore_error(db.delete("c/missing", **{"currentDocument.exists": "true"}), 404, "NOT_FOUND")


def test_recreated_document_gets_a_new_create_time(db):
    first = ok(db.create("c", {"v": 1}, document_id="d"))
    ok(db.delete("c/d"))
    second = ok(db.create("c", {"v": 2}, document_id="d"))
    assert ts_nanos(second["createTime"]) > ts_nanos(first["createTime"])


# --------------------------------------------------------------------------------------------
# Values


def test_every_value_type_round_trips_in_production_form(db):
    reference = db.name("other/doc")
    sent = {
        "null": {"nullValue": None},
        "true": {"booleanValue": True},
        "false": {"booleanValue": False},
        "zero": {"integerValue": "0"},
        "max": {"integerValue": str(INT64_MAX)},
        "min": {"integerValue": str(INT64_MIN)},
        "number_int": {"integerValue": 42},
        "double": {"doubleValue": 1.5},
        "double_zero": {"doubleValue": 0},
        "huge": {"doubleValue": 1e300},
        "nan": {"doubleValue": "NaN"},
        "inf": {"doubleValue": "Infinity"},
        "ninf": {"doubleValue": "-Infinity"},
        "ts_seconds": {"timestampValue": "2024-01-02T03:04:05Z"},
        "ts_offset": {"timestampValue": "2024-01-02T04:04:05.5+01:00"},
        "string": {"stringValue": "héllo ✓ 𝄞"},
        "empty_string": {"stringValue": ""},
        "bytes": {"bytesValue": "AAEC/w=="},
        "ref": {"referenceValue": reference},
        "geo": {"geoPointValue": {"latitude": 48.8566, "longitude": -2.3522}},
        "empty_array": {"arrayValue": {}},
        "empty_map": {"mapValue": {}},
        "nested": {
            "mapValue": {
                "fields": {
                    "list": {
                        "arrayValue": {
                            "values": [
                                {"integerValue": "1"},
                                {"mapValue": {"fields": {"inner": {"arrayValue": {"values": [{"stringValue": "x"}]}}}}},
                                {"nullValue": None},
                            ]
                        }
                    },
                    "deeper": {"mapValue": {"fields": {"b": {"booleanValue": True}}}},
                }
            }
        },
    }
    expected = dict(sent)
    expected["number_int"] = {"integerValue": "42"}
    expected["ts_offset"] = {"timestampValue": "2024-01-02T03:04:05.500Z"}  # Z-normalized, 0/3/6/9 digits
    response = ok(db.v1("POST", db.name("values"), body={"fields": sent}, params={"documentId": "all"}))
    assert response["fields"] == expected
    assert ok(db.get("values/all"))["fields"] == expected


@pytest.mark.parametrize(
    "sent, stored",
    [
        ("2024-01-02T03:04:05.123456789Z", "2024-01-02T03:04:05.123456Z"),
        ("2024-01-02T03:04:05.999999999Z", "2024-01-02T03:04:05.999999Z"),
        ("2024-01-02T03:04:05.1234Z", "2024-01-02T03:04:05.123400Z"),
        ("2024-01-02T03:04:05.100Z", "2024-01-02T03:04:05.100Z"),
    ],
    ids=["nanos", "rounded-down", "four-digits", "millis"],
)
def test_timestamps_are_stored_at_microseconds_rounded_down(db, sent, stored):
    """Value.timestamp_value: "Precise only to microseconds. When stored, any additional precision is
    rounded down." Output is Z-normalized with 0, 3, 6 or 9 fractional digits (proto3 JSON)."""
    response = ok(db.v1("POST", db.name("ts"), body={"fields": {"t": {"timestampValue": sent}}}, params={"documentId": "d"}))
    assert response["fields"]["t"] == {"timestampValue": stored}
    assert ok(db.get("ts/d"))["fields"]["t"] == {"timestampValue": stored}
    ok(db.commit([{"update": {"name": db.name("ts/e"), "fields": {"t": {"timestampValue": sent}}}}]))
    assert ok(db.get("ts/e"))["fields"]["t"] == {"timestampValue": stored}


def test_writes_of_one_commit_to_one_document_apply_in_order(db):
    name = db.name("c/d")
    ok(db.commit([update(name, {"a": 1}), update(name, {"b": 2}, mask=["b"]), update(name, {"a": 3}, mask=["a"])]))
    assert db.data("c/d") == {"a": 3, "b": 2}


def test_commit_answers_one_result_per_write_and_a_commit_time(db):
    response = ok(
        db.commit([update(db.name("c/a"), {"v": 1}), update(db.name("c/b"), {"v": 2}), delete(db.name("c/z"))])
    )
    assert set(response) == {"writeResults", "commitTime"}, response
    assert len(response["writeResults"]) == 3
    for result in response["writeResults"][:2]:
        assert result["updateTime"] == response["commitTime"], "every write of a commit takes the commit time"
    a = ok(db.get("c/a"))
    assert a["updateTime"] == response["commitTime"] == a["createTime"]


def test_commit_is_atomic_when_one_write_fails(db):
    db.set("c/existing", {"v": 1})
    response = db.commit(
        [
            update(db.name("c/new"), {"v": 1}),
            update(db.name("c/existing"), {"v": 2}),
            update(db.name("c/missing"), {"v": 3}, mask=["v"], exists=True),
        ]
    )
    firestore_error(response, 404, "NOT_FOUND", f"No document to update: {db.name('c/missing')}")
    assert db.data("c/new") is None, "no write of a failed commit is applied"
    assert db.data("c/existing") == {"v": 1}


def test_commit_with_update_mask_merges_and_deletes(db):
    db.set("c/d", {"a": 1, "b": 2, "m": {"x": 1, "y": 2}})
    ok(db.commit([update(db.name("c/d"), {"a": 5, "m": {"z": 3}}, mask=["a", "b", "m.z"])]))
    assert db.data("c/d") == {"a": 5, "m": {"x": 1, "y": 2, "z": 3}}


def test_commit_set_through_a_non_map_field_replaces_it(db):
    db.set("c/d", {"a": 1})
    ok(db.commit([update(db.name("c/d"), {"a": {"b": 2}}, mask=["a.b"])]))
    assert db.data("c/d") == {"a": {"b": 2}}


# --------------------------------------------------------------------------------------------
# Transforms and preconditions


def test_every_field_transform_and_its_transform_result(db):
    db.set(
        "t/d",
        {
            "count": 5,
            "d": 1.5,
            "big": INT64_MAX,
            "s": "text",
            "mx": 5,
            "mn": 5,
            "mx3": 3,
            "arr": [1, 2],
            "rm": [1, 2, 1, 3.0, "x"],
            "keep": "me",
        },
    )
    transforms = [
        {"fieldPath": "at", "setToServerValue": "REQUEST_TIME"},
        {"fieldPath": "count", "increment": encode(3)},
        {"fieldPath": "d", "increment": encode(1)},
        {"fieldPath": "big", "increment": encode(1)},
        {"fieldPath": "s", "increment": encode(2)},
        {"fieldPath": "fresh", "increment": encode(1.5)},
        {"fieldPath": "mx", "maximum": encode(3)},
        {"fieldPath": "mn", "minimum": encode(3.5)},
        {"fieldPath": "mx3", "maximum": encode(3.0)},
        {"fieldPath": "arr", "appendMissingElements": {"values": [encode(2), encode(3), encode(3)]}},
        {"fieldPath": "rm", "removeAllFromArray": {"values": [encode(1), encode(3)]}},
        {"fieldPath": "newarr", "appendMissingElements": {"values": [encode("a")]}},
        {"fieldPath": "mx2", "maximum": encode(7)},
    ]
    response = ok(db.commit([update(db.name("t/d"), {}, mask=[], exists=True, transforms=transforms)]))
    commit_time = response["commitTime"]
    (result,) = response["writeResults"]
    assert result["updateTime"] == commit_time
    got = result["transformResults"]
    assert len(got) == len(transforms), got
    assert ts_nanos(got[0]["timestampValue"]) == ts_nanos(commit_time) // 1_000_000 * 1_000_000, (
        "REQUEST_TIME is the commit time to the millisecond")
    assert got[1:] == [
        {"integerValue": "8"},
        {"doubleValue": 2.5},
        {"integerValue": str(INT64_MAX)},  # integer overflow saturates
        {"integerValue": "2"},  # a non-numeric field is set to the operand
        {"doubleValue": 1.5},  # a missing field is set to the operand
        {"integerValue": "5"},
        {"doubleValue": 3.5},  # mixed types: the field takes the type of the chosen operand
        {"integerValue": "3"},  # 3 and 3.0 are equivalent: the field does not change
        {"nullValue": None},
        {"nullValue": None},
        {"nullValue": None},
        {"integerValue": "7"},
    ]
    data = db.data("t/d")
    assert ts_nanos(data.pop("at").text) == ts_nanos(commit_time) // 1_000_000 * 1_000_000
    assert data == {
        "count": 8,
        "d": 2.5,
        "big": INT64_MAX,
        "s": 2,
        "fresh": 1.5,
        "mx": 5,
        "mn": 3.5,
        "mx3": 3,
        "arr": [1, 2, 3],
        "rm": [2, "x"],
        "newarr": ["a"],
        "mx2": 7,
        "keep": "me",
    }


def test_transform_edge_cases(db):
    db.set("t/e", {"low": INT64_MIN, "mxn": 5, "mnn": 5, "notarray": "text", "m": {"count": 1}, "zero": 0})
    transforms = [
        {"fieldPath": "low", "increment": encode(-1)},  # negative overflow saturates too
        {"fieldPath": "mxn", "maximum": encode(float("nan"))},  # max of x and NaN is NaN
        {"fieldPath": "mnn", "minimum": encode(float("nan"))},  # min of x and NaN is NaN
        {"fieldPath": "notarray", "appendMissingElements": {"values": [encode("a")]}},  # replaced by []+a
        {"fieldPath": "gone", "removeAllFromArray": {"values": [encode(1)]}},  # a missing field becomes []
        {"fieldPath": "m.count", "increment": encode(2)},
        {"fieldPath": "m.at", "setToServerValue": "REQUEST_TIME"},
        {"fieldPath": "zero", "maximum": encode(-0.0)},  # equal zeros: the stored value stays
    ]
    response = ok(db.commit([update(db.name("t/e"), {}, mask=[], transforms=transforms)]))
    results = response["writeResults"][0]["transformResults"]
    assert results[0] == {"integerValue": str(INT64_MIN)}
    assert results[1] == {"doubleValue": "NaN"} and results[2] == {"doubleValue": "NaN"}
    assert results[5] == {"integerValue": "3"}
    assert results[7] == {"integerValue": "0"}
    data = db.data("t/e")
    assert data["low"] == INT64_MIN
    assert data["mxn"] != data["mxn"] and data["mnn"] != data["mnn"], "NaN"
    assert data["notarray"] == ["a"] and data["gone"] == []
    assert data["m"]["count"] == 3 and ts_nanos(data["m"]["at"].text) == ts_nanos(response["commitTime"]) // 1_000_000 * 1_000_000
    assert data["zero"] == 0 and ok(db.get("t/e"))["fields"]["zero"] == {"integerValue": "0"}


def test_transforms_apply_after_the_update_in_one_write(db):
    response = ok(
        db.commit(
            [
                update(
                    db.name("t/new"),
                    {"n": 10, "tags": ["a"]},
                    transforms=[
                        {"fieldPath": "n", "increment": encode(5)},
                        {"fieldPath": "tags", "appendMissingElements": {"values": [encode("b")]}},
                        {"fieldPath": "created", "setToServerValue": "REQUEST_TIME"},
                    ],
                )
            ]
        )
    )
    data = db.data("t/new")
    assert data["n"] == 15 and data["tags"] == ["a", "b"]
    assert ts_nanos(data["created"].text) == ts_nanos(response["commitTime"]) // 1_000_000 * 1_000_000


def test_server_timestamp_is_the_same_for_every_write_of_a_commit(db):
    stamp = [{"fieldPath": "at", "setToServerValue": "REQUEST_TIME"}]
    response = ok(
        db.commit([update(db.name("t/a"), {}, transforms=stamp), update(db.name("t/b"), {}, transforms=stamp)])
    )
    a, b = db.data("t/a")["at"], db.data("t/b")["at"]
    assert ts_nanos(a.text) == ts_nanos(b.text) == ts_nanos(response["commitTime"]) // 1_000_000 * 1_000_000


def test_precondition_exists_false_on_existing_is_already_exists(db):
    db.set("c/d", {"v": 1})
    firestore_error(
        db.commit([update(db.name("c/d"), {"v": 2}, exists=False)]),
        409,
        "ALREADY_EXISTS",
        f"Document already exists: {db.name('c/d')}",
    )


def test_precondition_update_time_mismatch_is_failed_precondition(db):
    first = db.set("c/d", {"v": 1})["commitTime"]
    db.set("c/d", {"v": 2})
    firestore_error(db.commit([update(db.name("c/d"), {"v": 3}, update_time=first)]), 400, "FAILED_PRECONDITION")
    firestore_error(db.commit([delete(db.name("c/d"), update_time=first)]), 400, "FAILED_PRECONDITION")
    assert db.data("c/d") == {"v": 2}


def test_precondition_update_time_match_succeeds(db):
    written = db.set("c/d", {"v": 1})["commitTime"]
    ok(db.commit([update(db.name("c/d"), {"v": 2}, update_time=written)]))
    assert db.data("c/d") == {"v": 2}


def test_delete_with_exists_true_on_missing_in_commit_is_not_found(db):
    firestore_error(db.commit([delete(db.name("c/missing"), exists=True)]), 404, "NOT_FOUND")


# --------------------------------------------------------------------------------------------
# batchGet


def test_batch_get_answers_one_response_per_name_found_or_missing(db):
    seed(db, {"c/a": {"v": 1}, "c/b": {"v": 2}})
    requested = [db.name("c/a"), db.name("c/missing"), db.name("c/b")]
    body = ok(db.batch_get({"documents": requested}))
    assert isinstance(body, list) and len(body) == 3, body
    by_name = {}
    for item in body:
        assert RFC3339.match(item["readTime"]), item
        assert ("found" in item) != ("missing" in item), item
        name = item["found"]["name"] if "found" in item else item["missing"]
        by_name[name] = item
    assert set(by_name) == set(requested), "one response per requested name (order not guaranteed)"
    assert data_of(by_name[db.name("c/a")]["found"]) == {"v": 1}
    assert data_of(by_name[db.name("c/b")]["found"]) == {"v": 2}
    assert by_name[db.name("c/missing")]["missing"] == db.name("c/missing")


def test_batch_get_with_mask(db):
    seed(db, {"c/a": {"x": 1, "y": 2}})
    body = ok(db.batch_get({"documents": [db.name("c/a")], "mask": {"fieldPaths": ["y"]}}))
    assert data_of(body[0]["found"]) == {"y": 2}


def test_batch_get_with_new_transaction_returns_the_transaction_first(db):
    seed(db, {"c/a": {"x": 1}})
    body = ok(db.batch_get({"documents": [db.name("c/a")], "newTransaction": {"readWrite": {}}}))
    assert isinstance(body[0].get("transaction"), str) and body[0]["transaction"], body
    found = [item for item in body if "found" in item]
    assert len(found) == 1 and data_of(found[0]["found"]) == {"x": 1}
    ok(db.commit([update(db.name("c/a"), {"x": 2})], transaction=body[0]["transaction"]))
    assert db.data("c/a") == {"x": 2}


# --------------------------------------------------------------------------------------------
# listDocuments and listCollectionIds


def test_list_pages_through_a_collection_in_name_order(db):
    seed(db, {f"p/{i}": {"i": i} for i in ("d4", "d0", "d3", "d1", "d2")})
    seen = []
    token = None
    pages = 0
    while True:
        params = {"pageSize": 2}
        if token:
            params["pageToken"] = token
        body = ok(db.list("p", **params))
        pages += 1
        assert len(body.get("documents", [])) <= 2
        seen += names(body.get("documents", []))
        token = body.get("nextPageToken")
        if not token:
            break
        assert pages < 10, "paging must end"
    assert seen == [db.name(f"p/d{i}") for i in range(5)]
    assert pages == 3


def test_list_of_empty_collection_is_an_empty_object(db):
    assert ok(db.list("nothing")) == {}


def test_list_order_by_field_descending_and_mask(db):
    seed(db, {"p/a": {"n": 2, "x": "a"}, "p/b": {"n": 3, "x": "b"}, "p/c": {"n": 1, "x": "c"}})
    body = ok(db.list("p", orderBy="n desc", **{"mask.fieldPaths": ["n"]}))
    assert names(body["documents"]) == [db.name("p/b"), db.name("p/a"), db.name("p/c")]
    assert [data_of(d) for d in body["documents"]] == [{"n": 3}, {"n": 2}, {"n": 1}]


def test_list_show_missing_includes_parents_that_only_have_subcollections(db):
    seed(db, {"lm/parent/sub/x": {"v": 1}, "lm/real": {"v": 2}})
    plain = ok(db.list("lm"))
    assert names(plain["documents"]) == [db.name("lm/real")]
    body = ok(db.list("lm", showMissing="true"))
    documents = body["documents"]
    assert names(documents) == [db.name("lm/parent"), db.name("lm/real")]
    assert documents[0] == {"name": db.name("lm/parent")}, "a missing document has only its name"
    assert data_of(documents[1]) == {"v": 2} and "updateTime" in documents[1]


def test_list_of_a_subcollection(db):
    seed(db, {"rooms/r1/messages/m1": {"t": 1}, "rooms/r1/messages/m2": {"t": 2}, "rooms/r2/messages/m3": {"t": 3}})
    body = ok(db.list("rooms/r1/messages"))
    assert names(body["documents"]) == [db.name("rooms/r1/messages/m1"), db.name("rooms/r1/messages/m2")]


def test_list_collection_ids_at_the_root_and_under_a_document(db):
    seed(db, {"beta/x/gamma/y": {"v": 1}, "alpha/1": {"v": 2}, "beta/x/delta/z": {"v": 3}})
    assert ok(db.list_collection_ids()) == {"collectionIds": ["alpha", "beta"]}
    assert ok(db.list_collection_ids("beta/x")) == {"collectionIds": ["delta", "gamma"]}
    assert ok(db.list_collection_ids("alpha/1")).get("collectionIds", []) == []


def test_list_collection_ids_pages(db):
    seed(db, {"a/1": {}, "b/1": {}, "c/1": {}})
    first = ok(db.list_collection_ids(body={"pageSize": 2}))
    assert first["collectionIds"] == ["a", "b"] and first.get("nextPageToken"), first
    second = ok(db.list_collection_ids(body={"pageSize": 2, "pageToken": first["nextPageToken"]}))
    assert second["collectionIds"] == ["c"]
    assert not second.get("nextPageToken")


# --------------------------------------------------------------------------------------------
# runQuery

QUERY_DOCS = {
    "q/a": {"n": 3, "s": "a", "tags": ["x", "y"], "v": None},
    "q/b": {"n": 1, "s": "b", "tags": ["y"], "v": float("nan")},
    "q/c": {"n": 2.5, "s": "c", "tags": [], "v": 1},
    "q/d": {"n": "str", "s": "d", "tags": ["z", 1], "v": "x"},
    "q/e": {"s": "e"},
}


@pytest.fixture
def qdb(db):
    seed(db, QUERY_DOCS)
    return db


def test_run_query_answers_a_json_array_with_read_times(qdb):
    body = ok(qdb.run_query(query("q")))
    assert isinstance(body, list)
    assert [item["document"]["name"] for item in body] == [qdb.name(f"q/{i}") for i in "abcde"]
    for item in body:
        assert RFC3339.match(item["readTime"]), item
        assert "updateTime" in item["document"] and "createTime" in item["document"]


def test_run_query_with_no_results_answers_one_read_time(qdb):
    body = ok(qdb.run_query(query("none")))
    assert len(body) == 1 and set(body[0]) == {"readTime", "done"} and body[0]["done"] is True, body


@pytest.mark.parametrize(
    "where, expected",
    [
        (field_filter("n", "EQUAL", 1), ["b"]),
        (field_filter("n", "EQUAL", 1.0), ["b"]),  # 1 == 1.0
        (field_filter("n", "LESS_THAN", 3), ["b", "c"]),  # numbers only: type bracketing
        (field_filter("n", "LESS_THAN_OR_EQUAL", 3), ["b", "c", "a"]),
        (field_filter("n", "GREATER_THAN", 1), ["c", "a"]),
        (field_filter("n", "GREATER_THAN_OR_EQUAL", 2.5), ["c", "a"]),
        (field_filter("s", "GREATER_THAN", "c"), ["d", "e"]),
        (field_filter("n", "NOT_EQUAL", 1), ["c", "a", "d"]),  # field must exist; any other type matches
        (field_filter("tags", "ARRAY_CONTAINS", "y"), ["a", "b"]),
        (field_filter("tags", "ARRAY_CONTAINS", 1.0), ["d"]),
        (field_filter("tags", "ARRAY_CONTAINS_ANY", ["x", "z"]), ["a", "d"]),
        (field_filter("n", "IN", [1, 3]), ["a", "b"]),
        (field_filter("n", "NOT_IN", [1, 3]), ["c", "d"]),
        (unary_filter("v", "IS_NULL"), ["a"]),
        (unary_filter("v", "IS_NAN"), ["b"]),
        (unary_filter("v", "IS_NOT_NULL"), ["b", "c", "d"]),  # ordered by v: NaN < 1 < "x"
        (unary_filter("v", "IS_NOT_NAN"), ["c", "d"]),  # exists, not null, not NaN
        (composite("OR", field_filter("n", "EQUAL", 1), field_filter("s", "EQUAL", "e")), ["b", "e"]),
        (composite("AND", field_filter("tags", "ARRAY_CONTAINS", "y"), field_filter("s", "EQUAL", "b")), ["b"]),
        (composite("AND", field_filter("s", "EQUAL", "a")), ["a"]),  # a composite of one filter
    ],
    ids=[
        "eq", "eq-int-double", "lt", "lte", "gt", "gte", "gt-string", "neq", "array-contains",
        "array-contains-number", "array-contains-any", "in", "not-in", "is-null", "is-nan", "is-not-null",
        "is-not-nan", "or", "and", "and-single",
    ],
)
def test_filters(qdb, where, expected):
    assert qdb.query_ids(query("q", where=where)) == expected


def test_order_by_follows_firestore_cross_type_ordering(db):
    """null < booleans < numbers (NaN first; ints and doubles together) < timestamps < strings (UTF-8 byte
    order) < bytes < references < geo points < arrays < maps."""
    in_order = [
        None,
        False,
        True,
        float("nan"),
        float("-inf"),
        -1,
        0.5,
        1,
        1.5,
        float("inf"),
        Timestamp("2020-01-01T00:00:00Z"),
        Timestamp("2021-01-01T00:00:00Z"),
        "Z",
        "a",
        "\uff61",  # U+FF61 sorts before U+1D11E in UTF-8 (EF… < F0…), after it in UTF-16
        "\U0001d11e",
        b"\x00",
        b"\xff",
        Ref(db.name("a/b")),
        Ref(db.name("b/a")),
        Geo(1.5, 2.5),
        Geo(1.5, 3.5),
        Geo(2.5, 0.5),
        [1],
        [1, 2],
        [2],
        {"a": 1},
        {"a": 2},
        {"b": 0},
    ]
    ids = [f"v{(i * 7) % len(in_order):02d}" for i in range(len(in_order))]  # names not in value order
    seed(db, {f"types/{doc_id}": {"v": value} for doc_id, value in zip(ids, in_order)})
    assert db.query_ids(query("types", order_by=[field_path_order("v")])) == ids
    assert db.query_ids(query("types", order_by=[field_path_order("v", "DESCENDING")])) == ids[::-1]


def test_equality_on_arrays_and_maps(db):
    seed(db, {"eq/a": {"v": [1, "x"], "m": {"k": 1}}, "eq/b": {"v": ["x", 1], "m": {"k": 1.0, "j": 2}}})
    assert db.query_ids(query("eq", where=field_filter("v", "EQUAL", [1, "x"]))) == ["a"]
    assert db.query_ids(query("eq", where=field_filter("m", "EQUAL", {"k": 1.0}))) == ["a"]


def test_order_by_descending_excludes_documents_without_the_field(qdb):
    ids = qdb.query_ids(query("q", order_by=[field_path_order("n", "DESCENDING")]))
    assert ids == ["d", "a", "c", "b"], "strings sort after numbers; e has no n"


def test_inequality_orders_implicitly_by_its_field(qdb):
    assert qdb.query_ids(query("q", where=field_filter("n", "GREATER_THAN", 0))) == ["b", "c", "a"]


def test_order_by_name_descending(qdb):
    assert qdb.query_ids(query("q", order_by=[field_path_order("__name__", "DESCENDING")])) == list("edcba")


@pytest.mark.parametrize(
    "cursor, expected",
    [
        ({"startAt": {"values": [encode(2.5)], "before": True}}, ["c", "a", "d"]),
        ({"startAt": {"values": [encode(2.5)], "before": False}}, ["a", "d"]),
        ({"endAt": {"values": [encode(2.5)], "before": False}}, ["b", "c"]),
        ({"endAt": {"values": [encode(2.5)], "before": True}}, ["b"]),
        ({"startAt": {"values": [encode(1)], "before": False}, "endAt": {"values": [encode(3)], "before": True}}, ["c"]),
    ],
    ids=["start-at", "start-after", "end-at", "end-before", "between"],
)
def test_cursors(qdb, cursor, expected):
    assert qdb.query_ids(query("q", order_by=[field_path_order("n")], **cursor)) == expected


def test_cursor_on_name_uses_reference_values(qdb):
    after_c = {"startAt": {"values": [encode(2.5), {"referenceValue": qdb.name("q/c")}], "before": False}}
    order = [field_path_order("n"), field_path_order("__name__")]
    assert qdb.query_ids(query("q", order_by=order, **after_c)) == ["a", "d"]
    by_name = {"startAt": {"values": [{"referenceValue": qdb.name("q/b")}], "before": False}}
    assert qdb.query_ids(query("q", order_by=[field_path_order("__name__")], **by_name)) == ["c", "d", "e"]


def test_offset_and_limit(qdb):
    order = [field_path_order("n")]
    assert qdb.query_ids(query("q", order_by=order, offset=1, limit=2)) == ["c", "a"]
    assert qdb.query_ids(query("q", order_by=order, limit=2)) == ["b", "c"]
    assert qdb.query_ids(query("q", order_by=order, offset=10)) == []


def test_filters_on_name_use_reference_values(qdb):
    refs = [{"referenceValue": qdb.name("q/a")}, {"referenceValue": qdb.name("q/c")}]
    in_names = {"fieldFilter": {"field": {"fieldPath": "__name__"}, "op": "IN", "value": {"arrayValue": {"values": refs}}}}
    assert qdb.query_ids(query("q", where=in_names)) == ["a", "c"]
    after_b = {"fieldFilter": {"field": {"fieldPath": "__name__"}, "op": "GREATER_THAN", "value": {"referenceValue": qdb.name("q/b")}}}
    assert qdb.query_ids(query("q", where=after_b)) == ["c", "d", "e"]


def test_select_name_only_returns_documents_without_fields(qdb):
    documents = qdb.query_docs(query("q", select={"fields": [{"fieldPath": "__name__"}]}))
    assert names(documents) == [qdb.name(f"q/{i}") for i in "abcde"]
    assert all(d.get("fields", {}) == {} for d in documents), documents


def test_select_projects_fields(qdb):
    documents = qdb.query_docs(query("q", select={"fields": [{"fieldPath": "s"}]}))
    assert [data_of(d) for d in documents] == [{"s": i} for i in "abcde"]


def test_field_paths_with_back_quotes_in_filters(db):
    seed(db, {"fp/one": {"a.b": 1, "a": {"b": 2}}, "fp/two": {"a": {"b": 1}}})
    assert db.query_ids(query("fp", where=field_filter("`a.b`", "EQUAL", 1))) == ["one"]
    assert db.query_ids(query("fp", where=field_filter("a.b", "EQUAL", 1))) == ["two"]


def test_collection_group_query_with_all_descendants(db):
    seed(
        db,
        {
            "groups/g1/items/i1": {"v": 1},
            "groups/g2/items/i2": {"v": 2},
            "items/i3": {"v": 3},
            "itemsx/i4": {"v": 4},
            "groups/g1/other/o1": {"v": 5},
        },
    )
    everywhere = db.query_docs(query("items", all_descendants=True))
    assert names(everywhere) == [db.name("groups/g1/items/i1"), db.name("groups/g2/items/i2"), db.name("items/i3")]
    under_g1 = db.query_docs(query("items", all_descendants=True), parent="groups/g1")
    assert names(under_g1) == [db.name("groups/g1/items/i1")]


def test_query_under_a_document_parent(db):
    seed(db, {"rooms/r1/messages/m1": {"t": 1}, "rooms/r2/messages/m2": {"t": 2}, "messages/m3": {"t": 3}})
    assert names(db.query_docs(query("messages"), parent="rooms/r1")) == [db.name("rooms/r1/messages/m1")]


def test_query_with_new_transaction_returns_it(qdb):
    body = ok(qdb.run_query(query("q", limit=1), newTransaction={"readOnly": {}}))
    assert isinstance(body[0].get("transaction"), str) and body[0]["transaction"], body


# --------------------------------------------------------------------------------------------
# runAggregationQuery


def aggregate_fields(db: Firestore, structured_query: dict, aggregations: list[dict]) -> dict:
    body = ok(db.aggregate(structured_query, aggregations))
    assert isinstance(body, list) and len(body) == 1, body
    assert RFC3339.match(body[0]["readTime"]), body
    return body[0]["result"]["aggregateFields"]


def test_count_sum_avg_under_their_aliases(db):
    seed(db, {"nums/a": {"n": 1}, "nums/b": {"n": 2}, "nums/c": {"n": 3}, "nums/d": {"n": "x"}})
    result = aggregate_fields(
        db,
        query("nums"),
        [
            {"alias": "total", "count": {}},
            {"alias": "sum_n", "sum": {"field": {"fieldPath": "n"}}},
            {"alias": "avg_n", "avg": {"field": {"fieldPath": "n"}}},
        ],
    )
    assert result == {"total": {"integerValue": "4"}, "sum_n": {"integerValue": "6"}, "avg_n": {"doubleValue": 2.0}}


def test_count_up_to_and_filtered_count(db):
    seed(db, {f"nums/{i}": {"n": i} for i in range(5)})
    assert aggregate_fields(db, query("nums"), [{"alias": "c", "count": {"upTo": "2"}}]) == {"c": {"integerValue": "2"}}
    filtered = query("nums", where=field_filter("n", "GREATER_THAN_OR_EQUAL", 3))
    assert aggregate_fields(db, filtered, [{"alias": "c", "count": {}}]) == {"c": {"integerValue": "2"}}
    limited = query("nums", limit=3)
    assert aggregate_fields(db, limited, [{"alias": "c", "count": {}}]) == {"c": {"integerValue": "3"}}


def test_sum_with_a_double_is_a_double_and_avg_of_nothing_is_null(db):
    seed(db, {"mixed/a": {"n": 1}, "mixed/b": {"n": 1.5}, "mixed/c": {"n": 2}})
    result = aggregate_fields(
        db,
        query("mixed"),
        [{"alias": "s", "sum": {"field": {"fieldPath": "n"}}}, {"alias": "a", "avg": {"field": {"fieldPath": "n"}}}],
    )
    assert result == {"s": {"doubleValue": 4.5}, "a": {"doubleValue": 1.5}}
    absent = aggregate_fields(
        db,
        query("mixed"),
        [
            {"alias": "none_sum", "sum": {"field": {"fieldPath": "absent"}}},
            {"alias": "none_avg", "avg": {"field": {"fieldPath": "absent"}}},
        ],
    )
    assert absent == {"none_sum": {"integerValue": "0"}, "none_avg": {"nullValue": None}}


def test_several_aggregations_only_see_documents_with_every_field(db):
    # "Queries with multiple aggregations include only the documents that contain all the fields in each
    # aggregation." (Firebase docs, aggregation queries)
    seed(db, {"mixed/a": {"n": 1, "f": 0.5}, "mixed/b": {"n": 2}})
    result = aggregate_fields(
        db,
        query("mixed"),
        [
            {"alias": "c", "count": {}},
            {"alias": "s", "sum": {"field": {"fieldPath": "n"}}},
            {"alias": "t", "sum": {"field": {"fieldPath": "f"}}},
        ],
    )
    assert result == {"c": {"integerValue": "1"}, "s": {"integerValue": "1"}, "t": {"doubleValue": 0.5}}


def test_aggregation_without_alias_gets_field_n(db):
    seed(db, {"nums/a": {"n": 1}})
    result = aggregate_fields(db, query("nums"), [{"count": {}}, {"sum": {"field": {"fieldPath": "n"}}}])
    assert result == {"field_1": {"integerValue": "1"}, "field_2": {"integerValue": "1"}}


# --------------------------------------------------------------------------------------------
# Transactions


def test_read_write_transaction_commits_its_writes(db):
    db.set("acct/a", {"balance": 10})
    transaction = db.begin()
    read = ok(db.get("acct/a", transaction=transaction))
    assert data_of(read) == {"balance": 10}
    response = ok(db.commit([update(db.name("acct/a"), {"balance": 15})], transaction=transaction))
    assert len(response["writeResults"]) == 1
    assert db.data("acct/a") == {"balance": 15}


def commit_in_background(db, path: str, data: dict, transaction: str):
    """Commits `data` to `path` in `transaction` on a thread of its own; returns the started thread and a
    dict that gets the response as "response"."""
    outcome = {}

    def commit():
        outcome["response"] = db.commit([update(db.name(path), data)], transaction=transaction, timeout=90)

    thread = threading.Thread(target=commit)
    thread.start()
    return thread, outcome


def test_conflicting_transaction_is_aborted(db):
    db.set("acct/a", {"balance": 10})
    first = db.begin()
    second = db.begin()
    ok(db.get("acct/a", transaction=first))
    ok(db.get("acct/a", transaction=second))
    thread, outcome = commit_in_background(db, "acct/a", {"balance": 11}, first)
    thread.join(90)
    assert not thread.is_alive(), "the first commit must finish"
    ok(outcome["response"])
    firestore_error(
        db.commit([update(db.name("acct/a"), {"balance": 12})], transaction=second, timeout=90), 409, "ABORTED"
    )
    assert db.data("acct/a") == {"balance": 11}


def read_in_transaction(db, path: str, transaction: str) -> None:
    """Reads `path` in `transaction` with batchGet (the official emulator never answers a GET with
    ?transaction=, see conformance/official/DIFFERENCES.md)."""
    ok(db.batch_get({"documents": [db.name(path)], "transaction": transaction}))


def test_a_younger_commit_waits_while_an_older_transaction_holds_a_read(db):
    """Production's locks: the younger transaction's commit waits for the older reader to end, and goes
    through when the older one rolls back (the official emulator does the same)."""
    db.set("acct/w", {"balance": 10})
    older, younger = db.begin(), db.begin()
    read_in_transaction(db, "acct/w", older)
    read_in_transaction(db, "acct/w", younger)
    thread, outcome = commit_in_background(db, "acct/w", {"balance": 12}, younger)
    thread.join(0.3)
    assert thread.is_alive(), "the younger commit waits"
    ok(db.rollback(older))
    thread.join(30)
    ok(outcome["response"])
    assert db.data("acct/w") == {"balance": 12}


def test_a_younger_commit_gives_up_at_the_lock_timeout(db):
    """An older reader that neither commits nor rolls back holds the younger commit until the lock timeout:
    ABORTED "Transaction lock timeout." after 2 s, as the official emulator answers; the younger one ends."""
    db.set("acct/t", {"balance": 10})
    older, younger = db.begin(), db.begin()
    read_in_transaction(db, "acct/t", older)
    read_in_transaction(db, "acct/t", younger)
    write = [update(db.name("acct/t"), {"balance": 12})]
    firestore_error(db.commit(write, transaction=younger, timeout=30), 409, "ABORTED", "Transaction lock timeout.")
    response = db.commit(write, transaction=younger)
    assert response.status_code in (400, 409), response.text
    assert response.json()["error"]["message"] == "The referenced transaction has expired or is no longer valid."
    ok(db.commit([update(db.name("acct/t"), {"balance": 11})], transaction=older))
    assert db.data("acct/t") == {"balance": 11}


def test_rollback_answers_empty_and_the_transaction_cannot_commit(db):
    transaction = db.begin()
    assert ok(db.rollback(transaction)) == {}
    response = db.commit([update(db.name("c/d"), {"v": 1})], transaction=transaction)
    # Production's words for a finished transaction are recorded both as ABORTED (409) and, by the Python
    # client against production, as INVALID_ARGUMENT (400); the message is the same in every record.
    assert response.status_code in (400, 409), response.text
    firestore_error(
        response,
        response.status_code,
        "ABORTED" if response.status_code == 409 else "INVALID_ARGUMENT",
        "The referenced transaction has expired or is no longer valid.",
    )
    assert db.data("c/d") is None


def test_read_only_transaction_at_read_time_sees_the_old_value(db):
    first = db.set("c/d", {"v": 1})["commitTime"]
    db.set("c/d", {"v": 2})
    transaction = db.begin({"readOnly": {"readTime": first}})
    assert data_of(ok(db.get("c/d", transaction=transaction))) == {"v": 1}
    assert data_of(ok(db.get("c/d", readTime=first))) == {"v": 1}
    (item,) = ok(db.batch_get({"documents": [db.name("c/d")], "readTime": first}))
    assert data_of(item["found"]) == {"v": 1}
    body = ok(db.run_query(query("c"), readTime=first))
    assert [data_of(item["document"]) for item in body if "document" in item] == [{"v": 1}]
    assert db.data("c/d") == {"v": 2}


def test_commit_with_writes_in_read_only_transaction_is_invalid_argument(db):
    transaction = db.begin({"readOnly": {}})
    firestore_error(
        db.commit([update(db.name("c/d"), {"v": 1})], transaction=transaction),
        400,
        "INVALID_ARGUMENT",
        "Cannot modify entities in a read-only transaction.",
    )
    assert db.data("c/d") is None


# --------------------------------------------------------------------------------------------
# batchWrite and partitionQuery


def test_batch_write_reports_a_status_per_write(db):
    response = ok(
        db.batch_write(
            [
                update(db.name("bw/a"), {"v": 1}),
                update(db.name("bw/missing"), {"v": 2}, mask=["v"], exists=True),
                update(db.name("bw/c"), {"v": 3}),
            ]
        )
    )
    assert len(response["writeResults"]) == 3 and len(response["status"]) == 3, response
    assert response["status"][0] == {} and response["status"][2] == {}, response
    assert response["status"][1]["code"] == 5, "NOT_FOUND as a google.rpc.Status number"
    assert "updateTime" in response["writeResults"][0] and "updateTime" in response["writeResults"][2]
    assert response["writeResults"][1] == {}
    assert db.data("bw/a") == {"v": 1} and db.data("bw/c") == {"v": 3}
    assert db.data("bw/missing") is None


def test_batch_write_to_one_document_twice_is_invalid_argument(db):
    response = db.batch_write([update(db.name("bw/a"), {"v": 1}), update(db.name("bw/a"), {"v": 2})])
    firestore_error(response, 400, "INVALID_ARGUMENT")
    assert db.data("bw/a") is None


def test_partition_query_answers_partitions(db):
    seed(db, {f"parts/p{i:02}": {"i": i} for i in range(20)})
    body = ok(
        db.v1(
            "POST",
            db.root + ":partitionQuery",
            body={
                "structuredQuery": query(
                    "parts", all_descendants=True, order_by=[field_path_order("__name__")]
                ),
                "partitionCount": "3",
            },
        )
    )
    assert isinstance(body, dict)
    partitions = body.get("partitions", [])
    assert len(partitions) <= 2, "at most partitionCount - 1 cursors"
    for cursor in partitions:
        assert [set(v) for v in cursor["values"]] == [{"referenceValue"}], cursor


# --------------------------------------------------------------------------------------------
# Bad input: production's INVALID_ARGUMENT, never a 500, nothing half-written


def test_invalid_integer_value_is_invalid_argument(db):
    response = db.v1("POST", db.name("bad"), body={"fields": {"n": {"integerValue": "x"}}}, params={"documentId": "d"})
    firestore_error(
        response, 400, "INVALID_ARGUMENT", "Invalid value at 'document.fields[0].value.integer_value' (TYPE_INT64), \"x\""
    )
    assert db.data("bad/d") is None


def test_unknown_json_field_is_invalid_argument(db):
    response = db.v1("POST", db.name("bad"), body={"fields": {}, "bogus": 1}, params={"documentId": "d"})
    firestore_error(
        response, 400, "INVALID_ARGUMENT", "Invalid JSON payload received. Unknown name \"bogus\" at 'document': Cannot find field."
    )


def test_malformed_json_is_invalid_argument(db):
    response = db.v1("POST", db.root + ":commit", data=b'{"writes": [', headers={"Content-Type": "application/json"})
    error = firestore_error(response, 400, "INVALID_ARGUMENT")
    assert error["message"].startswith("Invalid JSON payload received."), error


def test_document_name_with_empty_segment_in_commit_is_invalid_argument(db):
    firestore_error(db.commit([update(f"{db.root}/c//d", {"v": 1})]), 400, "INVALID_ARGUMENT")


def test_document_path_with_empty_segment_in_url_is_refused(db):
    response = db.request("GET", f"/v1/{db.root}/c//d")
    assert response.status_code in (400, 404), response.text
    firestore_error(response, response.status_code, "INVALID_ARGUMENT" if response.status_code == 400 else "NOT_FOUND")


def test_collection_name_as_document_name_is_invalid_argument(db):
    firestore_error(db.commit([update(db.name("c"), {"v": 1})]), 400, "INVALID_ARGUMENT")


def test_document_of_another_project_in_commit_is_invalid_argument(db):
    other = f"projects/{new_project()}/databases/(default)/documents/c/d"
    firestore_error(db.commit([update(other, {"v": 1})]), 400, "INVALID_ARGUMENT")


def test_reserved_document_id_and_field_name_are_invalid_argument(db):
    firestore_error(db.commit([update(db.name("c/__reserved__"), {"v": 1})]), 400, "INVALID_ARGUMENT")
    firestore_error(db.commit([update(db.name("c/d"), {"__reserved__": 1})]), 400, "INVALID_ARGUMENT")
    assert db.data("c/d") is None


def test_nested_array_is_invalid_argument(db):
    nested = {"arrayValue": {"values": [{"arrayValue": {"values": [{"integerValue": "1"}]}}]}}
    response = db.commit([{"update": {"name": db.name("c/d"), "fields": {"a": nested}}}])
    firestore_error(response, 400, "INVALID_ARGUMENT")
    assert db.data("c/d") is None


def test_document_over_one_mebibyte_is_invalid_argument_with_its_size(db):
    big = "x" * 600_000
    # Storage size (firebase.google.com/docs/firestore/storage-size): name = Σ(segment bytes + 1) + 16 over
    # "c", "big"; each field = (name bytes + 1) + (string bytes + 1); document = name + fields + 32.
    size = (2 + 4 + 16) + 2 * ((1 + 1) + (600_000 + 1)) + 32
    name = db.name("c/big")
    response = db.commit([update(name, {"a": big, "b": big})])
    firestore_error(
        response,
        400,
        "INVALID_ARGUMENT",
        f"Document '{name}' cannot be written because its size ({size:,} bytes) exceeds the maximum allowed "
        "size of 1,048,576 bytes.",
    )
    assert db.data("c/big") is None


def test_maps_nested_too_deep_are_invalid_argument(db):
    # Production limit: maps and arrays nest at most 20 deep.
    def nested(depth):
        value = {"leaf": 1}
        for _ in range(depth - 1):
            value = {"m": value}
        return value

    ok(db.commit([update(db.name("deep/ok"), {"m": nested(10)})]))
    firestore_error(db.commit([update(db.name("deep/bad"), {"m": nested(25)})]), 400, "INVALID_ARGUMENT")
    assert db.data("deep/bad") is None


def test_document_id_and_field_name_over_1500_bytes_are_invalid_argument(db):
    # Production limits: a document id and a field name are at most 1,500 bytes.
    ok(db.commit([update(db.name("long/" + "i" * 1500), {"f" * 1500: 1})]))
    firestore_error(db.commit([update(db.name("long/" + "i" * 1501), {"v": 1})]), 400, "INVALID_ARGUMENT")
    firestore_error(db.commit([update(db.name("long/x"), {"f" * 1501: 1})]), 400, "INVALID_ARGUMENT")
    assert db.data("long/x") is None


@pytest.mark.parametrize("doc_id", [".", ".."])
def test_dot_document_ids_are_invalid_argument(db, doc_id):
    firestore_error(db.commit([update(f"{db.root}/c/{doc_id}", {"v": 1})]), 400, "INVALID_ARGUMENT")


def test_timestamp_out_of_range_is_invalid_argument(db):
    response = db.v1(
        "POST", db.name("bad"), body={"fields": {"t": {"timestampValue": "0000-01-01T00:00:00Z"}}}, params={"documentId": "t"}
    )
    firestore_error(response, 400, "INVALID_ARGUMENT")


def test_write_with_two_operations_is_invalid_argument(db):
    write = {"update": {"name": db.name("c/d"), "fields": {}}, "delete": db.name("c/d")}
    firestore_error(db.commit([write]), 400, "INVALID_ARGUMENT")
    assert db.data("c/d") is None


def test_negative_limit_is_invalid_argument(qdb):
    firestore_error(qdb.run_query(query("q", limit=-1)), 400, "INVALID_ARGUMENT")


def test_cursor_with_more_values_than_order_by_is_invalid_argument(qdb):
    bad = query("q", order_by=[field_path_order("n")], startAt={"values": [encode(1), encode(2), encode(3)]})
    firestore_error(qdb.run_query(bad), 400, "INVALID_ARGUMENT")


def test_name_cursor_that_is_not_a_reference_is_invalid_argument(qdb):
    bad = query("q", order_by=[field_path_order("__name__")], startAt={"values": [encode("b")]})
    firestore_error(qdb.run_query(bad), 400, "INVALID_ARGUMENT")


def test_unknown_filter_operator_is_invalid_argument(qdb):
    bad = query("q", where={"fieldFilter": {"field": {"fieldPath": "n"}, "op": "BOGUS", "value": encode(1)}})
    error = firestore_error(qdb.run_query(bad), 400, "INVALID_ARGUMENT")
    assert error["message"].startswith("Invalid value at 'structured_query.where.field_filter.op'"), error


# --------------------------------------------------------------------------------------------
# CORS, as the web SDK's XHRs (withCredentials) need it

ORIGIN = "http://localhost:5173"


def test_preflight_reflects_origin_and_allows_credentials(db):
    response = db.with_token(None).request(
        "OPTIONS",
        f"/v1/{db.root}:commit",
        headers={
            "Origin": ORIGIN,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type,x-goog-api-client,authorization",
        },
    )
    assert response.status_code in (200, 204), response.text
    assert response.headers.get("Access-Control-Allow-Origin") == ORIGIN, response.headers
    assert response.headers.get("Access-Control-Allow-Credentials") == "true", response.headers
    assert "POST" in response.headers.get("Access-Control-Allow-Methods", "").upper(), response.headers
    allowed = {h.strip().lower() for h in response.headers.get("Access-Control-Allow-Headers", "").split(",")}
    assert {"content-type", "x-goog-api-client", "authorization"} <= allowed, response.headers


def test_errors_carry_cors_headers_too(db):
    response = db.request("GET", f"/v1/{db.root}/c/missing", headers={"Origin": ORIGIN})
    firestore_error(response, 404, "NOT_FOUND")
    assert response.headers.get("Access-Control-Allow-Origin") == ORIGIN, response.headers
    assert response.headers.get("Access-Control-Allow-Credentials") == "true", response.headers


def test_text_plain_commit_and_query_as_the_web_sdk_sends_them(db):
    import json

    headers = {"Content-Type": "text/plain", "Origin": ORIGIN}
    commit = {"writes": [update(db.name("web/d"), {"v": 1})]}
    response = db.request("POST", f"/v1/{db.root}:commit", data=json.dumps(commit), headers=headers)
    ok(response)
    assert response.headers.get("Access-Control-Allow-Origin") == ORIGIN, response.headers
    assert response.headers.get("Access-Control-Allow-Credentials") == "true", response.headers
    run = {"structuredQuery": query("web")}
    response = db.request("POST", f"/v1/{db.root}:runQuery", data=json.dumps(run), headers=headers)
    body = ok(response)
    assert [data_of(item["document"]) for item in body if "document" in item] == [{"v": 1}]
    assert response.headers.get("Access-Control-Allow-Origin") == ORIGIN, response.headers


# --------------------------------------------------------------------------------------------
# Emulator-only endpoints (the official emulator's)


def test_clear_deletes_only_that_project_and_database(firestore_host):
    project = new_project()
    main = Firestore(firestore_host, project, token="owner")
    named = main.other_database("second-db")
    other = Firestore(firestore_host, new_project(), token="owner")
    for client in (main, named, other):
        client.set("c/d", {"v": 1})
        client.set("c/d/sub/e", {"v": 2})
    assert ok(main.clear()) == {}
    assert main.data("c/d") is None and main.data("c/d/sub/e") is None
    assert ok(main.list_collection_ids()).get("collectionIds", []) == []
    assert named.data("c/d") == {"v": 1} and other.data("c/d") == {"v": 1}
    main.set("c/d", {"v": 3})
    assert ok(named.clear()) == {}
    assert named.data("c/d") is None and main.data("c/d") == {"v": 3}


def test_security_rules_with_errors_are_reported_as_issues(db):
    broken = "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n    allow read: if ;\n  }\n}\n"
    body = ok(db.load_rules(broken, ignore_errors=True))
    issues = body["issues"]
    assert issues, body
    for issue in issues:
        position = issue["sourcePosition"]
        assert position["fileName"] == "firestore.rules", issue
        assert isinstance(position["line"], int) and isinstance(position["column"], int), issue
        assert isinstance(issue["description"], str) and issue["description"], issue
        assert issue["severity"] in ("ERROR", "WARNING"), issue
    assert any(i["severity"] == "ERROR" and i["sourcePosition"]["line"] == 4 for i in issues), issues
    refused = db.load_rules(broken)
    assert 400 <= refused.status_code < 500, refused.text


def test_valid_security_rules_load_without_errors(db):
    rules = "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n    match /{doc=**} { allow read, write: if true; }\n  }\n}\n"
    body = ok(db.load_rules(rules))
    assert [i for i in body.get("issues", []) if i.get("severity") == "ERROR"] == [], body


def test_rule_coverage_reports(db):
    rules = "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n    match /c/{id} { allow read: if true; }\n  }\n}\n"
    ok(db.load_rules(rules))
    db.with_token(None).get("c/x")
    response = db.request("GET", f"/emulator/v1/projects/{db.project}:ruleCoverage")
    assert response.status_code == 200, response.text
    assert response.headers.get("Content-Type", "").startswith("application/json"), response.headers
    assert isinstance(response.json(), dict)
    html = db.request("GET", f"/emulator/v1/projects/{db.project}:ruleCoverage.html")
    assert html.status_code == 200, html.text
    assert html.headers.get("Content-Type", "").startswith("text/html"), html.headers
    assert "<html" in html.text.lower()


# --------------------------------------------------------------------------------------------
# Isolation


def test_projects_are_isolated(firestore_host):
    one = Firestore(firestore_host, new_project(), token="owner")
    two = Firestore(firestore_host, new_project(), token="owner")
    one.set("c/d", {"who": "one"})
    two.set("c/d", {"who": "two"})
    one.set("only/one", {"v": 1})
    assert one.data("c/d") == {"who": "one"} and two.data("c/d") == {"who": "two"}
    assert two.data("only/one") is None
    assert ok(two.list_collection_ids()) == {"collectionIds": ["c"]}
    assert names(two.query_docs(query("c"))) == [two.name("c/d")]


def test_named_database_is_isolated_from_default(db):
    named = db.other_database("second-db")
    db.set("c/d", {"db": "default"})
    written = ok(named.commit([update(named.name("c/d"), {"db": "named"})]))
    assert len(written["writeResults"]) == 1
    assert db.data("c/d") == {"db": "default"} and named.data("c/d") == {"db": "named"}
    fetched = ok(named.get("c/d"))
    assert fetched["name"] == f"projects/{db.project}/databases/second-db/documents/c/d"
    named.set("named_only/x", {"v": 1})
    assert db.data("named_only/x") is None
    assert [d["name"] for d in named.query_docs(query("c"))] == [named.name("c/d")]
