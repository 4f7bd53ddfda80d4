#!/usr/bin/env python3
"""The static-warnings corpus: rules files whose conditions mix types, call unknown functions or call with
the wrong number of arguments, and what Google's official Firestore emulator answers when they are loaded
(`PUT /emulator/v1/projects/{p}:securityRules`: its issues, each with severity, description, line, column
and offsets; or the refusal). test_rules_warnings.py loads the same files into Hearth and compares.

Usage: .venv/bin/python conformance/differential/rules_warnings.py record
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

import requests

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus" / "rules_warnings.json"

# Conditions, each alone in an allow statement (line 5, column 22 of the file).
CONDITIONS = [
    "[1] + [2] == [1, 2]", "{'a':1} + {'b':2} == {}", "1 + 'a' == 2", "1 - 'a' == 2", "[1] - [2] == []", "'a' - 'b' == ''",
    "'a' * 2 == 'aa'", "[1] * 2 == []", "1 / 'a' == 1", "'a' % 2 == 1", "true + 1 == 2", "null + 1 == 1", "-'a' == 'a'",
    "-[1] == []", "!1", "!'a'", "true && 1", "1 || false", "1 ? true : false", "'a' ? true : false", "1 < 2", "'a' < 1",
    "[1] < [2]", "{} < {}", "1 in [1]", "1 in 2", "1 in 'abc'", "'a' in {'a': 1}", "1 is int", "1", "'a'", "null", "[1]",
    "request.auth", "request.auth.uid", "'a'.size() == 1", "'a'.size(1) == 1", "'a'.size2() == 1", "[1].size() == 1",
    "[1].hasAll(1)", "[1].hasAll()", "{'a':1}.keys() == []", "{'a':1}.get('a', 0) == 1", "{'a':1}.get('a') == 1",
    "'a'.matches(1)", "'a'.split() == []", "get('x') == null", "get(/databases/x/documents/a/b) == null", "exists(1)",
    "exists()", "getAfter('a') == null", "string(1, 2) == ''", "int('1') == 1", "int() == 1", "math.abs('a') == 1",
    "math.abs(1, 2) == 1", "math.nope(1) == 1", "duration.value('a', 's') == duration.value(1, 's')",
    "timestamp.date(2020, 1) == null", "hashing.sha256(1) == b''", "request.time + 1 == request.time",
    "request.time + duration.value(1, 's') > request.time", "1 == 'a'", "[1][0] == 1", "'abc'[0] == 'a'", "1[0] == 1",
    "{'a': 1}['a'] == 1", "[1][1:2] == []", "1.5.round() == 2", "f(1) == 1", "request.resource.data.x + 1 == 2",
    "resource.data.keys().hasAny(['a'])", "foo.bar == 1", "(1 + 2) + [1] == []", "[1] + 1 == []", "b'ab' + b'c' == b'abc'",
    "latlng.value(1, 2) + 1 == 1", "request.path + 1 == 1", "'a' == 'a' && 'b'", "size([1]) == 1",
    "[1].toSet() + [2].toSet() == []", "[1].toSet().union([2]) == []",
    "f() == 1", "f(1, 2) == 1", "f(1) - 'a' == 1", "id - 1 == 1", "request.auth.uid - 1 == 1", "request.time - 'a' == 1",
    "request.method - 1 == 1", "resource.data - 1 == 1", "request.resource.data.size() - 'a' == 1", "'a' == null",
    "null == 1", "1 == 1.0", "[1] == {}", "request.time == 1", "id == 1", "int('1') == 'a'", "math.floor(1.5) == 'a'",
    "'a'.lower() == 1", "[1].toSet() == [1]", "'a'.size() == 'a'", "exists(/databases/x/documents/a/b) == 1",
    "get(/databases/x/documents/a/b).data == 1", "duration.value(1, 's') == 1", "timestamp.value(1) == 1",
    "hashing.sha256('a') == 'a'", "[1,2][0] == 'a'", "{'a': 1}.keys() == {}", "f(1) && 1", "true ? 1 : 'a'",
    "(true ? 1 : 2) == 'a'", "request.auth != null && request.auth.uid == 1", "'a'.matches('b') == 1",
    "1 is string && 1", "'x' in [1] && 1", "-1 == 'a'", "!true == 1", "1 < 'a' && 1", "g('a') == 1", "g(1) == 1",
    "h(1) == 'a'", "request.auth.uid == id && id.size() > 2", "id.matches('a.*') && id.size(1) > 0",
    "'ü' + [1] == 'x'", "request.resource.data.tags.hasAll(1)", "math.abs(-1) == 'a'", "1.5 == 1",
]


def ruleset(condition: str) -> str:
    """A file with `condition` on line 5, after the functions `f`, `g` and `h` (line 8 on)."""
    return (
        "rules_version = '2';\n"
        "service cloud.firestore {\n"
        "  match /databases/{db}/documents {\n"
        "    match /a/{id} {\n"
        f"      allow read: if {condition};\n"
        "    }\n"
        "    function f(x) { return x; }\n"
        "    function g(x) { return x - 1; }\n"
        "    function h(x) { let y = x + 1; return y * 2; }\n"
        "    match /b/{id} { allow read: if f(1) == 1 && g(2) == 1 && h(3) == 1; }\n"
        "  }\n"
        "}\n"
    )


def answer(base: str, project: str, condition: str, http: requests.Session) -> dict:
    """The issues the server gives for the file, or its refusal."""
    body = {"rules": {"files": [{"name": "firestore.rules", "content": ruleset(condition)}]}}
    response = http.put(f"{base}/emulator/v1/projects/{project}:securityRules", json=body, timeout=60)
    if response.status_code != 200:
        return {"status": response.status_code}
    issues = []
    for issue in response.json().get("issues", []):
        position = issue["sourcePosition"]
        issues.append([issue["severity"], issue["description"], position.get("line"), position.get("column"),
                       position.get("currentOffset"), position.get("endOffset")])
    return {"issues": sorted(issues, key=lambda issue: (issue[2] or 0, issue[3] or 0, issue[1]))}


def record() -> None:
    sys.path.insert(0, str(HERE.parent))
    from official_firestore import Emulator  # noqa: E402
    from record import official_version  # noqa: E402

    http = requests.Session()
    with Emulator() as emulator:
        cases = [{"condition": condition, **answer(emulator.base, f"demo-warnings-{index}", condition, http)}
                 for index, condition in enumerate(CONDITIONS)]
    CORPUS.write_text(json.dumps({
        "_source": f"Google's Cloud Firestore emulator {official_version()} (gcloud SDK component "
                   f"cloud-firestore-emulator), asked on {datetime.date.today().isoformat()} by rules_warnings.py record",
        "cases": cases,
    }, indent=0, ensure_ascii=False) + "\n")
    print(f"{len(cases)} rules files recorded to {CORPUS}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["record"])
    parser.parse_args()
    record()
