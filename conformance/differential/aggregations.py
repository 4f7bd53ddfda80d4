#!/usr/bin/env python3
"""The aggregation corpus: documents whose numbers mix integers near the 64-bit limits, doubles (0.1,
1e16, NaN, the infinities, values whose sum overflows), strings, nulls and missing fields, and
RunAggregationQuery cases (sum, avg and count, alone and together) under filters that indexes serve
(equality, range, `in`, array-contains, AND) and with none. Seeded and reproducible.

Sums and averages are where order matters for a naive total: Google's official emulator answers the exact
sum rounded once (the average: that sum over the count), whatever order the documents come in, and Hearth
does the same, whether it reads the documents or an index's entries.

`record` asks the official emulator every case, in several fresh runs, and stores its answers in
corpus/aggregations.json (only this needs Java); test_aggregations.py asks Hearth the same over REST and
checks its answer is one the official gave.

Usage: .venv/bin/python conformance/differential/aggregations.py record [--seed 22] [--rounds 10]
"""

from __future__ import annotations

import argparse
import datetime
import json
import random
import sys
import time
from pathlib import Path

import requests

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus" / "aggregations.json"
OWNER = {"Authorization": "Bearer owner"}


def integer(n: int) -> dict:
    return {"integerValue": str(n)}


def number(random_: random.Random) -> dict:
    roll = random_.random()
    if roll < 0.6:
        return integer(random_.randint(-50, 1000))
    if roll < 0.7:
        return integer(random_.choice([2**62, -(2**62), 2**63 - 1, -(2**63)]))
    if roll < 0.85:
        return {"doubleValue": random_.choice([0.1, 0.2, 0.3, 1.5, -2.25, 1e16, -1e16, 5e-324])}
    if roll < 0.93:
        return {"stringValue": "s"}
    return {"nullValue": None}


def documents(seed: int) -> dict[str, dict]:
    """Document path → fields: `mixed/*` with a group `g`, a small integer `m`, a number `n` of any kind
    (or none), sometimes `tags`; `edge/*` with doubles whose totals are NaN, infinite, overflow or a tie."""
    random_ = random.Random(seed)
    found: dict[str, dict] = {}
    for index in range(300):
        fields = {"g": integer(random_.randint(0, 9)), "m": integer(random_.randint(0, 100))}
        if random_.random() < 0.85:
            fields["n"] = number(random_)
        if random_.random() < 0.3:
            fields["tags"] = {"arrayValue": {"values": [{"stringValue": random_.choice("abc")}]}}
        found[f"mixed/d{index:04d}"] = fields
    edges = {
        "tie": [0.1, 0.2], "cancel": [1e308, 1e308, -1e308], "big": [1e308, 1e308], "nan": [1.0, float("nan")],
        "inf": [1.0, float("inf")], "infs": [float("inf"), float("-inf")], "tiny": [1e16, 1.0, -1e16, 1.0],
        "ints": [2**63 - 1, 2**63 - 1, -(2**63), 1.0], "third": [0.1, 0.2, 0.3],
        "back": [2**63 - 1, 2**63 - 1, -(2**63), -(2**63)], "over": [2**63 - 1, 1],
    }
    for kind, values in edges.items():
        for index, value in enumerate(values):
            encoded = {"doubleValue": value if value == value and abs(value) != float("inf") else str(value).replace("inf", "Infinity").replace("nan", "NaN")}
            if isinstance(value, int):
                encoded = integer(value)
            found[f"edge/{kind}{index}"] = {"kind": {"stringValue": kind}, "x": encoded}
    return found


def where(field: str, op: str, value: dict) -> dict:
    return {"fieldFilter": {"field": {"fieldPath": field}, "op": op, "value": value}}


def cases(seed: int) -> list[dict]:
    """The aggregation queries."""
    filters = [
        None, where("g", "EQUAL", integer(3)), where("g", "LESS_THAN", integer(5)),
        where("g", "GREATER_THAN_OR_EQUAL", integer(7)),
        where("g", "IN", {"arrayValue": {"values": [integer(1), integer(8)]}}), where("m", "GREATER_THAN", integer(50)),
        where("tags", "ARRAY_CONTAINS", {"stringValue": "a"}),
        {"compositeFilter": {"op": "AND", "filters": [where("g", "EQUAL", integer(2)), where("m", "LESS_THAN", integer(40))]}},
        where("n", "GREATER_THAN", integer(100)),
    ]
    sets = [["sum:n"], ["avg:n"], ["sum:m"], ["avg:m"], ["count", "sum:n"], ["count", "avg:n"], ["sum:m", "avg:m", "count"]]
    found = []
    for filter_ in filters:
        for names in sets:
            found.append(aggregate("mixed", filter_, names))
    for kind in ["tie", "cancel", "big", "nan", "inf", "infs", "tiny", "ints", "third", "back", "over"]:
        found.append(aggregate("edge", where("kind", "EQUAL", {"stringValue": kind}), ["sum:x", "avg:x", "count"]))
    return found


def aggregate(collection: str, filter_: dict | None, names: list[str]) -> dict:
    query: dict = {"from": [{"collectionId": collection}]}
    if filter_:
        query["where"] = filter_
    aggregations = []
    for index, name in enumerate(names):
        kind, _, field = name.partition(":")
        aggregations.append({"alias": f"a{index}", kind: {"field": {"fieldPath": field}} if field else {}})
    return {"structuredAggregationQuery": {"structuredQuery": query, "aggregations": aggregations}}


def seed_documents(base: str, project: str, seed: int) -> None:
    """Writes the corpus's documents into `project`."""
    http = requests.Session()
    root = f"{base}/v1/projects/{project}/databases/(default)/documents"
    writes = [{"update": {"name": f"projects/{project}/databases/(default)/documents/{path}", "fields": fields}}
              for path, fields in documents(seed).items()]
    for start in range(0, len(writes), 200):
        response = http.post(f"{root}:commit", json={"writes": writes[start:start + 200]}, headers=OWNER, timeout=60)
        assert response.status_code == 200, response.text[:500]


def ask(base: str, project: str, case: dict, http: requests.Session) -> dict:
    """The aggregate fields answered to `case`, or `{"status", "message"}`."""
    root = f"{base}/v1/projects/{project}/databases/(default)/documents"
    response = http.post(f"{root}:runAggregationQuery", json=case, headers=OWNER, timeout=60)
    if response.status_code != 200:
        return {"status": response.status_code, "message": response.text[:500]}
    return next(item["result"]["aggregateFields"] for item in response.json() if "result" in item)


def record(seed: int, rounds: int) -> None:
    """Asks `rounds` fresh official emulators every case. Where the order it adds doubles in matters (1e16
    + 1 - 1e16 + 1; 1e308 + 1e308 - 1e308), that order is not the same from one run to the next, so each
    case keeps every distinct answer seen."""
    sys.path.insert(0, str(HERE.parent))
    from official_firestore import Emulator  # noqa: E402
    from record import official_version  # noqa: E402

    corpus = cases(seed)
    started = time.time()
    answers: list[list[dict]] = [[] for _ in corpus]
    for _ in range(rounds):
        with Emulator() as emulator:
            project = "demo-aggregations"
            seed_documents(emulator.base, project, seed)
            http = requests.Session()
            for seen, case in zip(answers, corpus):
                answer = ask(emulator.base, project, case, http)
                if answer not in seen:
                    seen.append(answer)
    CORPUS.write_text(json.dumps({
        "_source": f"Google's Cloud Firestore emulator {official_version()} (gcloud SDK component "
                   f"cloud-firestore-emulator), asked {rounds} times on {datetime.date.today().isoformat()} by "
                   f"aggregations.py record with seed {seed}",
        "seed": seed,
        "cases": [{"request": case, "answers": seen} for case, seen in zip(corpus, answers)],
    }, indent=0) + "\n")
    varying = sum(len(seen) > 1 for seen in answers)
    print(f"{len(corpus)} cases recorded to {CORPUS} in {time.time() - started:.0f} s; {varying} answered differently across runs")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["record"])
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--rounds", type=int, default=10)
    arguments = parser.parse_args()
    record(arguments.seed, arguments.rounds)
