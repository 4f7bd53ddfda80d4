#!/usr/bin/env python3
"""The vector-search corpus: documents with vectors, and `findNearest` queries over them (every distance
measure with limits, thresholds, result fields, `where` pre-filters, `orderBy` tie-breaks, projections,
collection groups, aggregations, rules-protected lists, and the invalid ones with their errors), plus writes
of malformed vectors. Seeded and reproducible.

`record` asks Google's official Firestore emulator every case and stores its answers in
corpus/vector_search.json (only this needs Java); test_vector_search.py asks Hearth the same over REST
(and a sample over gRPC with google-cloud-firestore) and compares.

Usage: .venv/bin/python conformance/differential/vector_search.py record [--seed 20]
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import random
import sys
import time
from pathlib import Path

import requests

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus" / "vector_search.json"
OWNER = {"Authorization": "Bearer owner"}
MEASURES = ["EUCLIDEAN", "COSINE", "DOT_PRODUCT"]
# Read by list rules in the `guarded` collection (queries there go without the owner token).
RULES = """rules_version = '2';
service cloud.firestore {
  match /databases/{database}/documents {
    match /{document=**} { allow read, write: if false; }
    match /guarded/{id} { allow list: if resource.data.owner == 'me'; }
    match /limited/{id} { allow list: if request.query.limit == null; }
  }
}
"""


def number(x: float):
    """A double as proto3 JSON writes it."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return x


def vector(components, kind: str = "doubleValue") -> dict:
    """A vector value of `components`."""
    values = [{kind: number(c) if kind == "doubleValue" else str(c)} for c in components]
    return {"mapValue": {"fields": {"__type__": {"stringValue": "__vector__"},
                                    "value": {"arrayValue": {"values": values}}}}}


def documents(seed: int) -> dict[str, dict]:
    """Path below the documents root -> fields, for the queried collections."""
    rng = random.Random(seed)
    docs: dict[str, dict] = {}
    small = [-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0]
    for index in range(40):
        dims = 2 if index < 28 else 3
        if index % 9 == 0:
            components = [rng.choice(small) for _ in range(dims)]  # exact ties are likely
        else:
            components = [round(rng.uniform(-3, 3), 3) for _ in range(dims)]
        docs[f"vs/d{index:02d}"] = {
            "v": vector(components), "n": {"integerValue": str(index % 7)},
            "tag": {"stringValue": rng.choice(["red", "green", "blue"])},
            "dist": {"stringValue": "stored"},
        }
    docs["vs/zero"] = {"v": vector([0.0, 0.0]), "n": {"integerValue": "3"}, "tag": {"stringValue": "red"}}
    docs["vs/huge"] = {"v": vector([float("inf"), 1.0]), "n": {"integerValue": "4"}, "tag": {"stringValue": "blue"}}
    docs["vs/twin1"] = {"v": vector([1.0, 1.0]), "n": {"integerValue": "5"}, "tag": {"stringValue": "green"}}
    docs["vs/twin2"] = {"v": vector([1.0, 1.0]), "n": {"integerValue": "1"}, "tag": {"stringValue": "green"}}
    docs["vs/list"] = {"v": {"arrayValue": {"values": [{"doubleValue": 1.0}, {"doubleValue": 0.0}]}}, "n": {"integerValue": "2"}}
    docs["vs/text"] = {"v": {"stringValue": "not a vector"}, "n": {"integerValue": "2"}}
    docs["vs/none"] = {"n": {"integerValue": "2"}, "tag": {"stringValue": "red"}}
    docs["vs/nested"] = {"m": {"mapValue": {"fields": {"v": vector([0.5, 0.5])}}}, "v": vector([0.25, -1.0]),
                         "n": {"integerValue": "6"}}
    docs["other/x/vs/g1"] = {"v": vector([1.0, 0.1]), "n": {"integerValue": "1"}}
    docs["other/y/vs/g2"] = {"v": vector([-1.0, 0.1]), "n": {"integerValue": "2"}}
    for name, owner, components in (("a", "me", [1.0, 0.0]), ("b", "you", [0.9, 0.1]), ("c", "me", [0.0, 1.0])):
        docs[f"guarded/{name}"] = {"v": vector(components), "owner": {"stringValue": owner}}
        docs[f"limited/{name}"] = {"v": vector(components), "owner": {"stringValue": owner}}
    return docs


def search(measure="EUCLIDEAN", query=(1.0, 0.0), limit=10, field="v", **extra) -> dict:
    """A findNearest message."""
    message = {"vectorField": {"fieldPath": field}, "queryVector": vector(query), "distanceMeasure": measure, "limit": limit}
    message.update(extra)
    return message


def cases(seed: int) -> list[dict]:
    """Every case: {"kind": "query"|"aggregate"|"write", ...}."""
    rng = random.Random(seed)
    result: list[dict] = []

    def query(find_nearest: dict, collection: str = "vs", owner: bool = True, **structured) -> None:
        body = {"from": [{"collectionId": collection, **({"allDescendants": True} if structured.pop("group", False) else {})}],
                "findNearest": find_nearest, **structured}
        result.append({"kind": "query", "structuredQuery": body, "owner": owner})

    queries = [(1.0, 0.0), (0.0, 1.0), (1.0, 1.0), (-1.0, 0.5), (0.3, -2.0), (2.0, 2.0), (1.0, 0.0, 0.0), (-1.0, 2.0, 0.5)]
    for measure in MEASURES:
        for vec in queries:
            query(search(measure, vec, limit=rng.choice([1, 3, 5, 50]), distanceResultField="distance"))
            query(search(measure, vec, limit=1000))
        for limit in (1, 2, 7, 1000):
            query(search(measure, (0.5, 0.5), limit=limit, distanceResultField="d"))
        thresholds = {"EUCLIDEAN": [0.0, 0.5, 1.0, 2.5, -1.0], "COSINE": [0.0, 0.1, 0.5, 1.0, 2.0],
                      "DOT_PRODUCT": [-2.0, 0.0, 1.0, 3.5, 100.0]}[measure]
        for threshold in thresholds:
            query(search(measure, (1.0, 0.5), limit=50, distanceThreshold=threshold, distanceResultField="d"))
        # Pre-filters, tie-breaking orders, projections, result fields that shadow or name oddly.
        query(search(measure, (1.0, 1.0), limit=50, distanceResultField="d"),
              where={"fieldFilter": {"field": {"fieldPath": "tag"}, "op": "EQUAL", "value": {"stringValue": "green"}}})
        query(search(measure, (1.0, 1.0), limit=50, distanceResultField="d"),
              where={"fieldFilter": {"field": {"fieldPath": "n"}, "op": "GREATER_THAN_OR_EQUAL", "value": {"integerValue": "4"}}})
        query(search(measure, (1.0, 1.0), limit=50, distanceResultField="d"),
              where={"compositeFilter": {"op": "OR", "filters": [
                  {"fieldFilter": {"field": {"fieldPath": "tag"}, "op": "EQUAL", "value": {"stringValue": "red"}}},
                  {"fieldFilter": {"field": {"fieldPath": "n"}, "op": "IN", "value": {"arrayValue": {"values": [{"integerValue": "1"}, {"integerValue": "5"}]}}}}]}})
        for direction in ("ASCENDING", "DESCENDING"):
            query(search(measure, (1.0, 1.0), limit=50, distanceResultField="d"),
                  orderBy=[{"field": {"fieldPath": "n"}, "direction": direction}])
            query(search(measure, (1.0, 1.0), limit=50, distanceResultField="d"),
                  orderBy=[{"field": {"fieldPath": "__name__"}, "direction": direction}])
        query(search(measure, (1.0, 1.0), limit=5, distanceResultField="d"), select={"fields": [{"fieldPath": "n"}]})
        query(search(measure, (1.0, 1.0), limit=5, distanceResultField="d"), select={"fields": [{"fieldPath": "d"}]})
        query(search(measure, (1.0, 1.0), limit=5, distanceResultField="dist"))
        query(search(measure, (1.0, 1.0), limit=5, distanceResultField="v"))
        query(search(measure, (1.0, 1.0), limit=5, distanceResultField="a.b"))
        query(search(measure, (0.5, 0.5), limit=5, field="m.v", distanceResultField="d"))
        query(search(measure, (1.0, 0.0), limit=10, distanceResultField="d"), group=True)
        query(search(measure, (0.0, 0.0), limit=50, distanceResultField="d"))
        query(search(measure, (float("nan"), 1.0), limit=5, distanceResultField="d"))
        query(search(measure, (float("inf"), 0.0), limit=5, distanceResultField="d"))
        query(search(measure, (1.0, 0.0), limit=5), collection="guarded", owner=False)
        query(search(measure, (1.0, 0.0), limit=5), collection="guarded", owner=False,
              where={"fieldFilter": {"field": {"fieldPath": "owner"}, "op": "EQUAL", "value": {"stringValue": "me"}}})
        query(search(measure, (1.0, 0.0), limit=5), collection="limited", owner=False)
        query(search(measure, (1.0, 0.0), limit=5, field="nowhere"))
        query(search(measure, (1.0, 0.0), limit=5, field="__name__"))
        result.append({"kind": "aggregate", "structuredAggregationQuery": {
            "structuredQuery": {"from": [{"collectionId": "vs"}], "findNearest": search(measure, (1.0, 0.0), limit=7)},
            "aggregations": [{"alias": "c", "count": {}}, {"alias": "s", "sum": {"field": {"fieldPath": "n"}}}]}})
    # Invalid searches: each fails with the official emulator's message.
    plain = search()
    for limit in (0, -1, 1001):
        query(dict(plain, limit=limit))
    query({key: value for key, value in plain.items() if key != "limit"})
    query({key: value for key, value in plain.items() if key != "distanceMeasure"})
    query(dict(plain, distanceMeasure="DISTANCE_MEASURE_UNSPECIFIED"))
    query({key: value for key, value in plain.items() if key != "queryVector"})
    query({key: value for key, value in plain.items() if key != "vectorField"})
    query(dict(plain, queryVector={"arrayValue": {"values": [{"doubleValue": 1.0}]}}))
    query(dict(plain, queryVector={"doubleValue": 1.0}))
    query(dict(plain, queryVector=vector([])))
    query(dict(plain, queryVector=vector([1, 2], kind="integerValue")))
    query(dict(plain, queryVector=vector([1.0] * 2049)))
    query(dict(plain, queryVector=vector([1.0] * 2048)))
    query(dict(plain, distanceThreshold="NaN"))
    query(dict(plain, distanceThreshold="Infinity"))
    query(plain, limit=3)
    query(plain, offset=1)
    query(plain, orderBy=[{"field": {"fieldPath": "n"}}], startAt={"values": [{"integerValue": "1"}]})
    query(plain, orderBy=[{"field": {"fieldPath": "n"}}], endAt={"values": [{"integerValue": "1"}]})
    query(plain, startAt={"values": [{"integerValue": "1"}]})
    query(dict(plain, limit=0, distanceMeasure="DISTANCE_MEASURE_UNSPECIFIED"))
    query({"vectorField": {"fieldPath": "v"}, "limit": 5})
    # Writes of malformed vectors, and of the largest allowed.
    fields = lambda value: {"v": value}
    bad = {
        "integers": vector([1, 2], kind="integerValue"),
        "mixed": {"mapValue": {"fields": {"__type__": {"stringValue": "__vector__"}, "value": {"arrayValue": {"values": [
            {"doubleValue": 1.0}, {"integerValue": "2"}]}}}}},
        "empty": vector([]),
        "nan": vector([1.0, float("nan")]),
        "too-long": vector([0.5] * 2049),
        "longest": vector([0.5] * 2048),
        "extra": {"mapValue": {"fields": {"__type__": {"stringValue": "__vector__"}, "value": {"arrayValue": {"values": [
            {"doubleValue": 1.0}]}}, "x": {"integerValue": "1"}}}},
        "scalar": {"mapValue": {"fields": {"__type__": {"stringValue": "__vector__"}, "value": {"doubleValue": 1.0}}}},
        "missing": {"mapValue": {"fields": {"__type__": {"stringValue": "__vector__"}}}},
        "in-array": {"arrayValue": {"values": [vector([1.0, float("nan")])]}},
        "valid-in-array": {"arrayValue": {"values": [vector([1.0, 2.0])]}},
        "in-map-in-array": {"arrayValue": {"values": [{"mapValue": {"fields": {"inner": vector([1.0])}}}]}},
        "in-map": {"mapValue": {"fields": {"inner": vector([])}}},
        "infinite": vector([float("-inf"), 1.0]),
    }
    for name, value in bad.items():
        result.append({"kind": "write", "document": f"writes/{name}", "fields": fields(value)})
    return result


def seed_documents(base: str, project: str, seed: int) -> None:
    """Writes the corpus's documents into `project` and loads its rules."""
    http = requests.Session()
    root = f"{base}/v1/projects/{project}/databases/(default)/documents"
    for path, fields in documents(seed).items():
        response = http.patch(f"{root}/{path}", json={"fields": fields}, headers=OWNER, timeout=30)
        assert response.status_code == 200, (path, response.text[:500])
    body = {"rules": {"files": [{"name": "firestore.rules", "content": RULES}]}}
    response = http.put(f"{base}/emulator/v1/projects/{project}:securityRules", json=body, timeout=60)
    assert response.status_code == 200, response.text[:500]


def error(response: requests.Response) -> dict:
    """A failure as status and message."""
    try:
        detail = response.json()
        if isinstance(detail, list):
            detail = detail[0]
        message = detail["error"]["message"]
    except (ValueError, KeyError, IndexError, TypeError):
        message = response.text
    return {"status": response.status_code, "message": message}


def ask(base: str, project: str, case: dict, http: requests.Session | None = None) -> dict:
    """Hearth's or the official emulator's answer to `case`, normalized: `{"results": [[id path, fields],
    ...]}` for a query, `{"aggregates": fields}`, `{"written": true}`, or `{"status", "message"}`."""
    http = http or requests.Session()
    root = f"{base}/v1/projects/{project}/databases/(default)/documents"
    headers = OWNER if case.get("owner", True) else {}
    if case["kind"] == "write":
        response = http.patch(f"{root}/{case['document']}", json={"fields": case["fields"]}, headers=headers, timeout=30)
        return {"written": True} if response.status_code == 200 else error(response)
    if case["kind"] == "aggregate":
        response = http.post(f"{root}:runAggregationQuery", json={"structuredAggregationQuery": case["structuredAggregationQuery"]},
                             headers=headers, timeout=30)
        if response.status_code != 200:
            return error(response)
        return {"aggregates": next(item["result"]["aggregateFields"] for item in response.json() if "result" in item)}
    response = http.post(f"{root}:runQuery", json={"structuredQuery": case["structuredQuery"]}, headers=headers, timeout=30)
    if response.status_code != 200:
        return error(response)
    marker = "/documents/"
    results = []
    for item in response.json():
        if "document" in item:
            document = item["document"]
            fields = {name: value for name, value in document.get("fields", {}).items() if name not in ("v", "m")}
            results.append([document["name"].split(marker, 1)[1], fields])
    return {"results": results}


def record(seed: int) -> None:
    sys.path.insert(0, str(HERE.parent))
    from official_firestore import Emulator  # noqa: E402
    from record import official_version  # noqa: E402

    corpus = cases(seed)
    started = time.time()
    with Emulator() as emulator:
        project = "demo-vector-search"
        seed_documents(emulator.base, project, seed)
        http = requests.Session()
        answers = [ask(emulator.base, project, case, http) for case in corpus]
    CORPUS.write_text(json.dumps({
        "_source": f"Google's Cloud Firestore emulator {official_version()} (gcloud SDK component "
                   f"cloud-firestore-emulator), asked on {datetime.date.today().isoformat()} by "
                   f"vector_search.py record with seed {seed}",
        "seed": seed,
        "cases": [{**case, "answer": answer} for case, answer in zip(corpus, answers)],
    }, indent=0, ensure_ascii=False) + "\n")
    kinds: dict = {}
    for answer in answers:
        kind = next(iter(answer)) if "status" not in answer else f"error {answer['status']}"
        kinds[kind] = kinds.get(kind, 0) + 1
    print(f"{len(corpus)} cases recorded to {CORPUS} in {time.time() - started:.0f} s: {kinds}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["record"])
    parser.add_argument("--seed", type=int, default=20)
    arguments = parser.parse_args()
    record(arguments.seed)
