"""A corpus of match forms: single and recursive wildcards (at the end, in the middle, alone), literals, nested
blocks and repeated names, with conditions over the bound variables (their values, types, path methods), each
asked as a get of documents at several depths.

Each probe is one pattern, one condition and one document path; its block is `match /m<id><pattern>`
(nested forms open a second block). A get by an unauthenticated client that the rules allow answers NOT_FOUND
(the documents do not exist), one they deny PERMISSION_DENIED: the outcome is `allowed` or `denied`; a ruleset
the emulator refuses makes it `invalid`.

`record.py matches` asks Google's official emulator; `test_rules_matches.py` asks Hearth and compares.
"""

from __future__ import annotations

import requests

from differential import Probe

# Patterns after `/m<id>`; `>` splits an outer and an inner (nested) block.
PATTERNS = [
    "/{a}", "/{a}/b/{c}", "/{a=**}", "/x/{a=**}", "/{a}/{c=**}", "/{a=**}/b/{c}", "/x", "/{a}>/b/{c}",
    "/{a}>/{c=**}", "/{a}/{a}",
]

CONDITIONS = [
    "true", "a == 'x'", "a is string", "a is path", "a.size() == 3", "string(a) == 'x/b/q'", "a[0] == 'x'",
    "c == 'q'", "c is path", "a == 'x' && c == 'q'",
]

# Document paths after `m<id>/`.
PATHS = ["x", "x/b/q", "y/b/q", "x/b/q/d/e"]


def probes(seed: int = 19) -> list[Probe]:
    """Every pattern with every condition and path (the seed is unused: the corpus is exhaustive)."""
    result: list[Probe] = []
    for pattern in PATTERNS:
        for condition in CONDITIONS:
            for path in PATHS:
                result.append(Probe(len(result), condition, {"pattern": pattern, "path": path}))
    return result


def ruleset(batch: list[Probe]) -> str:
    lines = ["rules_version = '2';", "service cloud.firestore {", "  match /databases/{database}/documents {"]
    for probe in batch:
        outer, _, inner = probe.query["pattern"].partition(">")
        if inner:
            lines.append(f"    match /m{probe.id}{outer} {{ match {inner} {{ allow get: if {probe.condition}; }} }}")
        else:
            lines.append(f"    match /m{probe.id}{outer} {{ allow get: if {probe.condition}; }}")
    lines += ["  }", "}", ""]
    return "\n".join(lines)


def ask(base: str, project: str, probe: Probe, http: requests.Session) -> str:
    """`allowed` (NOT_FOUND: the rules let the get through), `denied`, or `status <code>`."""
    response = http.get(
        f"{base}/v1/projects/{project}/databases/(default)/documents/m{probe.id}/{probe.query['path']}", timeout=30)
    if response.status_code == 404:
        return "allowed"
    if response.status_code == 403:
        return "denied"
    return f"status {response.status_code}"
