"""The Realtime Database's rules decide as the live service decided goldibex/targaryen's recorded cases
(conformance/fixtures/database/targaryen_rules.json, converted by recorders/convert_targaryen_fixtures.py):
each rule expression, with its auth variable (set through the admin's `auth_variable_override`), root data,
wildcard values and query (REST query parameters), is a `.read` rule; the live service refused it when deployed (Hearth's rules PUT is a
400), failed evaluating it (the read is denied), or evaluated it to true (allowed) or false (denied).

The Realtime Database has no official emulator here, so these recordings are its differential oracle.
"""

from __future__ import annotations

import json
import urllib.parse
import uuid
from pathlib import Path

import requests

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "database" / "targaryen_rules.json"
CASES = json.loads(FIXTURES.read_text())["cases"]
ADMIN = {"Authorization": "Bearer owner"}


def ask(suite, case: dict, http: requests.Session) -> str:
    namespace = "targaryen-" + uuid.uuid4().hex[:10]
    base = f"http://{suite.database_host}"
    wildcards = case.get("wildcards", {})
    rules: dict = {".read": case["rule"]}
    path = ""
    for name, value in wildcards.items():
        rules = {name: rules}
        path = f"{path}/{value}"
    if "data" in case:
        written = http.put(f"{base}/.json?ns={namespace}", data=json.dumps(case["data"]), headers=ADMIN, timeout=10)
        assert written.status_code == 200, written.text
    loaded = http.put(f"{base}/.settings/rules.json?ns={namespace}", data=json.dumps({"rules": rules}), headers=ADMIN,
                      timeout=10)
    if loaded.status_code == 400:
        return "invalid"
    assert loaded.status_code == 200, loaded.text
    parameters = {"ns": namespace, "auth_variable_override": json.dumps(case["auth"])}
    query = case.get("query", {})
    orders = {"orderByKey": "$key", "orderByValue": "$value", "orderByPriority": "$priority"}
    for name, value in query.items():
        if name in orders:
            parameters["orderBy"] = json.dumps(orders[name])
        elif name == "orderByChild":
            parameters["orderBy"] = json.dumps(value)
        else:
            parameters[name] = json.dumps(value)
    read = http.get(f"{base}{path}/.json?{urllib.parse.urlencode(parameters)}", headers=ADMIN, timeout=10)
    assert read.status_code in (200, 401), read.text
    return "true" if read.status_code == 200 else "denied"


def test_every_recorded_rule_decides_as_the_live_service(suite):
    http = requests.Session()
    disagreements = []
    for case in CASES:
        expected = case["expected"]
        got = ask(suite, case, http)
        # A rule that fails at run time and one that evaluates to false both deny the read.
        agrees = got == expected or (got == "denied" and expected in ("false", "error"))
        if not agrees:
            disagreements.append(f"{case['rule']!r} (auth {case['auth']}, data {case.get('data')}, "
                                 f"wildcards {case.get('wildcards')}): live {expected}, hearth {got}")
    print(f"{len(CASES) - len(disagreements)} of {len(CASES)} recorded cases agree")
    assert not disagreements, f"{len(disagreements)} disagree:\n" + "\n".join(disagreements)
