"""Vector search (`findNearest`) answered as Google's official Firestore emulator answers it: every case of
corpus/vector_search.json (recorded by `vector_search.py record`; vector_search.py explains the cases) over
REST, the query cases again over gRPC (the generated stub, as the SDKs call RunQuery), the Python client's own
`find_nearest`, and a listen target with a search (the nearest documents, followed as they change).
"""

from __future__ import annotations

import json
import math
import sys
import uuid
from pathlib import Path

import pytest
from google.cloud.firestore_v1.base_vector_query import DistanceMeasure
from google.cloud.firestore_v1.types import document as document_types
from google.cloud.firestore_v1.types import firestore as firestore_types
from google.cloud.firestore_v1.types import query as query_types
from google.cloud.firestore_v1.vector import Vector
from google.protobuf import json_format

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))
import vector_search  # noqa: E402
from firestore_grpc_support import ListenSession, client, clients, firestore_host, raw_apis  # noqa: E402,F401 (fixtures)

RECORDED = json.loads(vector_search.CORPUS.read_text())
CASES = RECORDED["cases"]
QUERIES = [index for index, case in enumerate(CASES) if case["kind"] == "query" and case.get("owner", True)]


@pytest.fixture(scope="module")
def seeded(suite) -> str:
    """A fresh project holding the corpus's documents and rules."""
    project = f"demo-vectors-{uuid.uuid4().hex[:8]}"
    vector_search.seed_documents(suite.firestore_url, project, RECORDED["seed"])
    return project


# A denial reads as production's: "Missing or insufficient permissions." before the official emulator's
# evaluation detail (which it sends alone, after a newline).
PRODUCTION_DENIAL = "Missing or insufficient permissions."


def expected_answer(case: dict) -> dict:
    """The recorded answer, with a denial's message as production words it."""
    answer = case["answer"]
    if answer.get("status") == 403:
        return {**answer, "message": PRODUCTION_DENIAL + answer["message"]}
    return answer


def describe(case: dict) -> str:
    return json.dumps({key: value for key, value in case.items() if key != "answer"})[:600]


def test_every_case_over_rest_as_the_official_emulator(suite, seeded):
    disagreements = []
    for index, case in enumerate(CASES):
        answer = vector_search.ask(suite.firestore_url, seeded, case)
        if answer != expected_answer(case):
            disagreements.append(f"case {index}: {describe(case)}\n  official: {json.dumps(case['answer'])[:600]}\n  hearth:   {json.dumps(answer)[:600]}")
    print(f"{len(CASES) - len(disagreements)} of {len(CASES)} cases agree")
    assert not disagreements, f"{len(disagreements)} cases disagree:\n" + "\n".join(disagreements[:20])


def grpc_answer(api, case: dict) -> dict:
    """`vector_search.ask`'s normalized answer, over gRPC RunQuery."""
    structured = query_types.StructuredQuery.pb()()
    json_format.ParseDict(case["structuredQuery"], structured)
    request = firestore_types.RunQueryRequest(parent=api.root, structured_query=query_types.StructuredQuery.wrap(structured))
    try:
        responses = list(api.call("run_query", request))
    except Exception as error:  # noqa: BLE001 - the gRPC status is the answer
        return {"code": getattr(error, "grpc_status_code", None) and error.grpc_status_code.name, "message": error.message}
    results = []
    for response in responses:
        if "document" in response:
            document = json_format.MessageToDict(type(response).pb(response).document)
            fields = {name: value for name, value in document.get("fields", {}).items() if name not in ("v", "m")}
            results.append([document["name"].split("/documents/", 1)[1], fields])
    return {"results": results}


def test_every_query_over_grpc_as_the_official_emulator(seeded, raw_apis):
    api = raw_apis(seeded, "owner")
    disagreements = []
    for index in QUERIES:
        case = CASES[index]
        answer = grpc_answer(api, case)
        expected = expected_answer(case)
        if "status" in expected:
            # The same message, with the gRPC code for the HTTP status (400: INVALID_ARGUMENT).
            expected = {"code": {400: "INVALID_ARGUMENT", 403: "PERMISSION_DENIED"}[expected["status"]], "message": expected["message"]}
        if answer != expected:
            disagreements.append(f"case {index}: {describe(case)}\n  official: {json.dumps(expected)[:600]}\n  hearth:   {json.dumps(answer)[:600]}")
    assert not disagreements, f"{len(disagreements)} of {len(QUERIES)} queries disagree over gRPC:\n" + "\n".join(disagreements[:20])


def test_the_python_clients_find_nearest(client):
    """google-cloud-firestore's own vector query: Vector values in, nearest first, distances in the result
    field, a where pre-filter, a threshold (its VectorQuery has no aggregations; the corpus asks those over
    REST)."""
    collection = client.collection("docs")
    for name, vector, kind in (("east", [1.0, 0.0], "a"), ("north", [0.0, 1.0], "a"), ("diagonal", [1.0, 1.0], "b"),
                               ("far", [10.0, 0.0], "a"), ("wide", [1.0, 0.0, 0.0], "a")):
        collection.document(name).set({"embedding": Vector(vector), "kind": kind})
    nearest = collection.find_nearest(
        vector_field="embedding", query_vector=Vector([1.0, 0.1]), distance_measure=DistanceMeasure.EUCLIDEAN, limit=3,
        distance_result_field="distance").get()
    assert [snapshot.id for snapshot in nearest] == ["east", "diagonal", "north"]
    assert isinstance(nearest[0].get("embedding"), Vector) and list(nearest[0].get("embedding")) == [1.0, 0.0]
    assert math.isclose(nearest[0].get("distance"), 0.1)
    cosine = collection.where("kind", "==", "a").find_nearest(
        vector_field="embedding", query_vector=Vector([1.0, 0.0]), distance_measure=DistanceMeasure.COSINE, limit=10,
        distance_threshold=0.5).get()
    assert [snapshot.id for snapshot in cosine] == ["east", "far"]
    dot = collection.find_nearest(
        vector_field="embedding", query_vector=Vector([1.0, 1.0]), distance_measure=DistanceMeasure.DOT_PRODUCT, limit=2,
        distance_result_field="score").get()
    assert [(snapshot.id, snapshot.get("score")) for snapshot in dot] == [("far", 10.0), ("diagonal", 2.0)]


def test_a_listen_target_with_a_vector_search_follows_the_nearest_documents(seeded, raw_apis):
    """As the official emulator answers it: the target's documents are RunQuery's nearest ones, with their
    distances; a document that moves nearer enters, and one pushed out leaves."""
    api = raw_apis(seeded, "owner")
    session = ListenSession(api)
    case = CASES[0]
    structured = query_types.StructuredQuery.pb()()
    json_format.ParseDict(case["structuredQuery"], structured)
    session.send(add_target=firestore_types.Target(
        target_id=7, query=firestore_types.Target.QueryTarget(
            parent=api.root, structured_query=query_types.StructuredQuery.wrap(structured))))
    def is_snapshot(response) -> bool:
        return ("target_change" in response and not response.target_change.target_ids
                and response.target_change.target_change_type == firestore_types.TargetChange.TargetChangeType.NO_CHANGE)

    responses = session.until(is_snapshot)
    changes = [response.document_change.document for response in responses if "document_change" in response]
    expected = case["answer"]["results"]
    assert [document.name.split("/documents/", 1)[1] for document in changes] == [name for name, _ in expected]
    field = case["structuredQuery"]["findNearest"]["distanceResultField"]
    assert [document.fields[field].double_value for document in changes] == [fields[field]["doubleValue"] for _, fields in expected]
    # A new document exactly at the query vector enters; the farthest of the nearest leaves.
    vector = case["structuredQuery"]["findNearest"]["queryVector"]
    api.call("commit", firestore_types.CommitRequest(database=api.database, writes=[
        {"update": {"name": api.name("vs/exact"), "fields": {"v": json_format.ParseDict(vector, document_types.Value.pb()())}}}]))
    after = session.until(is_snapshot)
    entered = [response.document_change.document.name.split("/documents/", 1)[1] for response in after if "document_change" in response]
    left = [(response.document_remove or response.document_delete).document.split("/documents/", 1)[1]
            for response in after if "document_remove" in response or "document_delete" in response]
    assert entered == ["vs/exact"], after
    assert left == [expected[-1][0]], after
