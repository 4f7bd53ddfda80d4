#!/usr/bin/env python3
"""Converts goldibex/targaryen's rules-parser fixtures (test/spec/lib/parser/fixtures.json, recorded by its
`targaryen-specs` tool against the live Realtime Database) into conformance/fixtures/database/targaryen_rules.json,
which test_database_targaryen.py replays against Hearth: each case is one rule expression with the auth
variable, the data and the wildcard values it was evaluated with, and what the live service said — refused
when the rules were deployed, failed at run time (denied), or evaluated to true or false.

Usage: .venv/bin/python conformance/recorders/convert_targaryen_fixtures.py PATH/TO/fixtures.json COMMIT
(targaryen is ISC-licensed: its copyright notice travels with the converted data.)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "database" / "targaryen_rules.json"
NOTICE = ("Copyright (c) 2014-2016 Harry Schmidt <me@goldibex.com>. Permission to use, copy, modify, and/or "
          "distribute this software for any purpose with or without fee is hereby granted, provided that the above "
          "copyright notice and this permission notice appear in all copies. (ISC license of goldibex/targaryen)")


def outcome(case: dict) -> str:
    if not case["isValid"]:
        return "invalid"
    if case.get("failAtRuntime"):
        return "error"
    return "true" if case["evaluateTo"] else "false"


def main() -> None:
    source, commit = Path(sys.argv[1]), sys.argv[2]
    fixtures = json.loads(source.read_text())
    cases = []
    for case in fixtures["tests"]:
        converted = {"rule": case["rule"], "auth": fixtures["users"][case["user"]], "expected": outcome(case)}
        if "data" in case:
            converted["data"] = case["data"]
        if case.get("wildchildren"):
            converted["wildcards"] = case["wildchildren"]
        if case.get("query"):
            converted["query"] = case["query"]
        cases.append(converted)
    OUT.write_text(json.dumps({
        "_source": f"goldibex/targaryen@{commit} test/spec/lib/parser/fixtures.json, recorded against the live "
                   "Firebase Realtime Database by its targaryen-specs tool",
        "_license": NOTICE,
        "cases": cases,
    }, indent=1, ensure_ascii=False) + "\n")
    counts: dict = {}
    for case in cases:
        counts[case["expected"]] = counts.get(case["expected"], 0) + 1
    print(f"{len(cases)} cases to {OUT}: {counts}")


if __name__ == "__main__":
    main()
