"""Snapshot listeners over gRPC: google-cloud-firestore's `on_snapshot` (the `Listen` stream) and the raw
`Listen` protocol as every SDK relies on it.

Production behaviour encoded here (googleapis `google/firestore/v1/firestore.proto`, the SDKs' watch
implementations, shared/reference/firestore.md §5):
  - every add_target is answered by exactly one ADD and every remove_target by exactly one REMOVE; the
    initial results come before CURRENT, and a snapshot is raised by a global NO_CHANGE target change (no
    target ids) carrying a read_time;
  - afterwards a committed write reaches each target it affects (document_change with the target ids, or
    document_delete / document_remove / a change listing the target in removed_target_ids) followed by a
    new global snapshot; read times never go backwards;
  - a commit is atomic for listeners too: all its changes appear in one snapshot;
  - a document's update_time in a listener equals the write result's update_time;
  - a target the rules deny is removed with cause PERMISSION_DENIED "Missing or insufficient
    permissions." and the stream stays usable for other targets.

About the Python client's DocumentChange indices: google-cloud-firestore computes `new_index` /
`old_index` itself from an insertion counter (watch.py `WatchDocTree`), not from positions in the sorted
result, so beyond the initial snapshot (where they are positions 0..n-1) only their -1 conventions are
asserted: ADDED has old_index -1, REMOVED has new_index -1, MODIFIED has both ≥ 0.

Every wait has a timeout (≤ 10 s) and every listener is unsubscribed at the end of its test.
"""

from __future__ import annotations

import statistics
import time

import pytest
from google.cloud import firestore
from google.cloud.firestore_v1.base_query import FieldFilter

from firestore_grpc_support import (  # noqa: F401 (fixtures)
    PERMISSION_DENIED_MESSAGE,
    ListenModel,
    ListenSession,
    TargetChangeType,
    changed_names,
    client,
    clients,
    firestore_host,
    has_reset,
    id_token,
    is_global_snapshot,
    is_target_change,
    kind,
    listen,
    load_rules,
    raw_apis,
    significant,
)

pytestmark = pytest.mark.timeout(90)


def change_types(snapshot) -> list[str]:
    return [change.type.name for change in snapshot.changes]


def assert_index_conventions(snapshot) -> None:
    for change in snapshot.changes:
        if change.type.name == "ADDED":
            assert change.old_index == -1 and change.new_index >= 0, vars(change)
        elif change.type.name == "REMOVED":
            assert change.new_index == -1 and change.old_index >= 0, vars(change)
        else:
            assert change.old_index >= 0 and change.new_index >= 0, vars(change)


def assert_read_times_advance(recorder) -> None:
    times = [snapshot.read_time for snapshot in recorder.all]
    assert all(t is not None for t in times), times
    assert times == sorted(times), f"read times went backwards: {times}"


# --------------------------------------------------------------------------------------------
# Document listeners


def test_document_listener_sees_initial_modified_and_removed(client, listen):
    ref = client.collection("rooms").document("a")
    first = ref.set({"n": 1})
    _, snapshots = listen(ref)

    initial = snapshots.next()
    assert initial.ids == ["a"]
    assert initial.docs[0].exists and initial.docs[0].to_dict() == {"n": 1}
    assert initial.docs[0].update_time == first.update_time
    assert initial.change_view == [("ADDED", "a")]
    assert (initial.changes[0].old_index, initial.changes[0].new_index) == (-1, 0)
    assert initial.read_time is not None and initial.read_time >= first.update_time

    second = ref.set({"n": 2})
    modified = snapshots.next()
    assert modified.change_view == [("MODIFIED", "a")]
    assert modified.docs[0].to_dict() == {"n": 2}
    assert modified.docs[0].update_time == second.update_time, "the listener's update time is the write's"
    assert modified.docs[0].create_time == first.update_time
    assert_index_conventions(modified)

    ref.delete()
    removed = snapshots.next()
    assert removed.ids == []
    assert removed.change_view == [("REMOVED", "a")]
    assert_index_conventions(removed)
    assert_read_times_advance(snapshots)


def test_document_listener_on_a_missing_then_created_document(client, listen):
    ref = client.collection("rooms").document("later")
    _, snapshots = listen(ref)
    initial = snapshots.next()
    assert initial.ids == [] and initial.changes == [], "a missing document: an empty initial snapshot"
    assert initial.read_time is not None

    created = ref.set({"title": "hello"})
    snapshot = snapshots.next()
    assert snapshot.change_view == [("ADDED", "later")]
    assert snapshot.docs[0].to_dict() == {"title": "hello"}
    assert snapshot.docs[0].create_time == snapshot.docs[0].update_time == created.update_time
    assert_read_times_advance(snapshots)


def test_document_listener_ignores_other_documents(client, listen):
    ref = client.collection("rooms").document("mine")
    ref.set({"n": 0})
    _, snapshots = listen(ref)
    snapshots.next()
    client.collection("rooms").document("other").set({"n": 1})
    client.collection("rooms").document("mine").collection("sub").document("x").set({"n": 2})
    snapshots.quiet(1.0)
    ref.update({"n": 5})
    assert snapshots.next().docs[0].to_dict() == {"n": 5}


def test_a_write_that_changes_nothing_raises_no_snapshot(client, listen):
    """Production keeps the document's update_time for a write that changes nothing (and reports the old
    one as the write's update_time), so listeners see no change."""
    ref = client.collection("rooms").document("a")
    ref.set({"n": 1})
    _, snapshots = listen(ref)
    snapshots.next()
    ref.set({"n": 1})
    snapshots.quiet(1.0)
    ref.set({"n": 2})
    assert snapshots.next().change_view == [("MODIFIED", "a")]


# --------------------------------------------------------------------------------------------
# Query and collection listeners


def test_query_listener_sees_added_modified_removed_in_order(client, listen):
    players = client.collection("players")
    batch = client.batch()
    batch.set(players.document("a"), {"team": "red", "score": 3})
    batch.set(players.document("b"), {"team": "red", "score": 1})
    batch.set(players.document("c"), {"team": "blue", "score": 2})
    batch.commit()
    query = players.where(filter=FieldFilter("team", "==", "red")).order_by("score")
    _, snapshots = listen(query)

    initial = snapshots.next()
    assert initial.ids == ["b", "a"]
    assert initial.change_view == [("ADDED", "b"), ("ADDED", "a")]
    assert [(c.old_index, c.new_index) for c in initial.changes] == [(-1, 0), (-1, 1)]

    players.document("c").update({"team": "red"})  # c enters the query
    snapshot = snapshots.next()
    assert snapshot.ids == ["b", "c", "a"]
    assert snapshot.change_view == [("ADDED", "c")]
    assert snapshot.docs[1].to_dict() == {"team": "red", "score": 2}

    players.document("a").update({"score": 0})  # a moves to the front
    snapshot = snapshots.next()
    assert snapshot.ids == ["a", "b", "c"]
    assert snapshot.change_view == [("MODIFIED", "a")]

    players.document("b").update({"team": "blue"})  # b leaves the query but still exists
    snapshot = snapshots.next()
    assert snapshot.ids == ["a", "c"]
    assert snapshot.change_view == [("REMOVED", "b")]

    players.document("c").delete()
    snapshot = snapshots.next()
    assert snapshot.ids == ["a"]
    assert snapshot.change_view == [("REMOVED", "c")]

    players.document("z").set({"team": "green", "score": 9})  # never matches
    snapshots.quiet(1.0)
    for snapshot in snapshots.all:
        assert_index_conventions(snapshot)
    assert_read_times_advance(snapshots)


def test_collection_listener_starts_empty_and_sees_every_change(client, listen):
    rooms = client.collection("rooms")
    _, snapshots = listen(rooms)
    initial = snapshots.next()
    assert initial.ids == [] and initial.changes == []

    rooms.document("b").set({"n": 2})
    assert snapshots.next().change_view == [("ADDED", "b")]
    rooms.document("a").set({"n": 1})
    snapshot = snapshots.next()
    assert snapshot.ids == ["a", "b"] and snapshot.change_view == [("ADDED", "a")]
    rooms.document("b").update({"n": 20})
    snapshot = snapshots.next()
    assert snapshot.change_view == [("MODIFIED", "b")]
    assert snapshot.docs[1].to_dict() == {"n": 20}
    rooms.document("a").delete()
    snapshot = snapshots.next()
    assert snapshot.ids == ["b"] and snapshot.change_view == [("REMOVED", "a")]
    # Documents of subcollections and of other collections are not in the collection.
    rooms.document("b").collection("messages").document("m").set({"n": 3})
    client.collection("other").document("x").set({"n": 4})
    snapshots.quiet(1.0)
    assert_read_times_advance(snapshots)


def test_a_batch_arrives_as_one_snapshot(client, listen):
    rooms = client.collection("rooms")
    rooms.document("old").set({"n": 0})
    rooms.document("keep").set({"n": 0})
    _, snapshots = listen(rooms)
    assert snapshots.next().ids == ["keep", "old"]

    batch = client.batch()
    batch.set(rooms.document("x"), {"n": 1})
    batch.set(rooms.document("y"), {"n": 2})
    batch.update(rooms.document("keep"), {"n": 5})
    batch.delete(rooms.document("old"))
    batch.commit()
    snapshot = snapshots.next()
    assert snapshot.ids == ["keep", "x", "y"]
    # The client reports removals, then additions, then modifications.
    assert snapshot.change_view == [("REMOVED", "old"), ("ADDED", "x"), ("ADDED", "y"), ("MODIFIED", "keep")]
    snapshots.quiet(0.5)


def test_query_with_limit_changes_membership(client, listen):
    scores = client.collection("scores")
    batch = client.batch()
    for doc_id, score in {"a": 10, "b": 20, "c": 30}.items():
        batch.set(scores.document(doc_id), {"score": score})
    batch.commit()
    _, snapshots = listen(scores.order_by("score").limit(2))
    initial = snapshots.next()
    assert initial.ids == ["a", "b"]

    scores.document("d").set({"score": 5})  # d enters at the top, b falls out
    snapshot = snapshots.next()
    assert snapshot.ids == ["d", "a"]
    assert sorted(snapshot.change_view) == [("ADDED", "d"), ("REMOVED", "b")]

    scores.document("d").delete()  # b comes back
    snapshot = snapshots.next()
    assert snapshot.ids == ["a", "b"]
    assert sorted(snapshot.change_view) == [("ADDED", "b"), ("REMOVED", "d")]
    assert snapshot.docs[1].to_dict() == {"score": 20}

    scores.document("c").update({"score": 1})  # c overtakes everyone; b falls out again
    snapshot = snapshots.next()
    assert snapshot.ids == ["c", "a"]
    assert sorted(snapshot.change_view) == [("ADDED", "c"), ("REMOVED", "b")]

    scores.document("b").update({"score": 25})  # outside the limit: nothing to report
    snapshots.quiet(1.0)
    assert_read_times_advance(snapshots)


def test_deletes_of_many_documents(client, listen):
    items = client.collection("items")
    batch = client.batch()
    for i in range(10):
        batch.set(items.document(f"d{i}"), {"i": i})
    batch.commit()
    _, snapshots = listen(items)
    assert len(snapshots.next().ids) == 10
    batch = client.batch()
    for i in range(0, 10, 2):
        batch.delete(items.document(f"d{i}"))
    batch.commit()
    snapshot = snapshots.next()
    assert snapshot.ids == ["d1", "d3", "d5", "d7", "d9"]
    assert sorted(snapshot.change_view) == [("REMOVED", f"d{i}") for i in range(0, 10, 2)]
    client.recursive_delete(items)
    remaining = snapshots.next()
    while remaining.ids:  # the bulk writer may delete in more than one batch
        remaining = snapshots.next()
    assert remaining.ids == []


def test_collection_group_listener(client, listen):
    _, snapshots = listen(client.collection_group("messages"))
    assert snapshots.next().ids == []
    client.document("rooms/r1/messages/m1").set({"t": "hi"})
    snapshot = snapshots.next()
    assert [d.reference.path for d in snapshot.docs] == ["rooms/r1/messages/m1"]
    client.document("messages/top").set({"t": "top"})
    snapshot = snapshots.next()
    assert [d.reference.path for d in snapshot.docs] == ["messages/top", "rooms/r1/messages/m1"]


def test_many_listeners_at_once(client, listen):
    rooms = client.collection("rooms")
    doc_listeners = [listen(rooms.document(f"d{i:02}"))[1] for i in range(20)]
    query_listeners = [listen(rooms.order_by("n"))[1] for _ in range(10)]
    collection_listeners = [listen(rooms)[1] for _ in range(10)]
    for recorder in doc_listeners + query_listeners + collection_listeners:
        assert recorder.next().ids == []

    batch = client.batch()
    for i in range(20):
        batch.set(rooms.document(f"d{i:02}"), {"n": 19 - i})
    batch.commit()
    for i, recorder in enumerate(doc_listeners):
        snapshot = recorder.next()
        assert snapshot.change_view == [("ADDED", f"d{i:02}")]
        assert snapshot.docs[0].get("n") == 19 - i
    for recorder in query_listeners:
        snapshot = recorder.next()
        assert snapshot.ids == [f"d{i:02}" for i in reversed(range(20))], "one snapshot, ordered by n"
    for recorder in collection_listeners:
        snapshot = recorder.next()
        assert snapshot.ids == [f"d{i:02}" for i in range(20)]
        assert len(snapshot.changes) == 20

    rooms.document("d05").update({"n": 100})
    assert doc_listeners[5].next().docs[0].get("n") == 100
    for recorder in query_listeners:
        assert recorder.next().ids[-1] == "d05"
    for recorder in collection_listeners:
        assert recorder.next().change_view == [("MODIFIED", "d05")]
    doc_listeners[4].quiet(0.5)


def test_listeners_on_two_clients_of_one_project(clients, listen):
    writer = clients()
    reader = clients(writer.project)
    _, snapshots = listen(reader.collection("chat").order_by("at"))
    assert snapshots.next().ids == []
    for i in range(5):
        writer.collection("chat").document(f"m{i}").set({"at": firestore.SERVER_TIMESTAMP, "i": i})
        snapshot = snapshots.next()
        assert snapshot.ids == [f"m{j}" for j in range(i + 1)]
        assert snapshot.change_view == [("ADDED", f"m{i}")]


def test_unsubscribe_stops_callbacks(client, listen):
    ref = client.collection("rooms").document("a")
    watch, stopped = listen(ref)
    _, still = listen(ref)
    stopped.next()
    still.next()
    watch.unsubscribe()
    ref.set({"n": 1})
    assert still.next().change_view == [("ADDED", "a")]
    stopped.quiet(1.0)
    watch.unsubscribe()  # idempotent


def test_listener_latency_is_printed(client, listen, capsys):
    ref = client.collection("latency").document("d")
    _, doc_snapshots = listen(ref)
    _, query_snapshots = listen(client.collection("latency").order_by("i"))
    doc_snapshots.next()
    query_snapshots.next()
    doc_latencies, query_latencies = [], []
    for i in range(30):
        started = time.monotonic()
        ref.set({"i": i})
        doc_latencies.append(doc_snapshots.next().received - started)
        query_latencies.append(query_snapshots.next().received - started)

    def describe(values):
        ms = sorted(v * 1000 for v in values)
        return f"p50 {statistics.median(ms):.1f} ms, p90 {ms[int(len(ms) * 0.9) - 1]:.1f} ms, max {ms[-1]:.1f} ms"

    with capsys.disabled():
        print(f"\n[listen latency, set() → callback, {len(doc_latencies)} writes] "
              f"document listener: {describe(doc_latencies)}; query listener: {describe(query_latencies)}")


# --------------------------------------------------------------------------------------------
# The raw Listen protocol


def assert_target_phase(responses, target_id: int) -> None:
    """An add_target's answer: exactly one ADD first, then (RESET and) documents, then CURRENT, then the
    global snapshot, and nothing about the target after CURRENT but that snapshot."""
    view = significant(responses)
    assert view[0] == ("ADD", (target_id,)), view
    assert [entry for entry in view if entry[0] == "ADD"] == [("ADD", (target_id,))], view
    assert view[-2:] == [("CURRENT", (target_id,)), ("snapshot",)], view


def test_raw_listen_sequence_for_a_query_target(client, raw_apis):
    rooms = client.collection("rooms")
    rooms.document("a").set({"n": 1})
    api = raw_apis(client.project, "owner")
    session = ListenSession(api)
    model = ListenModel()
    try:
        session.add_query(7, "rooms")
        initial = session.until(is_global_snapshot)
        assert_target_phase(initial, 7)
        assert significant(initial) == [
            ("ADD", (7,)),
            ("doc", api.name("rooms/a"), (7,), ()),
            ("CURRENT", (7,)),
            ("snapshot",),
        ]
        model.apply(initial)
        current = next(r for r in initial if is_target_change(r, TargetChangeType.CURRENT, 7))
        assert current.target_change.resume_token, "CURRENT carries a resume token"
        assert initial[-1].target_change.resume_token, "the global snapshot carries a resume token"
        read_times = [initial[-1].target_change.read_time]
        document = model.document(7, api.name("rooms/a"))
        assert document.fields["n"].integer_value == 1
        assert document.create_time and document.update_time

        written = rooms.document("b").set({"n": 2})
        after = session.until(is_global_snapshot)
        model.apply(after)
        assert model.names(7) == [api.name("rooms/a"), api.name("rooms/b")]
        assert model.document(7, api.name("rooms/b")).update_time == written.update_time
        if not has_reset(after, 7):
            assert significant(after) == [("doc", api.name("rooms/b"), (7,), ()), ("snapshot",)]
        read_times.append(after[-1].target_change.read_time)
        assert read_times[-1] >= written.update_time

        rooms.document("a").delete()
        after = session.until(is_global_snapshot)
        model.apply(after)
        assert model.names(7) == [api.name("rooms/b")]
        if not has_reset(after, 7):
            view = significant(after)
            assert view in (
                [("delete", api.name("rooms/a")), ("snapshot",)],
                [("remove", api.name("rooms/a")), ("snapshot",)],
            ), view
        read_times.append(after[-1].target_change.read_time)
        assert read_times == sorted(read_times), "read times never go backwards"

        session.remove(7)
        removed = session.until(lambda r: is_target_change(r, TargetChangeType.REMOVE))
        assert significant(removed)[-1] == ("REMOVE", (7,), 0), "REMOVE without a cause"
        rooms.document("c").set({"n": 3})
        session.add_query(8, "other")  # the stream is still usable after a remove
        later = session.until(is_global_snapshot)
        assert_target_phase(later, 8)
        for response in later:
            if kind(response) == "document_change":
                assert 7 not in list(response.document_change.target_ids), "nothing more for a removed target"
        assert ListenModel().apply(later).names(8) == []
    finally:
        session.close()


def test_raw_listen_two_targets_on_one_stream(client, raw_apis):
    rooms = client.collection("rooms")
    api = raw_apis(client.project, "owner")
    session = ListenSession(api)
    model = ListenModel()
    try:
        session.add_documents(1, ["rooms/a"])  # a documents target on a missing document
        first = session.until(is_global_snapshot)
        assert_target_phase(first, 1)
        assert model.apply(first).names(1) == []
        session.add_query(2, "rooms")
        second = session.until(is_global_snapshot)
        assert_target_phase(second, 2)
        assert model.apply(second).names(2) == []

        rooms.document("a").set({"n": 1})
        after = session.until(is_global_snapshot)
        model.apply(after)
        assert model.names(1) == model.names(2) == [api.name("rooms/a")]
        for response in after:
            if kind(response) == "document_change":
                assert response.document_change.document.name == api.name("rooms/a")
                assert set(response.document_change.target_ids) <= {1, 2}

        rooms.document("b").set({"n": 2})  # only the query target matches b
        after = session.until(is_global_snapshot)
        model.apply(after)
        assert model.names(1) == [api.name("rooms/a")]
        assert model.names(2) == [api.name("rooms/a"), api.name("rooms/b")]
        for response in after:
            if kind(response) == "document_change" and response.document_change.document.name == api.name("rooms/b"):
                assert 1 not in list(response.document_change.target_ids)
    finally:
        session.close()


def test_raw_listen_resume_token_sends_what_changed(client, raw_apis):
    rooms = client.collection("rooms")
    rooms.document("a").set({"n": 1})
    api = raw_apis(client.project, "owner")
    session = ListenSession(api)
    try:
        session.add_query(3, "rooms")
        initial = session.until(is_global_snapshot)
        token = initial[-1].target_change.resume_token
        assert token, "the global snapshot carries a resume token"
        session.remove(3)
        session.until(lambda r: is_target_change(r, TargetChangeType.REMOVE, 3))

        rooms.document("b").set({"n": 2})  # while nobody listens
        session.add_query(3, "rooms", resume_token=token)
        resumed = session.until(is_global_snapshot)
        assert_target_phase(resumed, 3)
        # The client keeps what it had (a) and must end up with the current state (a, b).
        model = ListenModel().apply(initial)
        model.targets[3] = dict(model.targets[3])
        assert model.apply(resumed).names(3) == [api.name("rooms/a"), api.name("rooms/b")]
        assert api.name("rooms/b") in changed_names(resumed), "the document written since the token is sent"
        if not has_reset(resumed, 3):
            assert changed_names(resumed) == {api.name("rooms/b")}, "without RESET only what changed is sent"
    finally:
        session.close()


def test_raw_listen_denied_target_is_removed_with_permission_denied(client, raw_apis, firestore_host):
    project = client.project
    load_rules(
        firestore_host,
        project,
        """rules_version = '2';
service cloud.firestore {
  match /databases/{database}/documents {
    match /public/{doc} { allow read: if true; }
    match /secret/{doc} { allow read: if false; }
  }
}""",
    )
    client.collection("secret").document("s").set({"n": 1})
    client.collection("public").document("p").set({"n": 1})
    api = raw_apis(project, id_token("mallory", project))
    session = ListenSession(api)
    try:
        session.add_query(5, "secret")
        responses = session.until(lambda r: is_target_change(r, TargetChangeType.REMOVE, 5))
        removal = responses[-1].target_change
        assert removal.cause.code == 7, "PERMISSION_DENIED"
        assert removal.cause.message.startswith(PERMISSION_DENIED_MESSAGE + "\n")
        assert all(kind(r) == "target_change" for r in responses), "no secret document is sent"
        assert [entry[0] for entry in significant(responses)] in (["ADD", "REMOVE"], ["REMOVE"])

        session.add_documents(6, ["public/p"])  # the stream stays open
        allowed = session.until(is_global_snapshot)
        assert_target_phase(allowed, 6)
        assert ListenModel().apply(allowed).names(6) == [api.name("public/p")]
    finally:
        session.close()
