"""A corpus of write rules: conditions over `request.resource`, `resource`, `diff()`, `request.method`,
`request.auth`, server timestamps, functions with `let` bindings (evaluated lazily) and calls with the wrong
number of arguments, each asked against writes of several shapes: creates, whole updates, masked updates,
updates that add or remove fields, server-timestamp transforms and deletes.

Each probe is one condition and one write. The probe's collection `w<id>` has rules
`allow create, update, delete: if <condition>;`; for updates and deletes a document `{n: 1, s: 'a'}` is
written first as the owner (rules bypassed), then a signed-in user (uid `alice`, an unsigned token) makes the
write over REST: the outcome is `allowed` (200) or `denied` (403).

`record.py writes` asks Google's official emulator; `test_rules_writes.py` asks Hearth and compares.
"""

from __future__ import annotations

import json

import requests

from differential import Probe
from firestore_support import id_token

# Write conditions, as rules source.
CONDITIONS = [
    "true",
    "request.resource.data.n == 1",
    "request.resource.data.n == 2",
    "request.resource.data.n is int",
    "request.resource.data.n is float",
    "request.resource.data.n is number",
    "request.resource.data.keys().hasOnly(['n', 's'])",
    "request.resource.data.keys().hasAll(['n', 's'])",
    "request.resource.data.size() == 2",
    "request.resource.data.diff(resource.data).affectedKeys().hasOnly(['n'])",
    "request.resource.data.diff(resource.data).changedKeys().size() == 0",
    "request.resource.data.diff(resource.data).addedKeys().hasAny(['m'])",
    "request.resource.data.diff(resource.data).removedKeys().size() == 1",
    "request.resource.data.diff(resource.data).unchangedKeys().hasAll(['s'])",
    "resource.data.n < request.resource.data.n",
    "resource == null",
    "resource != null && resource.data.s == 'a'",
    "request.resource == null",
    "request.resource.data.s.size() <= 3",
    "request.resource.data.get('s', '') == 'a'",
    "request.resource.data.get(['m', 'x'], 0) == 1",
    "request.method == 'create'",
    "request.method == 'update'",
    "request.method == 'delete'",
    "request.resource.id == 'd'",
    "request.resource.__name__ == /databases/(default)/documents/$(request.path[3])/d",
    "request.resource.data.t == request.time",
    "request.resource.data.t is timestamp",
    "request.auth.uid == 'alice'",
    "request.auth.token.email_verified == false",
    "lazy()",
    "eager()",
    "twice(request.resource.data.n) == 2",
    "request.resource.data.keys().hasAll()",
    "request.resource.data.n + 1 == 2",
    "request.resource.data.m.x == 1",
    "'m' in request.resource.data",
    "!('s' in request.resource.data)",
    "request.writeFields.hasOnly(['n'])",
]

# The functions the conditions call, declared in every probe's block.
FUNCTIONS = [
    # `let`s are evaluated only when used: the missing field is never read.
    "function lazy() { let unused = resource.data.missing.deeper; return true; }",
    "function eager() { let used = resource.data.missing; return used == null || true; }",
    "function twice(x) { return x * 2; }",
]

SEEDED = {"n": 1, "s": "a"}

# Writes: (kind, fields, mask, transform).
WRITES = [
    ("create", {"n": 1}, None, None),
    ("create", {"n": 1, "s": "abc"}, None, None),
    ("create", {"n": 1.0}, None, None),
    ("create", {"n": 1, "m": {"x": 1}}, None, None),
    ("set", {"n": 2, "s": "a"}, None, None),
    ("set", {"n": 1}, None, None),
    ("set", {"n": 1, "s": "a", "m": {"x": 1}}, None, None),
    ("patch", {"n": 2}, ["n"], None),
    ("patch", {"s": "abcd"}, ["s"], None),
    ("patch", {}, ["s"], None),
    ("create", {"n": 1}, None, "t"),
    ("patch", {"n": 2}, ["n"], "t"),
    ("delete", None, None, None),
]


def probes(seed: int = 19) -> list[Probe]:
    """Every condition with every write (the seed is unused: the corpus is exhaustive)."""
    result: list[Probe] = []
    for condition in CONDITIONS:
        for kind, fields, mask, transform in WRITES:
            result.append(Probe(len(result), condition, {"kind": kind, "fields": fields, "mask": mask, "transform": transform}))
    return result


def ruleset(batch: list[Probe]) -> str:
    """Rules that give each probe of `batch` its own collection `w<id>`."""
    lines = ["rules_version = '2';", "service cloud.firestore {", "  match /databases/{database}/documents {"]
    lines += [f"    {function}" for function in FUNCTIONS]
    for probe in batch:
        lines.append(f"    match /w{probe.id}/{{doc}} {{ allow read: if true; allow create, update, delete: if {probe.condition}; }}")
    lines += ["  }", "}", ""]
    return "\n".join(lines)


def value(v) -> dict:
    if isinstance(v, bool):
        return {"booleanValue": v}
    if isinstance(v, int):
        return {"integerValue": str(v)}
    if isinstance(v, float):
        return {"doubleValue": v}
    if isinstance(v, str):
        return {"stringValue": v}
    return {"mapValue": {"fields": {key: value(inner) for key, inner in v.items()}}}


def ask(base: str, project: str, probe: Probe, http: requests.Session) -> str:
    """`allowed`, `denied`, or `status <code>` for another answer."""
    root = f"projects/{project}/databases/(default)/documents"
    name = f"{root}/w{probe.id}/d"
    write = probe.query
    if write["kind"] != "create":
        seeded = http.patch(f"{base}/v1/{name}", data=json.dumps({"fields": {k: value(v) for k, v in SEEDED.items()}}),
                            headers={"Authorization": "Bearer owner"}, timeout=30)
        assert seeded.status_code == 200, seeded.text
    entry: dict
    if write["kind"] == "delete":
        entry = {"delete": name}
    else:
        entry = {"update": {"name": name, "fields": {k: value(v) for k, v in write["fields"].items()}}}
        if write["mask"] is not None:
            entry["updateMask"] = {"fieldPaths": write["mask"]}
        if write["kind"] == "create":
            entry["currentDocument"] = {"exists": False}
        if write["transform"]:
            entry["updateTransforms"] = [{"fieldPath": write["transform"], "setToServerValue": "REQUEST_TIME"}]
    response = http.post(f"{base}/v1/{root}:commit", data=json.dumps({"writes": [entry]}),
                         headers={"Authorization": f"Bearer {id_token('alice', project, email_verified=False, firebase={'sign_in_provider': 'password'})}"}, timeout=30)
    if response.status_code == 200:
        return "allowed"
    if response.status_code == 403:
        return "denied"
    return f"status {response.status_code}"
