"""Cloud Firestore in a browser: firebase-firestore.js 10.7.1 with connectFirestoreEmulator against a hearth of this
module's own (open rules), over WebChannel with the default settings (a streaming back channel) and with
`experimentalForceLongPolling` (long-polled back channel, CI=1): every test runs with both.

Besides Listen and Write over WebChannel, the SDK calls the REST API with fetch() for transactions (batchGet,
commit) and aggregations (runAggregationQuery). What the browser writes is read back with google-cloud-firestore
(which finds the emulator through FIRESTORE_EMULATOR_HOST), and what that client writes must reach the browser's
listeners.
"""

from __future__ import annotations

import datetime
import os
import uuid

import pytest

from browser_support import wait_for

TRANSPORTS = {
    "webchannel": None,  # the SDK's default: WebChannel with a streaming back channel
    "long-polling": {"experimentalForceLongPolling": True},
}


@pytest.fixture(params=list(TRANSPORTS), scope="module")
def settings(request):
    """The settings given to initializeFirestore: each test runs once per transport."""
    return TRANSPORTS[request.param]


@pytest.fixture(scope="module")
def python_db(endpoints):
    """google-cloud-firestore on the module's hearth, found through FIRESTORE_EMULATOR_HOST as the SDK documents."""
    from google.cloud import firestore

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("FIRESTORE_EMULATOR_HOST", endpoints.firestore)
        client = firestore.Client(project=endpoints.project_id)
        assert os.environ["FIRESTORE_EMULATOR_HOST"] == endpoints.firestore
        yield client
        client.close()


@pytest.fixture
def collection():
    """A collection id no other test uses."""
    return "c" + uuid.uuid4().hex[:12]


def test_transport_is_the_one_asked_for(page, settings, collection):
    entries = page.run("""
        const {firestore: F} = fb;
        const db = h.firestore(h.app("a"), args.settings);
        const ref = F.doc(db, args.collection, "d");
        await F.setDoc(ref, {n: 1});
        await F.getDocFromServer(ref);
        return performance.getEntriesByType("resource").map((entry) => entry.name)
          .filter((name) => name.includes("/google.firestore.v1.Firestore/"));
    """, settings=settings, collection=collection)
    assert any("/Write/channel?" in name for name in entries), entries
    assert any("/Listen/channel?" in name for name in entries), entries
    long_polls = [name for name in entries if "&CI=1&" in name or "&TYPE=xmlhttp&" in name]
    if settings:
        assert long_polls, f"experimentalForceLongPolling must long-poll (CI=1): {entries}"
    else:
        assert not long_polls, f"the default transport streams its back channel: {entries}"


def test_set_get_update_delete(page, settings, python_db, collection):
    created = page.run("""
        const {firestore: F} = fb;
        const db = h.firestore(h.app("a"), args.settings);
        t.db = db;
        t.ref = F.doc(db, args.collection, "alpha");
        await F.setDoc(t.ref, {
          s: "text", i: 42, d: 1.5, b: true, n: null, a: [1, "two", {three: 3}], m: {nested: {deep: "x"}},
          ts: F.Timestamp.fromMillis(1700000000123), geo: new F.GeoPoint(48.85, 2.35),
          bytes: F.Bytes.fromUint8Array(new Uint8Array([0, 1, 254, 255])), ref: F.doc(db, "other", "x"),
        });
        const read = await F.getDoc(t.ref);
        return {exists: read.exists(), fromCache: read.metadata.fromCache, s: read.get("s"), i: read.get("i"),
                geo: read.get("geo").latitude, bytes: read.get("bytes").toBase64(), ref: read.get("ref").path};
    """, settings=settings, collection=collection)
    assert created == {"exists": True, "fromCache": False, "s": "text", "i": 42, "geo": 48.85, "bytes": "AAH+/w==",
                       "ref": "other/x"}
    stored = python_db.collection(collection).document("alpha").get()
    assert stored.exists
    data = stored.to_dict()
    assert {key: data[key] for key in ("s", "i", "d", "b", "n", "a", "m")} == {
        "s": "text", "i": 42, "d": 1.5, "b": True, "n": None, "a": [1, "two", {"three": 3}],
        "m": {"nested": {"deep": "x"}}}
    assert isinstance(data["i"], int) and isinstance(data["d"], float)
    assert data["ts"] == datetime.datetime(2023, 11, 14, 22, 13, 20, 123000, tzinfo=datetime.timezone.utc)
    assert (data["geo"].latitude, data["geo"].longitude) == (48.85, 2.35)
    assert data["bytes"] == b"\x00\x01\xfe\xff"
    assert data["ref"].path == "other/x"

    updated = page.run("""
        const {firestore: F} = fb;
        await F.updateDoc(t.ref, {"m.nested.deep": "y", i: F.increment(8), a: F.arrayUnion(4, 1), s: F.deleteField(),
                                  at: F.serverTimestamp()});
        const read = await F.getDocFromServer(t.ref);
        return {i: read.get("i"), a: read.get("a"), s: read.get("s") ?? "absent", deep: read.get("m.nested.deep"),
                at: read.get("at").toMillis()};
    """)
    assert updated["i"] == 50
    assert updated["a"] == [1, "two", {"three": 3}, 4]
    assert updated["s"] == "absent"
    assert updated["deep"] == "y"
    data = python_db.collection(collection).document("alpha").get().to_dict()
    assert "s" not in data and data["i"] == 50 and data["m"] == {"nested": {"deep": "y"}}
    assert int(data["at"].timestamp() * 1000) == updated["at"]
    now = datetime.datetime.now(datetime.timezone.utc)
    assert abs((now - data["at"]).total_seconds()) < 60, "serverTimestamp() is the server's clock"

    deleted = page.run("""
        const {firestore: F} = fb;
        await F.deleteDoc(t.ref);
        const read = await F.getDocFromServer(t.ref);
        let missing;
        try { await F.updateDoc(t.ref, {i: 1}); missing = "updated"; } catch (error) { missing = error.code; }
        return {exists: read.exists(), missing};
    """)
    assert deleted == {"exists": False, "missing": "not-found"}
    assert not python_db.collection(collection).document("alpha").get().exists


def test_add_doc(page, settings, python_db, collection):
    added = page.run("""
        const {firestore: F} = fb;
        const db = h.firestore(h.app("a"), args.settings);
        const one = await F.addDoc(F.collection(db, args.collection), {n: 1});
        const two = await F.addDoc(F.collection(db, args.collection), {n: 2});
        return [one.id, two.id, one.path];
    """, settings=settings, collection=collection)
    one, two, path = added
    assert one != two and len(one) == 20 and len(two) == 20 and one.isalnum()
    assert path == f"{collection}/{one}"
    stored = {snapshot.id: snapshot.to_dict() for snapshot in python_db.collection(collection).stream()}
    assert stored == {one: {"n": 1}, two: {"n": 2}}


CITIES = {
    "ams": {"name": "Amsterdam", "pop": 9, "tags": ["canal", "coast"]},
    "ber": {"name": "Berlin", "pop": 36, "tags": ["river"]},
    "lis": {"name": "Lisbon", "pop": 5, "tags": ["coast", "hills"]},
    "par": {"name": "Paris", "pop": 21, "tags": ["river"]},
    "rom": {"name": "Rome", "pop": 28, "tags": ["hills"]},
    "zur": {"name": "Zurich", "pop": 4, "tags": ["lake"]},
    "vad": {"name": "Vaduz", "pop": 0.5, "tags": []},
}


def test_queries(page, settings, python_db, collection):
    batch = python_db.batch()
    for key, city in CITIES.items():
        batch.set(python_db.collection(collection).document(key), city)
    batch.commit()
    result = page.run("""
        const {firestore: F} = fb;
        const db = h.firestore(h.app("a"), args.settings);
        const cities = F.collection(db, args.collection);
        const ids = async (...constraints) => (await F.getDocs(F.query(cities, ...constraints))).docs.map((d) => d.id);
        return {
          topTwo: await ids(F.where("pop", ">=", 10), F.orderBy("pop", "desc"), F.limit(2)),
          coast: await ids(F.where("tags", "array-contains", "coast"), F.orderBy("name")),
          named: await ids(F.where("name", "in", ["Rome", "Lisbon", "Oslo"]), F.orderBy("name")),
          afterFive: await ids(F.orderBy("pop"), F.startAfter(5), F.limit(2)),
          lastTwo: await ids(F.orderBy("pop"), F.limitToLast(2)),
          either: await ids(F.or(F.where("pop", "<", 1), F.where("name", "==", "Zurich")), F.orderBy("pop")),
          notRiver: await ids(F.where("tags", "not-in", [["river"]]), F.orderBy("tags"), F.orderBy("pop")),
          count: (await F.getCountFromServer(F.query(cities, F.where("pop", ">=", 10)))).data().count,
        };
    """, settings=settings, collection=collection)
    assert result == {
        "topTwo": ["ber", "rom"],
        "coast": ["ams", "lis"],
        "named": ["lis", "rom"],
        "afterFive": ["ams", "par"],
        "lastTwo": ["rom", "ber"],
        "either": ["vad", "zur"],
        # Arrays order element by element: [] < ["canal", …] < ["coast", …] < ["hills"] < ["lake"].
        "notRiver": ["vad", "ams", "lis", "rom", "zur"],
        "count": 3,
    }


def test_on_snapshot_pending_writes_then_acknowledged(page, settings, collection):
    events = page.run("""
        const {firestore: F} = fb;
        const db = h.firestore(h.app("a"), args.settings);
        const ref = F.doc(db, args.collection, "watched");
        const events = [];
        const unsubscribe = F.onSnapshot(ref, {includeMetadataChanges: true}, (snapshot) => events.push(
          {exists: snapshot.exists(), n: snapshot.get("n") ?? null, pending: snapshot.metadata.hasPendingWrites,
           fromCache: snapshot.metadata.fromCache}));
        await h.until(() => events.some((e) => !e.fromCache), "the server's first answer (no document)");
        const written = F.setDoc(ref, {n: 1});
        await written;
        await h.until(() => events.some((e) => e.n === 1 && !e.pending), "the acknowledged write");
        await F.updateDoc(ref, {n: 2});
        await h.until(() => events.some((e) => e.n === 2 && !e.pending), "the acknowledged update");
        unsubscribe();
        return events;
    """, settings=settings, collection=collection)
    assert events[-1] == {"exists": True, "n": 2, "pending": False, "fromCache": False}
    served = [event for event in events if not event["fromCache"]]
    assert served[0] == {"exists": False, "n": None, "pending": False, "fromCache": False}
    for value in (1, 2):
        mine = [event for event in events if event["n"] == value]
        assert mine[0]["pending"] is True, f"the local write of n={value} shows first, pending: {events}"
        assert mine[-1]["pending"] is False, f"then the server's acknowledgement: {events}"
        first_acknowledged = next(i for i, event in enumerate(mine) if not event["pending"])
        assert all(not event["pending"] for event in mine[first_acknowledged:]), events


def test_listener_sees_python_client_writes(page, settings, python_db, collection):
    page.run("""
        const {firestore: F} = fb;
        const db = h.firestore(h.app("a"), args.settings);
        t.changes = [];
        t.snapshots = 0;
        t.unsubscribe = F.onSnapshot(F.query(F.collection(db, args.collection), F.orderBy("n")), (snapshot) => {
          t.snapshots++;
          for (const change of snapshot.docChanges()) t.changes.push([change.type, change.doc.id, change.doc.get("n")]);
        });
        await h.until(() => t.snapshots === 1, "the first (empty) snapshot");
    """, settings=settings, collection=collection)
    documents = python_db.collection(collection)
    documents.document("py1").set({"n": 1, "from": "python"})
    page.run("await h.until(() => t.changes.length === 1, 'the document python added');")
    documents.document("py1").update({"n": 5})
    documents.document("py2").set({"n": 3})
    page.run("await h.until(() => t.changes.length === 3, 'the update and the second document');")
    documents.document("py1").delete()
    changes = page.run("""
        await h.until(() => t.changes.length === 4, "the delete");
        await h.sleep(100);
        t.unsubscribe();
        return t.changes;
    """)
    assert changes == [["added", "py1", 1], ["modified", "py1", 5], ["added", "py2", 3], ["removed", "py1", 5]]


def test_write_batch(page, settings, python_db, collection):
    python_db.collection(collection).document("old").set({"n": 1})
    result = page.run("""
        const {firestore: F} = fb;
        const db = h.firestore(h.app("a"), args.settings);
        const batch = F.writeBatch(db);
        batch.set(F.doc(db, args.collection, "new"), {n: 2});
        batch.update(F.doc(db, args.collection, "old"), {n: F.increment(10)});
        batch.set(F.doc(db, args.collection, "gone"), {n: 3});
        batch.delete(F.doc(db, args.collection, "gone"));
        await batch.commit();
        // A batch whose update finds no document fails as a whole.
        const failing = F.writeBatch(db);
        failing.set(F.doc(db, args.collection, "never"), {n: 4});
        failing.update(F.doc(db, args.collection, "missing"), {n: 5});
        try { await failing.commit(); return "committed"; } catch (error) { return error.code; }
    """, settings=settings, collection=collection)
    assert result == "not-found"
    stored = {snapshot.id: snapshot.to_dict() for snapshot in python_db.collection(collection).stream()}
    assert stored == {"new": {"n": 2}, "old": {"n": 11}}


def test_run_transaction(page, settings, python_db, collection):
    python_db.collection(collection).document("from").set({"balance": 100})
    python_db.collection(collection).document("to").set({"balance": 5})
    result = page.run("""
        const {firestore: F} = fb;
        const db = h.firestore(h.app("a"), args.settings);
        const from = F.doc(db, args.collection, "from"), to = F.doc(db, args.collection, "to");
        const moved = await F.runTransaction(db, async (transaction) => {
          const source = await transaction.get(from), target = await transaction.get(to);
          transaction.update(from, {balance: source.get("balance") - 30});
          transaction.update(to, {balance: target.get("balance") + 30});
          return 30;
        });
        // An update function that throws leaves everything as it was.
        let aborted;
        try {
          await F.runTransaction(db, async (transaction) => {
            await transaction.get(from);
            transaction.update(from, {balance: 0});
            throw new Error("insufficient funds");
          });
        } catch (error) { aborted = error.message; }
        return {moved, aborted};
    """, settings=settings, collection=collection)
    assert result == {"moved": 30, "aborted": "insufficient funds"}
    assert python_db.collection(collection).document("from").get().to_dict() == {"balance": 70}
    assert python_db.collection(collection).document("to").get().to_dict() == {"balance": 35}


def test_conflicting_transactions_from_two_apps_all_apply(page, settings, python_db, collection):
    page.expect_console("transaction conflict")
    rounds = 10
    python_db.collection(collection).document("counter").set({"n": 0})
    result = page.run("""
        const {firestore: F} = fb;
        const one = h.firestore(h.app("one"), args.settings), two = h.firestore(h.app("two"), args.settings);
        const counter = (db) => F.doc(db, args.collection, "counter");
        const increment = (db, attempts) => F.runTransaction(db, async (transaction) => {
          attempts.push(1);
          const snapshot = await transaction.get(counter(db));
          transaction.update(counter(db), {n: snapshot.get("n") + 1});
        }, {maxAttempts: 50});

        // A certain conflict: app two commits between app one's read and app one's commit, so app one's commit
        // must be refused and retried (a lost update would leave n at 1).
        const oneAttempts = [], twoAttempts = [];
        await F.runTransaction(one, async (transaction) => {
          oneAttempts.push(1);
          const snapshot = await transaction.get(counter(one));
          if (oneAttempts.length === 1) await increment(two, twoAttempts);
          transaction.update(counter(one), {n: snapshot.get("n") + 1});
        });
        const afterConflict = (await F.getDocFromServer(counter(one))).get("n");

        // Then both apps increment concurrently, as two tabs would.
        const attempts = [];
        const run = async (db) => { for (let i = 0; i < args.rounds; i++) await increment(db, attempts); };
        await Promise.all([run(one), run(two)]);
        const final = (await F.getDocFromServer(counter(two))).get("n");
        return {oneAttempts: oneAttempts.length, afterConflict, attempts: attempts.length, final};
    """, settings=settings, collection=collection, rounds=rounds)
    assert result["oneAttempts"] == 2, "the conflicting commit must be refused once, then retried"
    assert result["afterConflict"] == 2
    assert result["final"] == 2 + 2 * rounds
    assert result["attempts"] >= 2 * rounds
    assert python_db.collection(collection).document("counter").get().to_dict() == {"n": 2 + 2 * rounds}


def test_persistent_cache_keeps_an_offline_write_until_back_online(page, settings, python_db, collection):
    app_name = "persistent-" + collection
    # Going offline, reloading and deleting the app end sessions while long polls may be in flight (seen once
    # in a full run under load).
    page.expect_console("channel closed while polling")
    script_open = """
        const {firestore: F} = fb;
        t.db = h.firestore(h.app(args.name, {}, true), {...args.settings, localCache: F.persistentLocalCache()});
        t.ref = F.doc(t.db, args.collection, "offline");
    """
    cached = page.run(script_open + """
        await F.setDoc(F.doc(t.db, args.collection, "online"), {n: 0});  // connected once
        await F.disableNetwork(t.db);
        F.setDoc(t.ref, {n: 1, written: "offline"});  // cannot be acknowledged while offline
        const read = await F.getDocFromCache(t.ref);
        return {data: read.data(), pending: read.metadata.hasPendingWrites, fromCache: read.metadata.fromCache};
    """, name=app_name, settings=settings, collection=collection)
    assert cached == {"data": {"n": 1, "written": "offline"}, "pending": True, "fromCache": True}
    assert not python_db.collection(collection).document("offline").get().exists, "written while offline"

    # A reload (the tab goes away without shutting the SDK down): the new page's SDK finds the write in IndexedDB.
    page.load()
    reloaded = page.run(script_open + """
        await F.disableNetwork(t.db);
        const read = await F.getDocFromCache(t.ref);
        return {data: read.data(), pending: read.metadata.hasPendingWrites};
    """, name=app_name, settings=settings, collection=collection)
    assert reloaded == {"data": {"n": 1, "written": "offline"}, "pending": True}
    assert not python_db.collection(collection).document("offline").get().exists

    acknowledged = page.run("""
        const {firestore: F} = fb;
        await F.enableNetwork(t.db);
        await F.waitForPendingWrites(t.db);
        const read = await F.getDocFromServer(t.ref);
        return {data: read.data(), pending: read.metadata.hasPendingWrites};
    """)
    assert acknowledged == {"data": {"n": 1, "written": "offline"}, "pending": False}
    stored = wait_for(lambda: python_db.collection(collection).document("offline").get(), "the server copy")
    assert stored.to_dict() == {"n": 1, "written": "offline"}
