"""Indexes as production has them, with google-cloud-firestore and REST against a hearth of this module's own:

- with `--strict-indexes`, a query production would refuse for a missing composite index (or a collection
  group query without its single-field index) fails with production's FAILED_PRECONDITION message and
  console link; the indexes `firestore.indexes.json` declares serve their queries, and an edit to the file
  takes effect while the suite runs; the entries the run needed are listed by
  `GET /emulator/v1/projects/{p}:missingIndexes` and printed when the suite stops;
- without it the same queries run (as in the official emulator) and the needed entries are still named;
- the Realtime Database refuses a REST query ordered by a child its `.indexOn` lacks, with production's text.
"""

from __future__ import annotations

import json
import time

import pytest
import requests
from google.api_core import exceptions
from google.auth.credentials import AnonymousCredentials
from google.cloud import firestore
from google.cloud.firestore_v1.base_query import FieldFilter

from support import RunningHearth

PROJECT = "demo-indexes"
INDEXES = {
    "indexes": [{"collectionGroup": "cities", "queryScope": "COLLECTION", "fields": [
        {"fieldPath": "country", "order": "ASCENDING"}, {"fieldPath": "population", "order": "DESCENDING"}]}],
    "fieldOverrides": [],
}
DATABASE_RULES = {"rules": {".read": True, ".write": True, "indexed": {".indexOn": ["score"]}}}
LINK = f"https://console.firebase.google.com/v1/r/project/{PROJECT}/firestore/indexes?create_composite="


def start(folder, strict: bool) -> RunningHearth:
    (folder / "firestore.indexes.json").write_text(json.dumps(INDEXES))
    (folder / "database.rules.json").write_text(json.dumps(DATABASE_RULES))
    (folder / "emulator.json").write_text(json.dumps({"projectId": PROJECT, "emulators": {
        "firestore": {"port": 0, "indexes": "firestore.indexes.json"},
        "database": {"port": 0, "rules": "database.rules.json"}, "hub": {"port": 0}, "ui": {"enabled": False}}}))
    process = RunningHearth(["--strict-indexes"] if strict else [], cwd=folder)
    process.wait_ready()
    return process


@pytest.fixture(scope="module", params=["strict", "lenient"])
def hearth(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp(f"indexes-{request.param}")
    process = start(folder, request.param == "strict")
    try:
        yield {"process": process, "folder": folder, "strict": request.param == "strict",
               "firestore": process.addresses["Firestore"], "database": process.addresses["Database"]}
    finally:
        process.stop()


@pytest.fixture
def db(hearth, monkeypatch):
    monkeypatch.setenv("FIRESTORE_EMULATOR_HOST", hearth["firestore"])
    client = firestore.Client(project=PROJECT, credentials=AnonymousCredentials())
    cities = client.collection("cities")
    for name, country, population in [("sf", "USA", 870), ("la", "USA", 3900), ("to", "JP", 14000)]:
        cities.document(name).set({"country": country, "population": population, "state": name.upper()})
    yield client
    client.close()


def ids(query) -> list[str]:
    return [snapshot.id for snapshot in query.stream()]


def test_queries_single_field_indexes_serve_run_in_both_modes(db):
    cities = db.collection("cities")
    assert ids(cities.where(filter=FieldFilter("country", "==", "USA"))) == ["la", "sf"]
    assert ids(cities.order_by("population", direction=firestore.Query.DESCENDING).limit(1)) == ["to"]
    assert ids(cities.where(filter=FieldFilter("country", "==", "USA")).where(filter=FieldFilter("state", "==", "SF"))) == ["sf"]
    assert ids(cities.where(filter=FieldFilter("population", ">", 1000))) == ["la", "to"]


def test_a_declared_composite_index_serves_its_query(db):
    query = db.collection("cities").where(filter=FieldFilter("country", "==", "USA")).order_by(
        "population", direction=firestore.Query.DESCENDING)
    assert ids(query) == ["la", "sf"]


def test_a_query_without_its_composite_index_fails_as_production_does_in_strict_mode(db, hearth):
    query = db.collection("cities").where(filter=FieldFilter("country", "==", "USA")).order_by("population")
    if not hearth["strict"]:
        assert ids(query) == ["sf", "la"]
    else:
        with pytest.raises(exceptions.FailedPrecondition) as raised:
            ids(query)
        assert raised.value.message.startswith("The query requires an index. You can create it here: " + LINK), raised.value.message
        # Over REST: the same status and message in Google's JSON error.
        answer = requests.post(
            f"http://{hearth['firestore']}/v1/projects/{PROJECT}/databases/(default)/documents:runQuery",
            json={"structuredQuery": {"from": [{"collectionId": "cities"}],
                                      "where": {"fieldFilter": {"field": {"fieldPath": "country"}, "op": "EQUAL", "value": {"stringValue": "USA"}}},
                                      "orderBy": [{"field": {"fieldPath": "population"}}]}}, timeout=10)
        assert answer.status_code == 400, answer.text
        error = answer.json()[0]["error"] if isinstance(answer.json(), list) else answer.json()["error"]
        assert error["status"] == "FAILED_PRECONDITION" and error["message"].startswith("The query requires an index."), error
    listed = requests.get(f"http://{hearth['firestore']}/emulator/v1/projects/{PROJECT}:missingIndexes", timeout=10).json()
    assert {"collectionGroup": "cities", "queryScope": "COLLECTION", "fields": [
        {"fieldPath": "country", "order": "ASCENDING"}, {"fieldPath": "population", "order": "ASCENDING"}]} in listed["indexes"], listed


def test_a_collection_group_query_needs_a_single_field_index_of_its_scope(db, hearth):
    db.collection("cities").document("sf").collection("landmarks").document("bridge").set({"type": "bridge"})
    query = db.collection_group("landmarks").where(filter=FieldFilter("type", "==", "bridge"))
    if not hearth["strict"]:
        assert ids(query) == ["bridge"]
        return
    with pytest.raises(exceptions.FailedPrecondition) as raised:
        ids(query)
    assert raised.value.message.startswith(
        "The query requires a COLLECTION_GROUP_ASC index for collection landmarks and field type. You can create it here: "
        f"https://console.firebase.google.com/v1/r/project/{PROJECT}/firestore/indexes?create_exemption="), raised.value.message


def test_an_edited_indexes_file_takes_effect_while_the_suite_runs(db, hearth):
    query = db.collection("cities").where(filter=FieldFilter("state", "==", "SF")).order_by("population")
    if not hearth["strict"]:
        assert ids(query) == ["sf"]
        return
    with pytest.raises(exceptions.FailedPrecondition):
        ids(query)
    edited = json.loads(json.dumps(INDEXES))
    edited["indexes"].append({"collectionGroup": "cities", "queryScope": "COLLECTION", "fields": [
        {"fieldPath": "state", "order": "ASCENDING"}, {"fieldPath": "population", "order": "ASCENDING"}]})
    (hearth["folder"] / "firestore.indexes.json").write_text(json.dumps(edited))
    deadline = time.monotonic() + 10
    while True:
        try:
            assert ids(query) == ["sf"]
            break
        except exceptions.FailedPrecondition:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def test_a_database_query_without_its_index_on_fails_in_strict_mode(hearth):
    base = f"http://{hearth['database']}"
    namespace = f"{PROJECT}-default-rtdb"
    for path in ("indexed", "plain"):
        assert requests.put(f"{base}/{path}.json?ns={namespace}", json={"a": {"score": 2}, "b": {"score": 1}}, timeout=10).ok
    indexed = requests.get(f"{base}/indexed.json", params={"ns": namespace, "orderBy": '"score"', "limitToFirst": "1"}, timeout=10)
    assert indexed.status_code == 200 and indexed.json() == {"b": {"score": 1}}, indexed.text
    plain = requests.get(f"{base}/plain.json", params={"ns": namespace, "orderBy": '"score"', "limitToFirst": "1"}, timeout=10)
    if not hearth["strict"]:
        assert plain.status_code == 200 and plain.json() == {"b": {"score": 1}}, plain.text
        return
    assert plain.status_code == 400, plain.text
    assert plain.json() == {"error": 'Index not defined, add ".indexOn": "score", for path "/plain", to the rules'}
    by_key = requests.get(f"{base}/plain.json", params={"ns": namespace, "orderBy": '"$key"', "limitToFirst": "1"}, timeout=10)
    assert by_key.status_code == 200, by_key.text


def test_the_needed_entries_are_printed_when_the_suite_stops(tmp_path, monkeypatch):
    process = start(tmp_path, strict=False)
    try:
        monkeypatch.setenv("FIRESTORE_EMULATOR_HOST", process.addresses["Firestore"])
        client = firestore.Client(project=PROJECT, credentials=AnonymousCredentials())
        client.collection("cities").document("sf").set({"country": "USA", "population": 870})
        assert ids(client.collection("cities").where(filter=FieldFilter("country", "==", "USA")).order_by("population")) == ["sf"]
        client.close()
        assert any("needs an index that is not declared" in line for line in process.stderr_lines), process.output()
    finally:
        process.stop()
    output = "\n".join(process.stdout_lines)
    assert "Add these entries to it:" in output, process.output()
    printed, _ = json.JSONDecoder().raw_decode(output[output.index("Add these entries to it:") + len("Add these entries to it:"):].strip())
    assert printed["indexes"][0]["fields"][1] == {"fieldPath": "population", "order": "ASCENDING"}, printed


def test_firebase_admin_db_meets_the_same_refusal(hearth):
    """firebase-admin's `db` (REST underneath); its Firestore client needs Google credentials, so
    google-cloud-firestore stands for it above."""
    import uuid

    import firebase_admin
    from firebase_admin import db as admin_db
    from firebase_admin import exceptions as admin_exceptions

    namespace = f"{PROJECT}-default-rtdb"
    app = firebase_admin.initialize_app(
        options={"projectId": PROJECT, "databaseURL": f"http://{hearth['database']}?ns={namespace}"},
        name=f"indexes-{uuid.uuid4().hex[:8]}")
    try:
        reference = admin_db.reference("admin-plain", app=app)
        reference.set({"a": {"score": 2}, "b": {"score": 1}})
        ordered = reference.order_by_child("score").limit_to_first(1)
        if hearth["strict"]:
            with pytest.raises(admin_exceptions.InvalidArgumentError) as refused:
                ordered.get()
            assert 'Index not defined, add ".indexOn": "score", for path "/admin-plain", to the rules' in str(refused.value)
        else:
            assert list(ordered.get().keys()) == ["b"]
        # Indexed where the rules say so: fine in both modes.
        admin_db.reference("indexed", app=app).set({"a": {"score": 2}, "b": {"score": 1}})
        assert list(admin_db.reference("indexed", app=app).order_by_child("score").limit_to_first(1).get().keys()) == ["b"]
    finally:
        firebase_admin.delete_app(app)
