"""Cloud Firestore over gRPC, as the official google-cloud-firestore client (2.34) uses it in emulator mode.

The gRPC service `google.firestore.v1.Firestore` is served on the same port as REST. Expected behaviour is
production Firestore's, as the client library documents and relies on it:
  - status codes per the googleapis protos and Firestore's error docs (ALREADY_EXISTS for a second create,
    NOT_FOUND for an update of a missing document, ABORTED for transaction contention, PERMISSION_DENIED
    with "Missing or insufficient permissions." for rules);
  - production's error texts for writes (recorded production answers, also quoted in
    test_firestore_rest.py): `Document already exists: projects/…`, `No document to update: projects/…`;
  - timestamps stored at microsecond precision (nanoseconds are truncated), a server timestamp equal to the
    commit time that the write result reports;
  - aggregation results: count and sum of integers are integers, avg (and a sum touching a double) is a
    double, avg over nothing is null;
  - read-write transactions of the server SDKs use pessimistic locking: two transactions that read the same
    document and then both commit cannot both succeed; one gets ABORTED and the client retries it.

Every test uses a project of its own (see firestore_grpc_support.client), so tests never see each other.
"""

from __future__ import annotations

import calendar
import datetime
import queue
import math
import threading

import grpc
import pytest
from google.api_core import exceptions
from google.api_core.datetime_helpers import DatetimeWithNanoseconds
from google.cloud import firestore
from google.cloud.firestore_v1 import transforms
from google.cloud.firestore_v1.base_query import FieldFilter, Or
from google.cloud.firestore_v1.query import Query
from google.cloud.firestore_v1.types import common as common_types
from google.cloud.firestore_v1.types import document as document_types
from google.cloud.firestore_v1.types import firestore as firestore_types
from google.cloud.firestore_v1.types import query as query_types
from google.cloud.firestore_v1.types import write as write_types

from firestore_grpc_support import (  # noqa: F401 (fixtures)
    PERMISSION_DENIED_MESSAGE,
    RPC_TIMEOUT,
    client,
    clients,
    firestore_host,
    id_token,
    load_rules,
    raw_apis,
)

pytestmark = pytest.mark.timeout(90)

UTC = datetime.timezone.utc
INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)


def full_name(client: firestore.Client, path: str) -> str:
    return f"projects/{client.project}/databases/(default)/documents/{path}"


def ids(snapshots) -> list[str]:
    return [snapshot.id for snapshot in snapshots]


def paths(snapshots) -> list[str]:
    return [snapshot.reference.path for snapshot in snapshots]


def assert_microseconds(value: datetime.datetime) -> None:
    """Firestore's commit and update times have microsecond precision."""
    nanos = getattr(value, "nanosecond", value.microsecond * 1000)
    assert nanos % 1000 == 0, f"{value!r} has sub-microsecond digits"


# --------------------------------------------------------------------------------------------
# CRUD


def test_set_then_get_round_trips_with_create_and_update_times(client):
    ref = client.collection("rooms").document("a")
    result = ref.set({"title": "general", "n": 1}, timeout=RPC_TIMEOUT)
    snapshot = ref.get(timeout=RPC_TIMEOUT)
    assert snapshot.exists
    assert snapshot.id == "a" and snapshot.reference.path == "rooms/a"
    assert snapshot.to_dict() == {"title": "general", "n": 1}
    assert snapshot.create_time == snapshot.update_time == result.update_time
    assert_microseconds(snapshot.update_time)
    assert snapshot.read_time is not None and snapshot.read_time >= snapshot.update_time


def test_set_replaces_the_whole_document_and_keeps_create_time(client):
    ref = client.collection("c").document("d")
    first = ref.set({"a": 1, "b": 2})
    second = ref.set({"c": 3})
    snapshot = ref.get()
    assert snapshot.to_dict() == {"c": 3}
    assert snapshot.create_time == first.update_time
    assert snapshot.update_time == second.update_time > first.update_time


def test_a_write_that_changes_nothing_keeps_the_update_time(client):
    """Production answers a write that leaves the document as it was with the stored update_time (recorded:
    GoogleCloudPlatform/spring-cloud-gcp#2163, "the value reported by Firestore is the previous timestamp
    as nothing was really updated")."""
    ref = client.collection("c").document("d")
    first = ref.set({"a": 1, "m": {"x": [1, 2]}})
    again = ref.set({"a": 1, "m": {"x": [1, 2]}})
    assert again.update_time == first.update_time
    assert ref.get().update_time == first.update_time
    changed = ref.set({"a": 2, "m": {"x": [1, 2]}})
    assert changed.update_time > first.update_time


def test_create_twice_is_already_exists_with_production_message(client):
    ref = client.collection("rooms").document("a")
    ref.create({"n": 1})
    with pytest.raises(exceptions.AlreadyExists) as raised:
        ref.create({"n": 2})
    assert raised.value.code == 409 and raised.value.grpc_status_code.name == "ALREADY_EXISTS"
    assert raised.value.message == f"Document already exists: {full_name(client, 'rooms/a')}"
    assert ref.get().to_dict() == {"n": 1}, "the failed create changed nothing"


def test_update_of_a_missing_document_is_not_found_with_production_message(client):
    ref = client.collection("c").document("missing")
    with pytest.raises(exceptions.NotFound) as raised:
        ref.update({"a": 1})
    assert raised.value.grpc_status_code.name == "NOT_FOUND"
    assert raised.value.message == f"No document to update: {full_name(client, 'c/missing')}"
    assert not ref.get().exists, "update never creates"


def test_update_changes_only_the_given_paths(client):
    ref = client.collection("c").document("d")
    ref.set({"a": {"x": 1, "y": 2}, "b": 1, "gone": True})
    ref.update({"a.y": 20, "a.z": 30, "b": firestore.Increment(1), "gone": firestore.DELETE_FIELD})
    assert ref.get().to_dict() == {"a": {"x": 1, "y": 20, "z": 30}, "b": 2}


def test_field_names_that_need_back_quotes(client):
    ref = client.collection("c").document("d")
    ref.set({"a.b": 1, "x": {"y.z": 2}})
    ref.update({firestore.Client.field_path("a.b"): 10, firestore.Client.field_path("x", "y.z"): 20})
    assert ref.get().to_dict() == {"a.b": 10, "x": {"y.z": 20}}
    assert ref.get(field_paths=[firestore.Client.field_path("a.b")]).to_dict() == {"a.b": 10}


def test_set_with_merge_merges_maps_and_creates_when_absent(client):
    ref = client.collection("c").document("d")
    ref.set({"a": {"x": 1}, "b": 1}, merge=True)
    assert ref.get().to_dict() == {"a": {"x": 1}, "b": 1}, "merge creates a missing document"
    ref.set({"a": {"y": 2}, "c": 3}, merge=True)
    assert ref.get().to_dict() == {"a": {"x": 1, "y": 2}, "b": 1, "c": 3}
    ref.set({"a": {"x": 10, "q": 9}, "b": 100}, merge=["a.x"])
    assert ref.get().to_dict() == {"a": {"x": 10, "y": 2}, "b": 1, "c": 3}, "only the merge field paths change"


def test_delete_then_get_missing(client):
    ref = client.collection("c").document("d")
    ref.set({"a": 1})
    ref.delete()
    snapshot = ref.get()
    assert snapshot.exists is False
    assert snapshot.to_dict() is None
    assert snapshot.create_time is None and snapshot.update_time is None
    assert snapshot.read_time is not None, "a missing document still has a read time"
    ref.delete()  # deleting a missing document succeeds


def test_delete_with_last_update_precondition(client):
    ref = client.collection("c").document("d")
    first = ref.set({"a": 1})
    ref.set({"a": 2})
    with pytest.raises(exceptions.FailedPrecondition):
        ref.delete(option=client.write_option(last_update_time=first.update_time))
    assert ref.get().exists
    current = ref.get().update_time
    ref.delete(option=client.write_option(last_update_time=current))
    assert not ref.get().exists


def test_get_missing_document(client):
    snapshot = client.collection("c").document("never").get()
    assert snapshot.exists is False and snapshot.to_dict() is None


def test_add_picks_a_20_character_id(client):
    update_time, ref = client.collection("rooms").add({"n": 1})
    assert len(ref.id) == 20 and ref.id.isalnum(), ref.id
    assert ref.get().to_dict() == {"n": 1}
    assert ref.get().update_time == update_time


def test_subcollection_of_a_missing_parent(client):
    ref = client.collection("rooms").document("r1").collection("messages").document("m1")
    ref.set({"text": "hi"})
    assert ref.get().to_dict() == {"text": "hi"}
    assert not client.collection("rooms").document("r1").get().exists


def test_get_all_answers_found_and_missing(client):
    a = client.collection("c").document("a")
    a.set({"v": 1})
    missing = client.collection("c").document("missing")
    snapshots = {snapshot.id: snapshot for snapshot in client.get_all([a, missing])}
    assert set(snapshots) == {"a", "missing"}
    assert snapshots["a"].exists and snapshots["a"].to_dict() == {"v": 1}
    assert not snapshots["missing"].exists
    masked = list(client.get_all([a], field_paths=["v"]))
    assert masked[0].to_dict() == {"v": 1}


def test_reads_at_a_past_read_time(client):
    ref = client.collection("c").document("d")
    first = ref.set({"v": 1})
    ref.set({"v": 2})
    assert ref.get(read_time=first.update_time).to_dict() == {"v": 1}
    assert [s.to_dict() for s in client.collection("c").get(read_time=first.update_time)] == [{"v": 1}]
    assert ref.get().to_dict() == {"v": 2}


def test_grpc_and_rest_share_one_port_and_one_store(client, firestore_host):
    """What the SDKs write over gRPC, REST clients (curl, the web SDK's unary calls) read on the same
    host:port, and the other way round."""
    from firestore_grpc_support import rest_admin

    rest = rest_admin(firestore_host, client.project)
    client.collection("shared").document("g").set({"via": "grpc"})
    assert rest.data("shared/g") == {"via": "grpc"}
    rest.set("shared/r", {"via": "rest"})
    assert client.collection("shared").document("r").get().to_dict() == {"via": "rest"}


def test_a_document_of_another_project_is_invalid_argument(raw_apis, client):
    api = raw_apis(client.project, "owner")
    other = f"projects/{client.project}-other/databases/(default)/documents/c/d"
    with pytest.raises(exceptions.InvalidArgument):
        api.call("commit", firestore_types.CommitRequest(
            database=api.database,
            writes=[write_types.Write(update=document_types.Document(name=other, fields={}))],
        ))


# --------------------------------------------------------------------------------------------
# Values


def test_every_value_type_round_trips(client):
    target = client.collection("other").document("x")
    when = datetime.datetime(2024, 1, 2, 3, 4, 5, 123456, tzinfo=UTC)
    data = {
        "int": 42,
        "negative": -7,
        "int_max": INT64_MAX,
        "int_min": INT64_MIN,
        "float": 1.5,
        "float_whole": 2.0,
        "nan": float("nan"),
        "inf": float("inf"),
        "ninf": float("-inf"),
        "true": True,
        "false": False,
        "null": None,
        "str": "héllo ✓ 𝄞",
        "empty_str": "",
        "bytes": b"\x00\x01\xfe\xff",
        "ts": when,
        "old_ts": datetime.datetime(1900, 1, 1, tzinfo=UTC),
        "geo": firestore.GeoPoint(37.7749, -122.4194),
        "ref": target,
        "array": [1, "two", 3.0, None, {"m": True}, b"b", "last"],
        "empty_array": [],
        "map": {"nested": {"deeper": {"x": 1}, "list": [1, 2]}, "s": "t"},
        "empty_map": {},
    }
    ref = client.collection("values").document("all")
    ref.set(data)
    got = ref.get().to_dict()
    assert set(got) == set(data)
    for key in ("int", "negative", "int_max", "int_min", "true", "false", "str", "empty_str", "bytes",
                "array", "empty_array", "map", "empty_map"):
        assert got[key] == data[key], key
        assert type(got[key]) is type(data[key]), (key, type(got[key]))
    assert got["null"] is None
    assert got["float"] == 1.5 and isinstance(got["float"], float)
    assert got["float_whole"] == 2.0 and isinstance(got["float_whole"], float), "a double stays a double"
    assert math.isnan(got["nan"])
    assert got["inf"] == math.inf and got["ninf"] == -math.inf
    assert got["ts"] == when and isinstance(got["ts"], datetime.datetime)
    assert got["old_ts"] == data["old_ts"]
    assert got["geo"] == firestore.GeoPoint(37.7749, -122.4194)
    assert isinstance(got["ref"], firestore.DocumentReference) and got["ref"].path == "other/x"


def test_nested_arrays_are_invalid_argument(client):
    with pytest.raises(exceptions.InvalidArgument):
        client.collection("c").document("d").set({"a": [[1]]})


@pytest.mark.parametrize(
    "nanosecond, stored",
    [(123456789, 123456000), (999, 0), (1000, 1000), (0, 0)],
)
def test_timestamps_are_stored_at_microseconds_truncated(client, raw_apis, nanosecond, stored):
    sent = DatetimeWithNanoseconds(2024, 5, 6, 7, 8, 9, nanosecond=nanosecond, tzinfo=UTC)
    ref = client.collection("c").document("d")
    ref.set({"t": sent})  # the client sends all nine digits
    got = ref.get().get("t")
    assert isinstance(got, datetime.datetime)
    assert got == datetime.datetime(2024, 5, 6, 7, 8, 9, stored // 1000, tzinfo=UTC)
    # The client's DatetimeWithNanoseconds drops the nanos it reads, so the exact stored value is read raw.
    api = raw_apis(client.project, "owner")
    document = document_types.Document.pb(api.call("get_document", {"name": api.name("c/d")}))
    assert (document.fields["t"].timestamp_value.seconds, document.fields["t"].timestamp_value.nanos) == (
        1714979289, stored
    )


def milliseconds(instant: datetime.datetime) -> int:
    """Milliseconds since the epoch: server timestamps are the commit time to the millisecond."""
    return calendar.timegm(instant.utctimetuple()) * 1000 + instant.microsecond // 1000


def test_server_timestamp_is_the_commit_time(client):
    ref = client.collection("c").document("d")
    before = datetime.datetime.now(UTC)
    result = ref.set({"at": firestore.SERVER_TIMESTAMP, "nested": {"at": firestore.SERVER_TIMESTAMP}, "n": 1})
    after = datetime.datetime.now(UTC)
    snapshot = ref.get()
    at = snapshot.get("at")
    assert result.update_time == snapshot.update_time
    # The commit time to the millisecond, as the official emulator writes server timestamps.
    assert at.microsecond % 1000 == 0 and datetime.timedelta(0) <= result.update_time - at < datetime.timedelta(milliseconds=1)
    assert snapshot.get("nested.at") == at, "every server timestamp of one commit is the same"
    assert before - datetime.timedelta(seconds=5) <= at <= after + datetime.timedelta(seconds=5)
    assert_microseconds(at)


def test_server_timestamps_agree_across_a_batch(client):
    batch = client.batch()
    for doc_id in ("a", "b", "c"):
        batch.set(client.collection("c").document(doc_id), {"at": firestore.SERVER_TIMESTAMP})
    results = batch.commit()
    stamps = {client.collection("c").document(d).get().get("at") for d in ("a", "b", "c")}
    assert len(stamps) == 1
    (stamp,) = stamps
    assert stamp.microsecond % 1000 == 0 and milliseconds(stamp) == milliseconds(results[0].update_time)


# --------------------------------------------------------------------------------------------
# Transforms


def test_increment_on_ints_doubles_and_missing_fields(client):
    ref = client.collection("c").document("d")
    ref.set({"i": 1, "f": 1.5, "s": "text"})
    ref.update({
        "i": firestore.Increment(2),
        "f": firestore.Increment(1),
        "missing": firestore.Increment(5),
        "missing_f": firestore.Increment(0.5),
        "s": firestore.Increment(3),
    })
    got = ref.get().to_dict()
    assert got["i"] == 3 and isinstance(got["i"], int)
    assert got["f"] == 2.5 and isinstance(got["f"], float)
    assert got["missing"] == 5 and isinstance(got["missing"], int)
    assert got["missing_f"] == 0.5
    assert got["s"] == 3, "a non-numeric field is treated as 0"
    ref.update({"i": firestore.Increment(0.5)})
    got = ref.get().get("i")
    assert got == 3.5 and isinstance(got, float), "int + double is a double"


def test_increment_saturates_at_int64_bounds(client):
    ref = client.collection("c").document("d")
    ref.set({"hi": INT64_MAX - 1, "lo": INT64_MIN + 1})
    ref.update({"hi": firestore.Increment(10), "lo": firestore.Increment(-10)})
    assert ref.get().to_dict() == {"hi": INT64_MAX, "lo": INT64_MIN}


def test_increment_on_a_missing_document_with_set(client):
    ref = client.collection("c").document("d")
    ref.set({"n": firestore.Increment(3)})
    assert ref.get().to_dict() == {"n": 3}


def test_array_union_and_remove(client):
    ref = client.collection("c").document("d")
    ref.set({"tags": ["a", "b", "a"], "nums": [1, 2, 3, 2]})
    ref.update({"tags": firestore.ArrayUnion(["b", "c", "c"]), "nums": firestore.ArrayRemove([2, 9])})
    assert ref.get().to_dict() == {"tags": ["a", "b", "a", "c"], "nums": [1, 3]}
    ref.update({"fresh": firestore.ArrayUnion([1, 1, 2]), "none": firestore.ArrayRemove([1])})
    got = ref.get().to_dict()
    assert got["fresh"] == [1, 2] and got["none"] == []
    ref.update({"nums": firestore.ArrayUnion([1.0, {"m": 1}])})
    assert ref.get().get("nums") == [1, 3, {"m": 1}], "1.0 equals 1, so it is not added"


def test_maximum_and_minimum(client):
    ref = client.collection("c").document("d")
    ref.set({"hi": 5, "lo": 5, "mixed": 2, "text": "x"})
    ref.update({
        "hi": transforms.Maximum(7),
        "lo": transforms.Minimum(7),
        "mixed": transforms.Maximum(2.5),
        "text": transforms.Maximum(1),
        "missing": transforms.Minimum(4),
    })
    got = ref.get().to_dict()
    assert got["hi"] == 7 and got["lo"] == 5
    assert got["mixed"] == 2.5 and isinstance(got["mixed"], float)
    assert got["text"] == 1, "a non-numeric field is replaced by the operand"
    assert got["missing"] == 4


def test_transform_results_are_reported_by_commit(raw_apis, client):
    """WriteResult.transform_results: the value each transform produced (REQUEST_TIME → commit time,
    increment → the new number, array transforms → null)."""
    client.collection("c").document("d").set({"n": 1})
    api = raw_apis(client.project, "owner")
    name = api.name("c/d")
    FieldTransform = write_types.DocumentTransform.FieldTransform
    response = api.call(
        "commit",
        firestore_types.CommitRequest(
            database=api.database,
            writes=[
                write_types.Write(
                    update=document_types.Document(name=name, fields={}),
                    update_mask=common_types.DocumentMask(field_paths=[]),
                    update_transforms=[
                        FieldTransform(field_path="n", increment=document_types.Value(integer_value=4)),
                        FieldTransform(
                            field_path="t",
                            set_to_server_value=FieldTransform.ServerValue.REQUEST_TIME,
                        ),
                        FieldTransform(
                            field_path="a",
                            append_missing_elements=document_types.ArrayValue(
                                values=[document_types.Value(string_value="x")]
                            ),
                        ),
                    ],
                )
            ],
        ),
    )
    (result,) = response.write_results
    kinds = [document_types.Value.pb(v).WhichOneof("value_type") for v in result.transform_results]
    assert kinds == ["integer_value", "timestamp_value", "null_value"]
    assert result.transform_results[0].integer_value == 5
    assert response.commit_time == result.update_time
    stamp = result.transform_results[1].timestamp_value
    assert stamp.microsecond % 1000 == 0 and milliseconds(stamp) == milliseconds(response.commit_time)
    stored = client.collection("c").document("d").get().to_dict()
    assert milliseconds(stored.pop("t")) == milliseconds(response.commit_time)
    assert stored == {
        "n": 5, "a": ["x"]
    }


# --------------------------------------------------------------------------------------------
# Queries

DATA = {
    "a": {"n": 1, "tag": "x", "tags": ["red", "blue"]},
    "b": {"n": 2, "tag": "y", "tags": ["blue"]},
    "c": {"n": 3, "tag": "x", "tags": ["green"]},
    "d": {"n": 4, "tag": "z", "tags": []},
    "e": {"n": 5, "tag": None, "tags": ["red"]},
    "f": {"tag": "x"},
}


@pytest.mark.parametrize("collection, kinds", [("some", ["document", "document/done"]), ("none", ["-/done"])])
def test_run_query_says_done_on_its_last_response(client, collection, kinds):
    """The last RunQueryResponse carries `done`, as the official emulator's (google-cloud-firestore reads it
    to stop waiting)."""
    for index in range(2):
        client.collection("some").document(f"d{index}").set({"n": index})
    parent = f"projects/{client.project}/databases/(default)/documents"
    responses = client._firestore_api.run_query(
        request={"parent": parent, "structured_query": {"from_": [{"collection_id": collection}]}},
        metadata=client._rpc_metadata)
    assert [("document" if r._pb.HasField("document") else "-") + ("/done" if r.done else "") for r in responses] == kinds


@pytest.fixture
def items(client):
    batch = client.batch()
    collection = client.collection("items")
    for doc_id, data in DATA.items():
        batch.set(collection.document(doc_id), data)
    batch.commit()
    return collection


@pytest.mark.parametrize(
    "field, op, value, expected",
    [
        ("n", "==", 2, ["b"]),
        ("n", "==", 2.0, ["b"]),
        ("n", "!=", 2, ["a", "c", "d", "e"]),
        ("n", "<", 3, ["a", "b"]),
        ("n", "<=", 3, ["a", "b", "c"]),
        ("n", ">", 3, ["d", "e"]),
        ("n", ">=", 3, ["c", "d", "e"]),
        ("n", ">", 2.5, ["c", "d", "e"]),
        ("n", "<", "text", []),
        ("n", "in", [1, 4, 9], ["a", "d"]),
        ("n", "not-in", [1, 4], ["b", "c", "e"]),
        ("tag", "==", None, ["e"]),
        ("tag", "!=", None, ["a", "c", "f", "b", "d"]),
        ("tag", "in", ["x", "z"], ["a", "c", "d", "f"]),
        ("tags", "array_contains", "red", ["a", "e"]),
        ("tags", "array_contains_any", ["green", "blue"], ["a", "b", "c"]),
        ("tags", "==", [], ["d"]),
    ],
)
def test_field_filters(items, field, op, value, expected):
    results = items.where(filter=FieldFilter(field, op, value)).get()
    assert ids(results) == expected


def test_filter_on_document_id(items, client):
    query = items.where(filter=FieldFilter("__name__", ">=", items.document("d")))
    assert ids(query.get()) == ["d", "e", "f"]
    query = items.where(filter=FieldFilter("__name__", "in", [items.document("b"), items.document("zz")]))
    assert ids(query.get()) == ["b"]


def test_nan_filters(client):
    collection = client.collection("nans")
    collection.document("nan").set({"v": float("nan")})
    collection.document("one").set({"v": 1.0})
    collection.document("null").set({"v": None})
    assert ids(collection.where(filter=FieldFilter("v", "==", float("nan"))).get()) == ["nan"]
    assert ids(collection.where(filter=FieldFilter("v", "!=", float("nan"))).get()) == ["one"]
    assert ids(collection.order_by("v").get()) == ["null", "nan", "one"], "null < NaN < numbers"


def test_or_filter(items):
    query = items.where(filter=Or([FieldFilter("tag", "==", "z"), FieldFilter("n", "<", 2)]))
    assert ids(query.get()) == ["a", "d"]
    query = items.where(filter=Or([FieldFilter("tag", "==", "x"), FieldFilter("tags", "array_contains", "red")]))
    assert ids(query.get()) == ["a", "c", "e", "f"]


def test_and_of_or_filters(items):
    from google.cloud.firestore_v1.base_query import And

    query = items.where(
        filter=And([
            Or([FieldFilter("tag", "==", "x"), FieldFilter("tag", "==", "y")]),
            FieldFilter("n", "<=", 2),
        ])
    )
    assert ids(query.get()) == ["a", "b"]


def test_order_by_descending_limit_and_offset(items):
    assert ids(items.order_by("n", direction=firestore.Query.DESCENDING).get()) == ["e", "d", "c", "b", "a"]
    assert ids(items.order_by("n").limit(2).get()) == ["a", "b"]
    assert ids(items.order_by("n").offset(2).get()) == ["c", "d", "e"]
    assert ids(items.order_by("n").offset(1).limit(2).get()) == ["b", "c"]
    assert ids(items.order_by("n").offset(10).get()) == []


def test_order_by_two_fields(items):
    # tag: null(e) < "x"(a, c, f) < "y"(b) < "z"(d); ties on tag by n descending; f has no n → excluded.
    query = items.order_by("tag").order_by("n", direction=firestore.Query.DESCENDING)
    assert ids(query.get()) == ["e", "c", "a", "b", "d"]


def test_order_by_excludes_documents_without_the_field(items):
    assert ids(items.order_by("n").get()) == ["a", "b", "c", "d", "e"]
    assert "f" in ids(items.get())


def test_limit_to_last(items):
    assert ids(items.order_by("n").limit_to_last(2).get()) == ["d", "e"]
    assert ids(items.order_by("n", direction=firestore.Query.DESCENDING).limit_to_last(2).get()) == ["b", "a"]


def test_cursors_with_values(items):
    by_n = items.order_by("n")
    assert ids(by_n.start_at({"n": 2}).get()) == ["b", "c", "d", "e"]
    assert ids(by_n.start_after({"n": 2}).get()) == ["c", "d", "e"]
    assert ids(by_n.end_at({"n": 3}).get()) == ["a", "b", "c"]
    assert ids(by_n.end_before({"n": 3}).get()) == ["a", "b"]
    assert ids(by_n.start_at({"n": 2}).end_before({"n": 5}).get()) == ["b", "c", "d"]
    assert ids(by_n.start_after({"n": 2.5}).get()) == ["c", "d", "e"]


def test_cursors_with_snapshots(items):
    by_n = items.order_by("n")
    b = items.document("b").get()
    d = items.document("d").get()
    assert ids(by_n.start_at(b).get()) == ["b", "c", "d", "e"]
    assert ids(by_n.start_after(b).get()) == ["c", "d", "e"]
    assert ids(by_n.end_at(d).get()) == ["a", "b", "c", "d"]
    assert ids(by_n.end_before(d).get()) == ["a", "b", "c"]
    # Without an order by, a snapshot cursor is on the document name.
    assert ids(items.start_after(b).get()) == ["c", "d", "e", "f"]


def test_cursor_ties_are_broken_by_name(items):
    by_tag = items.order_by("tag")
    c = items.document("c").get()
    assert ids(by_tag.start_after(c).get()) == ["f", "b", "d"]
    assert ids(by_tag.start_at({"tag": "x"}).get()) == ["a", "c", "f", "b", "d"]


def test_select_projects_fields(items):
    results = items.order_by("n").select(["n", "tag"]).limit(2).get()
    assert [r.to_dict() for r in results] == [{"n": 1, "tag": "x"}, {"n": 2, "tag": "y"}]
    names_only = items.select(["__name__"]).get()
    assert ids(names_only) == ["a", "b", "c", "d", "e", "f"]
    assert all(r.to_dict() == {} for r in names_only)


def test_query_stream_yields_in_order(items):
    assert [s.id for s in items.order_by("n").stream()] == ["a", "b", "c", "d", "e"]


def test_query_of_an_empty_collection(client):
    assert client.collection("nothing").get() == []


# --------------------------------------------------------------------------------------------
# Collection groups, collections, list_documents


@pytest.fixture
def tree(client):
    """messages at several depths, and one 'other' collection."""
    batch = client.batch()
    for path, data in {
        "messages/top": {"n": 0},
        "rooms/r1/messages/m1": {"n": 1},
        "rooms/r1/threads/t/messages/m4": {"n": 4},
        "rooms/r2/messages/m2": {"n": 2},
        "users/u/rooms/r3/messages/m3": {"n": 3},
        "rooms/r1/other/x": {"n": 9},
        "rooms/r5": {"title": "five"},
    }.items():
        batch.set(client.document(path), data)
    batch.commit()
    return client


def test_collection_group_finds_every_depth_in_name_order(tree):
    results = tree.collection_group("messages").get()
    assert paths(results) == [
        "messages/top",
        "rooms/r1/messages/m1",
        "rooms/r1/threads/t/messages/m4",
        "rooms/r2/messages/m2",
        "users/u/rooms/r3/messages/m3",
    ]


def test_collection_group_with_filter_and_order(tree):
    query = tree.collection_group("messages").where(filter=FieldFilter("n", ">=", 2)).order_by(
        "n", direction=firestore.Query.DESCENDING
    )
    assert ids(query.get()) == ["m4", "m3", "m2"]


def test_collection_group_under_a_document(tree):
    query = Query(tree.collection("rooms", "r1", "messages"), all_descendants=True)
    assert paths(query.get()) == ["rooms/r1/messages/m1", "rooms/r1/threads/t/messages/m4"]


def test_collections_at_the_root_and_under_a_document(tree):
    assert [c.id for c in tree.collections()] == ["messages", "rooms", "users"]
    assert [c.id for c in tree.document("rooms/r1").collections()] == ["messages", "other", "threads"]
    assert [c.id for c in tree.document("rooms/r5").collections()] == []
    assert [c.id for c in tree.document("users/u/rooms/r3").collections()] == ["messages"]


def test_list_documents_includes_missing_parents(tree):
    refs = list(tree.collection("rooms").list_documents())
    assert [r.id for r in refs] == ["r1", "r2", "r5"], "missing documents with subcollections are listed"
    assert not refs[0].get().exists and refs[2].get().exists


def test_list_documents_pages(client):
    collection = client.collection("many")
    batch = client.batch()
    for i in range(25):
        batch.set(collection.document(f"d{i:02}"), {"i": i})
    batch.commit()
    refs = list(collection.list_documents(page_size=7))
    assert [r.id for r in refs] == [f"d{i:02}" for i in range(25)]


# --------------------------------------------------------------------------------------------
# Batches and BulkWriter


def test_write_batch_is_atomic(client):
    collection = client.collection("b")
    collection.document("existing").set({"v": 0})
    batch = client.batch()
    batch.set(collection.document("a"), {"v": 1})
    batch.create(collection.document("c"), {"v": 3})
    batch.update(collection.document("existing"), {"v": 10})
    batch.delete(collection.document("gone"))
    results = batch.commit()
    assert len(results) == 4
    assert {r.update_time for r in results[:3]} == {results[0].update_time}, "one commit time"
    assert collection.document("existing").get().to_dict() == {"v": 10}

    failing = client.batch()
    failing.set(collection.document("new"), {"v": 1})
    failing.update(collection.document("missing"), {"v": 2})
    with pytest.raises(exceptions.NotFound):
        failing.commit()
    assert not collection.document("new").get().exists, "nothing of a failed batch is written"


def test_bulk_writer_writes_and_reports_per_write_errors(client):
    collection = client.collection("bulk")
    collection.document("taken").set({"v": 0})
    failures = []
    successes = []
    writer = client.bulk_writer()

    def on_error(failure, _writer) -> bool:
        failures.append((failure.operation.reference.id, failure.code, failure.message))
        return False  # no retries: the errors are permanent

    writer.on_write_error(on_error)
    writer.on_write_result(lambda ref, result, _w: successes.append(ref.id))
    for i in range(30):
        writer.set(collection.document(f"d{i:02}"), {"i": i})
    writer.create(collection.document("taken"), {"v": 1})
    writer.update(collection.document("missing"), {"v": 1})
    writer.close()
    # A second writer: google-cloud-firestore 2.34's BulkWriter silently drops operations added after a
    # flush() (flush shuts its executor down and later flushes return at once).
    writer = client.bulk_writer()
    writer.on_write_error(on_error)
    writer.on_write_result(lambda ref, result, _w: successes.append(ref.id))
    writer.update(collection.document("d00"), {"i": 100})
    writer.delete(collection.document("d01"))
    writer.close()

    assert sorted(failures) == [
        ("missing", 5, f"No document to update: {full_name(client, 'bulk/missing')}"),
        ("taken", 6, f"Document already exists: {full_name(client, 'bulk/taken')}"),
    ]
    assert len(successes) == 32
    docs = {s.id: s.to_dict() for s in collection.get()}
    assert docs["d00"] == {"i": 100} and "d01" not in docs and docs["d29"] == {"i": 29}
    assert docs["taken"] == {"v": 0} and "missing" not in docs
    assert len(docs) == 30


# --------------------------------------------------------------------------------------------
# Transactions


def test_transaction_read_modify_write(client):
    accounts = client.collection("accounts")
    accounts.document("alice").set({"balance": 100})
    accounts.document("bob").set({"balance": 5})

    @firestore.transactional
    def transfer(transaction, amount):
        alice = accounts.document("alice").get(transaction=transaction)
        bob = accounts.document("bob").get(transaction=transaction)
        transaction.update(accounts.document("alice"), {"balance": alice.get("balance") - amount})
        transaction.update(accounts.document("bob"), {"balance": bob.get("balance") + amount})
        return alice.get("balance")

    assert transfer(client.transaction(), 30) == 100
    assert accounts.document("alice").get().to_dict() == {"balance": 70}
    assert accounts.document("bob").get().to_dict() == {"balance": 35}


def test_transaction_with_a_query_and_a_create(client):
    collection = client.collection("t")
    collection.document("a").set({"n": 1})
    collection.document("b").set({"n": 2})

    @firestore.transactional
    def summarize(transaction):
        docs = list(transaction.get(collection.order_by("n")))
        transaction.create(client.collection("sums").document("s"), {"total": sum(d.get("n") for d in docs)})
        return [d.id for d in docs]

    assert summarize(client.transaction()) == ["a", "b"]
    assert client.collection("sums").document("s").get().to_dict() == {"total": 3}


def test_transaction_that_raises_writes_nothing(client):
    ref = client.collection("c").document("d")
    ref.set({"v": 1})

    @firestore.transactional
    def failing(transaction):
        transaction.get(ref)
        transaction.set(ref, {"v": 2})
        raise RuntimeError("changed my mind")

    with pytest.raises(RuntimeError):
        failing(client.transaction())
    assert ref.get().to_dict() == {"v": 1}
    ref.set({"v": 3})  # the rolled-back transaction holds no lock
    assert ref.get().to_dict() == {"v": 3}


def test_read_only_transaction(client):
    ref = client.collection("c").document("d")
    ref.set({"v": 1})

    @firestore.transactional
    def read(transaction):
        return ref.get(transaction=transaction).get("v")

    assert read(client.transaction(read_only=True)) == 1


def test_create_in_a_transaction_over_an_existing_document_fails(client):
    ref = client.collection("c").document("d")
    ref.set({"v": 1})

    @firestore.transactional
    def create(transaction):
        transaction.create(ref, {"v": 2})

    with pytest.raises(exceptions.GoogleAPICallError) as raised:
        create(client.transaction())
    # The commit fails with ALREADY_EXISTS. The client then calls Rollback, which production may answer
    # INVALID_ARGUMENT "The referenced transaction has expired or is no longer valid." (a failed commit
    # ends the transaction), and that error then carries the ALREADY_EXISTS as its context.
    chain, pending = [], [raised.value]
    while pending:
        error = pending.pop()
        if error is not None and all(error is not seen for seen in chain):
            chain.append(error)
            pending += [error.__context__, error.__cause__]
    assert any(isinstance(error, exceptions.AlreadyExists) for error in chain), repr(chain)
    if not isinstance(raised.value, exceptions.AlreadyExists):
        assert isinstance(raised.value, exceptions.InvalidArgument), repr(raised.value)
        assert raised.value.message == "The referenced transaction has expired or is no longer valid."
    assert ref.get().to_dict() == {"v": 1}


def test_a_transaction_waits_for_a_slow_older_one_instead_of_exhausting_its_retries(client, firestore_host):
    """An older transaction (begun over REST) has read the counter and is slow to commit. The client's
    @firestore.transactional retries an ABORTED commit at once, at most 5 times, relying on production's locks
    to make its commit wait for the older transaction (wound-wait); answered ABORTED at once instead, it
    would spend every attempt while the older one still runs. Here its commit waits, is ABORTED once the
    older one has written the counter, and its retry lands."""
    from firestore_grpc_support import rest_admin
    from firestore_support import ok, update

    ref = client.collection("counters").document("slow")
    ref.set({"value": 0})
    rest = rest_admin(firestore_host, client.project)
    older = rest.begin()
    ok(rest.batch_get({"documents": [rest.name("counters/slow")], "transaction": older}))
    attempts: list[int] = []
    outcome: list[BaseException | None] = []

    @firestore.transactional
    def increment(transaction):
        attempts.append(1)
        value = ref.get(transaction=transaction).get("value")
        transaction.update(ref, {"value": value + 1})

    def younger() -> None:
        try:
            increment(client.transaction())
            outcome.append(None)
        except BaseException as error:  # noqa: BLE001 - reported below
            outcome.append(error)

    thread = threading.Thread(target=younger)
    thread.start()
    thread.join(0.5)
    assert thread.is_alive(), f"the younger transaction should wait for the older one (attempts {len(attempts)})"
    ok(rest.commit([update(rest.name("counters/slow"), {"value": 10})], transaction=older))
    thread.join(10)
    assert not thread.is_alive()
    assert outcome == [None], f"the younger transaction failed after {len(attempts)} attempts: {outcome[0]!r}"
    assert len(attempts) == 2, "one attempt waited and was ABORTED, its retry landed"
    assert ref.get().get("value") == 11


def test_contended_transactions_retry_until_every_increment_lands(clients):
    """Two clients (two channels, like two processes) increment one counter N times each through
    @firestore.transactional. Their first transactions are made to overlap (both read before either
    commits), so one of them must be ABORTED and retried by the client; every increment must land."""
    n = 15
    project = clients().project
    first_client, second_client = clients(project), clients(project)
    first_client.collection("counters").document("c").set({"value": 0})
    barrier = threading.Barrier(2, timeout=20)
    attempts = [0, 0]
    errors: list[BaseException] = []

    def worker(index: int, worker_client: firestore.Client) -> None:
        ref = worker_client.collection("counters").document("c")

        @firestore.transactional
        def increment(transaction, first: bool):
            attempts[index] += 1
            value = ref.get(transaction=transaction).get("value")
            if first and attempts[index] == 1:
                try:
                    barrier.wait()
                except threading.BrokenBarrierError:
                    pass
            transaction.update(ref, {"value": value + 1})

        try:
            for i in range(n):
                increment(worker_client.transaction(), i == 0)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(i, c)) for i, c in enumerate((first_client, second_client))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(75)
    assert not any(t.is_alive() for t in threads), "the contended transactions did not finish in 75 s"
    if errors:
        chain, error = [], errors[0]
        while error is not None and len(chain) < 6:
            chain.append(repr(error)[:200])
            error = error.__context__ or error.__cause__
        raise AssertionError(
            f"a transaction failed (attempts per thread {attempts}; the client retries ABORTED commits at most "
            f"5 times with retry_transaction, which production honours by keeping the transaction's place in "
            f"line): " + " <- ".join(chain)
        )
    assert first_client.collection("counters").document("c").get().get("value") == 2 * n
    assert sum(attempts) > 2 * n, f"no transaction was retried (attempts {attempts})"


def test_two_transactions_that_read_one_document_cannot_both_commit(raw_apis, client):
    """Raw protocol: two read-write transactions read one document, then both commit concurrently. They
    cannot both succeed (each read 10); the loser gets ABORTED, the winner's write stands."""
    client.collection("acct").document("a").set({"balance": 10})
    api = raw_apis(client.project, "owner")
    name = api.name("acct/a")
    transactions = [api.call("begin_transaction", {"database": api.database}).transaction for _ in range(2)]
    for transaction in transactions:
        assert api.call("get_document", {"name": name, "transaction": transaction}).name == name

    def commit(index: int, value: int, outcome: dict) -> None:
        write = write_types.Write(
            update=document_types.Document(name=name, fields={"balance": document_types.Value(integer_value=value)})
        )
        try:
            outcome[index] = api.api.commit(
                request={"database": api.database, "writes": [write], "transaction": transactions[index]},
                metadata=api.metadata, retry=None, timeout=25,
            )
        except BaseException as error:  # noqa: BLE001 - inspected below
            outcome[index] = error

    outcome: dict = {}
    threads = [threading.Thread(target=commit, args=(i, 11 + i, outcome)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(25)
    assert set(outcome) == {0, 1}, f"the commits did not both finish: {outcome}"
    won = [i for i in (0, 1) if isinstance(outcome[i], firestore_types.CommitResponse)]
    lost = [i for i in (0, 1) if isinstance(outcome[i], exceptions.Aborted)]
    assert len(won) == 1 and len(lost) == 1, outcome
    assert client.collection("acct").document("a").get().get("balance") == 11 + won[0]


# --------------------------------------------------------------------------------------------
# Aggregations


@pytest.fixture
def nums(client):
    collection = client.collection("nums")
    batch = client.batch()
    for doc_id, data in {"a": {"n": 1, "f": 0.5}, "b": {"n": 2, "f": 1}, "c": {"n": 3}, "d": {"n": "x"}}.items():
        batch.set(collection.document(doc_id), data)
    batch.commit()
    return collection


def aggregate(query) -> dict:
    (results,) = query.get()
    return {result.alias: result.value for result in results}


def test_count(nums, client):
    assert aggregate(nums.count(alias="all")) == {"all": 4}
    assert aggregate(nums.where(filter=FieldFilter("n", ">=", 2)).count(alias="c")) == {"c": 2}
    assert aggregate(nums.limit(3).count(alias="c")) == {"c": 3}
    assert aggregate(client.collection("empty").count(alias="c")) == {"c": 0}
    (results,) = nums.count().get()
    assert [(r.alias, r.value) for r in results] == [("field_1", 4)], "an unnamed aggregation is field_1"
    assert results[0].read_time is not None


def test_sum_and_avg_with_production_types(nums):
    result = aggregate(nums.count(alias="c").sum("n", alias="s").avg("n", alias="a"))
    assert result == {"c": 4, "s": 6, "a": 2.0}
    assert type(result["c"]) is int and type(result["s"]) is int and type(result["a"]) is float
    result = aggregate(nums.sum("f", alias="s").avg("f", alias="a"))
    assert result == {"s": 1.5, "a": 0.75}
    assert type(result["s"]) is float, "a sum that touches a double is a double"


def test_aggregation_value_kinds_on_the_wire(raw_apis, nums, client):
    """The Python client folds null into 0.0, so the Value kinds are checked on the raw response:
    count → integer, sum of integers → integer (non-numbers ignored), sum with a double → double, avg →
    double, sum and avg of nothing → integer 0 and null. At most five aggregations per request (proto)."""
    api = raw_apis(client.project, "owner")
    Aggregation = query_types.StructuredAggregationQuery.Aggregation
    field = query_types.StructuredQuery.FieldReference

    def run(*aggregations) -> dict:
        request = firestore_types.RunAggregationQueryRequest(
            parent=api.root,
            structured_aggregation_query=query_types.StructuredAggregationQuery(
                structured_query=query_types.StructuredQuery(
                    from_=[query_types.StructuredQuery.CollectionSelector(collection_id="nums")]
                ),
                aggregations=list(aggregations),
            ),
        )
        responses = [
            firestore_types.RunAggregationQueryResponse.pb(r) for r in api.call("run_aggregation_query", request)
        ]
        results = [r for r in responses if r.HasField("result")]
        assert len(results) == 1, responses
        assert results[0].HasField("read_time")
        return {key: (value.WhichOneof("value_type"), getattr(value, value.WhichOneof("value_type")))
                for key, value in results[0].result.aggregate_fields.items()}

    count = Aggregation(alias="count", count=Aggregation.Count())
    assert run(
        count,
        Aggregation(alias="sum_n", sum=Aggregation.Sum(field=field(field_path="n"))),
        Aggregation(alias="avg_n", avg=Aggregation.Avg(field=field(field_path="n"))),
    ) == {"count": ("integer_value", 4), "sum_n": ("integer_value", 6), "avg_n": ("double_value", 2.0)}
    assert run(
        Aggregation(alias="sum_f", sum=Aggregation.Sum(field=field(field_path="f"))),
        Aggregation(alias="avg_f", avg=Aggregation.Avg(field=field(field_path="f"))),
    ) == {"sum_f": ("double_value", 1.5), "avg_f": ("double_value", 0.75)}
    assert run(
        Aggregation(alias="sum_none", sum=Aggregation.Sum(field=field(field_path="absent"))),
        Aggregation(alias="avg_none", avg=Aggregation.Avg(field=field(field_path="absent"))),
    ) == {"sum_none": ("integer_value", 0), "avg_none": ("null_value", 0)}


def test_multiple_aggregations_only_see_documents_with_every_field(nums):
    """Production's documented rule (firebase.google.com/docs/firestore/query-data/aggregation-queries):
    "Queries with multiple aggregations include only the documents that contain all the fields in each
    aggregation. This might lead to different results from performing each aggregation separately."
    Here only a and b have both n and f. (The official emulator agrees.)"""
    assert aggregate(nums.count(alias="c").sum("n", alias="s").sum("f", alias="t")) == {"c": 2, "s": 3, "t": 1.5}
    assert aggregate(nums.count(alias="c").sum("n", alias="s")) == {"c": 4, "s": 6}
    assert aggregate(nums.count(alias="c").avg("absent", alias="a")) == {"c": 0, "a": 0.0}


def test_count_over_a_collection_group(tree):
    assert aggregate(tree.collection_group("messages").count(alias="c")) == {"c": 5}


# --------------------------------------------------------------------------------------------
# Partition queries and recursive delete


def test_get_partitions_cover_the_collection_group_exactly_once(client):
    batch = client.batch()
    expected = []
    for i in range(40):
        path = f"parents/p{i % 4}/parts/d{i:02}"
        batch.set(client.document(path), {"i": i})
        expected.append(path)
    batch.set(client.document("parts/top"), {"i": -1})
    expected.append("parts/top")
    batch.commit()
    expected.sort(key=lambda p: p.split("/"))

    partitions = list(client.collection_group("parts").get_partitions(4))
    assert 1 <= len(partitions) <= 4
    assert partitions[0].start_at is None and partitions[-1].end_at is None
    seen = []
    for partition in partitions:
        seen.extend(paths(partition.query().get()))
    assert seen == expected, "the partitions, in order, cover every document exactly once"


def test_recursive_delete_of_a_collection_and_of_a_document(tree):
    deleted = tree.recursive_delete(tree.collection("rooms"))
    # m1, m4, m2, other/x and rooms/r5: the documents under rooms/ (missing parents are not documents).
    assert deleted == 5
    assert [c.id for c in tree.collections()] == ["messages", "users"]
    assert paths(tree.collection_group("messages").get()) == ["messages/top", "users/u/rooms/r3/messages/m3"]

    deleted = tree.recursive_delete(tree.document("users/u"))
    assert deleted == 2, "m3 and users/u itself (counted even though it is missing)"
    assert [c.id for c in tree.collections()] == ["messages"]


def test_recursive_query_selects_only_under_the_collection(tree):
    """The query recursive_delete runs: kindless (empty collection id) with all descendants, bounded by
    `__name__` between `rooms/__id-9223372036854775808__` and `rooms\\0/__id-9223372036854775808__`."""
    results = tree.collection("rooms").recursive().get()
    assert paths(results) == [
        "rooms/r1/messages/m1",
        "rooms/r1/other/x",
        "rooms/r1/threads/t/messages/m4",
        "rooms/r2/messages/m2",
        "rooms/r5",
    ]


# --------------------------------------------------------------------------------------------
# Security rules over gRPC (a user's unsigned ID token in `authorization`)

RULES = """
rules_version = '2';
service cloud.firestore {
  match /databases/{database}/documents {
    match /public/{doc} {
      allow read: if true;
      allow write: if request.auth != null;
    }
    match /private/{uid} {
      allow read, write: if request.auth != null && request.auth.uid == uid;
    }
  }
}
"""


def assert_denied(error: pytest.ExceptionInfo) -> None:
    assert isinstance(error.value, exceptions.PermissionDenied), repr(error.value)
    assert error.value.grpc_status_code.name == "PERMISSION_DENIED"
    assert error.value.message.startswith(PERMISSION_DENIED_MESSAGE + "\n")


def user_write(api, path: str, value: int):
    return firestore_types.CommitRequest(
        database=api.database,
        writes=[write_types.Write(update=document_types.Document(
            name=api.name(path), fields={"v": document_types.Value(integer_value=value)}))],
    )


def test_rules_apply_to_grpc_calls_with_user_tokens(client, raw_apis, firestore_host):
    project = client.project
    load_rules(firestore_host, project, RULES)
    client.collection("private").document("alice").set({"v": 1})  # owner bypasses rules
    client.collection("public").document("p").set({"v": 1})
    alice = raw_apis(project, id_token("alice", project))
    bob = raw_apis(project, id_token("bob", project))
    nobody = raw_apis(project, None)

    assert alice.call("get_document", {"name": alice.name("private/alice")}).fields["v"].integer_value == 1
    with pytest.raises(exceptions.GoogleAPICallError) as denied:
        bob.call("get_document", {"name": bob.name("private/alice")})
    assert_denied(denied)
    with pytest.raises(exceptions.GoogleAPICallError) as denied:
        nobody.call("get_document", {"name": nobody.name("private/alice")})
    assert_denied(denied)

    assert nobody.call("get_document", {"name": nobody.name("public/p")}).name == nobody.name("public/p")
    with pytest.raises(exceptions.GoogleAPICallError) as denied:
        nobody.call("commit", user_write(nobody, "public/p", 2))
    assert_denied(denied)
    bob.call("commit", user_write(bob, "public/p", 3))
    bob.call("commit", user_write(bob, "private/bob", 4))
    with pytest.raises(exceptions.GoogleAPICallError) as denied:
        bob.call("commit", user_write(bob, "private/alice", 5))
    assert_denied(denied)
    assert client.collection("private").document("alice").get().to_dict() == {"v": 1}
    assert client.collection("public").document("p").get().to_dict() == {"v": 3}

    # Rules are not filters: a query that could return another user's document is refused as a whole.
    query = firestore_types.RunQueryRequest(
        parent=bob.root,
        structured_query=query_types.StructuredQuery(
            from_=[query_types.StructuredQuery.CollectionSelector(collection_id="private")]
        ),
    )
    with pytest.raises(exceptions.GoogleAPICallError) as denied:
        list(bob.call("run_query", query))
    assert_denied(denied)
    # A query every result of which the rules allow succeeds.
    public = firestore_types.RunQueryRequest(
        parent=nobody.root,
        structured_query=query_types.StructuredQuery(
            from_=[query_types.StructuredQuery.CollectionSelector(collection_id="public")]
        ),
    )
    found = [r.document.name for r in nobody.call("run_query", public) if r.document.name]
    assert found == [nobody.name("public/p")]


def test_write_stream_takes_pipelined_writes_with_the_same_token(raw_apis):
    """The SDKs send each write with the newest token they have received and do not wait for answers, so
    two writes in flight carry the same token; both commit (the official emulator 1.19 takes them too).
    Going back to a token older than one already sent back ends the stream, as the proto's stream_token
    says (\"after sending this token, earlier tokens may not be used anymore\"; the official emulator does
    not check tokens at all)."""
    api = raw_apis("demo-write-pipeline", token="owner")
    requests: queue.Queue = queue.Queue()

    def stream():
        while (request := requests.get()) is not None:
            yield request

    def write(n: int) -> write_types.Write:
        return write_types.Write(update=document_types.Document(
            name=api.name(f"pipelined/d{n}"), fields={"n": document_types.Value(integer_value=n)}))

    responses = iter(api.transport.write(stream(), metadata=api.metadata, timeout=30))
    try:
        requests.put(firestore_types.WriteRequest(database=api.database))
        handshake = next(responses)
        requests.put(firestore_types.WriteRequest(stream_token=handshake.stream_token, writes=[write(1)]))
        requests.put(firestore_types.WriteRequest(stream_token=handshake.stream_token, writes=[write(2)]))
        first, second = next(responses), next(responses)
        assert len(first.write_results) == 1 and len(second.write_results) == 1
        requests.put(firestore_types.WriteRequest(stream_token=second.stream_token, writes=[write(3)]))
        next(responses)
        requests.put(firestore_types.WriteRequest(stream_token=handshake.stream_token, writes=[write(4)]))
        with pytest.raises(grpc.RpcError) as ended:
            next(responses)
        assert ended.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    finally:
        requests.put(None)
    found = api.call("batch_get_documents", firestore_types.BatchGetDocumentsRequest(
        database=api.database, documents=[api.name(f"pipelined/d{n}") for n in range(1, 5)]))
    assert {response.found.name for response in found if response.found.name} == {
        api.name(f"pipelined/d{n}") for n in range(1, 4)}
