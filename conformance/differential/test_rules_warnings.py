"""Loading rules gives the official compiler's static warnings, as Google's official Firestore emulator
gives them (corpus/rules_warnings.json, recorded by `rules_warnings.py record`): type mismatches, comparisons
that can never hold, unknown functions, wrong argument counts, each at the official line, column and offsets;
and rules the official emulator loads, Hearth loads."""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).parent))
import rules_warnings  # noqa: E402

CASES = json.loads(rules_warnings.CORPUS.read_text())["cases"]


def test_every_rules_file_gets_the_official_warnings(suite):
    http = requests.Session()
    disagreements = []
    for case in CASES:
        expected = {key: value for key, value in case.items() if key != "condition"}
        got = rules_warnings.answer(suite.firestore_url, f"demo-warnings-{uuid.uuid4().hex[:8]}", case["condition"], http)
        if got != expected:
            disagreements.append(f"{case['condition']}\n  official: {json.dumps(expected)}\n  hearth:   {json.dumps(got)}")
    print(f"{len(CASES) - len(disagreements)} of {len(CASES)} rules files agree")
    assert not disagreements, f"{len(disagreements)} disagree:\n" + "\n".join(disagreements[:30])
