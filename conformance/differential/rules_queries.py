"""A corpus of list rules against query filters: "rules are not filters". A query is allowed only when the
rules hold for every document its filters admit, and the official engine proves that from the filters
(`resource.data.f > 18` allows `where f > 19` but not `where f > 17`, which admits 17.5).

Each probe is one rule, `allow list: if (condition);` on its own collection, and one query's filter on that
collection, run by an unauthenticated client: `allowed` (200), `denied` (403), or the status of a query
refused for another reason. `record.py queries` asks Google's official emulator; test_rules_queries.py asks
Hearth and compares (differential.py has what they share).
"""

from __future__ import annotations

import json

import requests

from differential import Probe

# Rules over a number field `f`, a string field `s`, and the document id.
RULES = [
    "true",
    "resource.data.f > 18", "resource.data.f >= 18", "resource.data.f < 18", "resource.data.f <= 18",
    "resource.data.f == 18", "resource.data.f != 18", "resource.data.f in [18, 19]",
    "resource.data.f > 18 && resource.data.f < 30", "resource.data.f > 18 || resource.data.f < 5",
    "!(resource.data.f < 18)", "resource.data.f >= 18.5", "resource.data.f is int", "resource.data.f is number",
    "resource.data.g == 1", "resource.data.s >= 'm'", "resource.data.s == 'a'", "resource.data.s in ['a', 'b']",
    "resource.data.s != 'a'", "resource.data.f == 18 && resource.data.s == 'a'",
    "resource.data.f in [18, 19, 20]", "resource.data.f > 18 && resource.data.g == 1", "big(resource.data.f)",
    "resource.data.s.size() > 0", "resource.data.s.matches('[a-z]+')", "resource.data.f + 1 > 19",
    "resource.data.f == resource.data.f", "resource.data.f > 18 ? true : false", "resource.data.f > -5",
    "resource.data.s > ''", "'x' != resource.data.s", "18 < resource.data.f", "resource.data.f >= 18.0",
    "resource.data.t > timestamp.value(0)", "resource.data.t < timestamp.value(1700000000000)",
    "resource.data.f > 18 || resource.data.s == 'a'", "request.auth == null && resource.data.f > 18",
]

NUMBERS = [17, 17.5, 18, 18.5, 19, 29, 30, 31]
STRINGS = ["a", "b", "m", "n", "z"]
OPERATORS = ["EQUAL", "NOT_EQUAL", "LESS_THAN", "LESS_THAN_OR_EQUAL", "GREATER_THAN", "GREATER_THAN_OR_EQUAL"]


def value(v) -> dict:
    """A Firestore REST value."""
    if isinstance(v, str):
        return {"stringValue": v}
    if isinstance(v, float):
        return {"doubleValue": v}
    return {"integerValue": str(v)}


def field(name: str, op: str, v) -> dict:
    return {"fieldFilter": {"field": {"fieldPath": name}, "op": op, "value": value(v)}}


def array(name: str, op: str, values: list) -> dict:
    return {"fieldFilter": {"field": {"fieldPath": name}, "op": op,
                            "value": {"arrayValue": {"values": [value(v) for v in values]}}}}


def composite(op: str, *filters: dict) -> dict:
    return {"compositeFilter": {"op": op, "filters": list(filters)}}


def filters() -> list[dict | None]:
    """Every query filter the corpus asks about (`None`: no filter)."""
    out: list[dict | None] = [None]
    for op in OPERATORS:
        out += [field("f", op, v) for v in NUMBERS]
        out += [field("s", op, v) for v in STRINGS]
    for values in ([18, 19], [19, 20], [17, 18], [18.5, 19], [18]):
        out += [array("f", "IN", values), array("f", "NOT_IN", values)]
    for values in (["a"], ["a", "b"], ["m", "z"]):
        out += [array("s", "IN", values), array("s", "NOT_IN", values)]
    out += [{"fieldFilter": {"field": {"fieldPath": "t"}, "op": op, "value": {"timestampValue": "2020-01-01T00:00:00Z"}}}
            for op in ("GREATER_THAN", "LESS_THAN")]
    out += [field("f", "GREATER_THAN", 18.0), field("f", "GREATER_THAN_OR_EQUAL", 18.0)]
    out += [
        composite("AND", field("f", "GREATER_THAN", 18), field("f", "LESS_THAN", 30)),
        composite("AND", field("f", "GREATER_THAN_OR_EQUAL", 19), field("f", "LESS_THAN_OR_EQUAL", 29)),
        composite("AND", field("f", "GREATER_THAN", 17), field("f", "LESS_THAN", 30)),
        composite("AND", field("f", "EQUAL", 18), field("s", "EQUAL", "a")),
        composite("AND", field("f", "GREATER_THAN", 18), field("s", "EQUAL", "a")),
        composite("OR", field("f", "EQUAL", 18), field("f", "EQUAL", 19)),
        composite("OR", field("f", "GREATER_THAN", 18), field("f", "EQUAL", 18)),
        composite("OR", field("f", "GREATER_THAN", 20), field("f", "LESS_THAN", 3)),
        composite("OR", field("f", "EQUAL", 18), field("s", "EQUAL", "a")),
    ]
    return out


def probes(seed: int = 19) -> list[Probe]:
    """Every rule against every filter (the corpus is exhaustive; `seed` is unused)."""
    out: list[Probe] = []
    for rule in RULES:
        for where in filters():
            out.append(Probe(len(out), rule, {"where": where}))
    return out


def ruleset(batch: list[Probe]) -> str:
    """Rules that give each probe of `batch` its own collection `q<id>`, listable when its condition holds."""
    lines = ["rules_version = '2';", "service cloud.firestore {", "  function big(x) { return x > 18; }",
             "  match /databases/{database}/documents {"]
    for probe in batch:
        lines.append(f"    match /q{probe.id}/{{doc}} {{ allow list: if {probe.condition}; }}")
    lines += ["  }", "}", ""]
    return "\n".join(lines)


def ask(base: str, project: str, probe: Probe, http: requests.Session) -> str:
    """`allowed`, `denied`, or `status <code>` for another answer."""
    query: dict = {"from": [{"collectionId": f"q{probe.id}"}]}
    if probe.query["where"] is not None:
        query["where"] = probe.query["where"]
    response = http.post(f"{base}/v1/projects/{project}/databases/(default)/documents:runQuery",
                         data=json.dumps({"structuredQuery": query}), timeout=30)
    if response.status_code == 200:
        return "allowed"
    if response.status_code == 403:
        return "denied"
    return f"status {response.status_code}"
