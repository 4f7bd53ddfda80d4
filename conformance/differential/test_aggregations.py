"""Sums, averages and counts answered as Google's official Firestore emulator answers them: every case of
corpus/aggregations.json (recorded by `aggregations.py record`; aggregations.py explains the cases) over
REST, on documents whose numbers mix integers near the 64-bit limits, doubles, NaN and the infinities.
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

import pytest
import requests

sys.path.insert(0, str(Path(__file__).parent))
import aggregations  # noqa: E402

RECORDED = json.loads(aggregations.CORPUS.read_text())
CASES = RECORDED["cases"]


@pytest.fixture(scope="module")
def seeded(suite) -> str:
    """A fresh project holding the corpus's documents."""
    project = f"demo-aggregations-{uuid.uuid4().hex[:8]}"
    aggregations.seed_documents(suite.firestore_url, project, RECORDED["seed"])
    return project


def test_every_case_as_the_official_emulator(suite, seeded):
    http = requests.Session()
    disagreements = []
    for index, case in enumerate(CASES):
        # The official's order of adding doubles varies between its runs; where that changes the answer
        # (two edge cases), each answer it gave is recorded, and Hearth's (name order) must be one of them.
        answer = aggregations.ask(suite.firestore_url, seeded, case["request"], http)
        if answer not in case["answers"]:
            disagreements.append(f"case {index}: {json.dumps(case['request'])}\n  official {case['answers']}\n  hearth   {answer}")
    assert not disagreements, "\n".join(disagreements[:10])


def test_the_corpus_covers_overflow_nan_and_infinities():
    answers = [json.dumps(answer) for case in CASES for answer in case["answers"]]
    assert any('"NaN"' in answer for answer in answers)
    assert any('"Infinity"' in answer for answer in answers)
    assert any("e+18" in answer or "e+19" in answer for answer in answers)
    assert len(CASES) >= 70
