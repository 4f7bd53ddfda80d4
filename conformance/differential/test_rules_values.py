"""Hearth's rules engine evaluates every probe of the rules-values corpus (corpus/rules_values.json, recorded
from Google's official Firestore emulator by record_rules_values.py; rules_values.py explains the probes) to
the same outcome: true, false, an evaluation error, or a ruleset refused.

A ratchet while the engines still disagree: corpus/rules_values_open.json lists the probes Hearth does not
yet answer as the official emulator does (issue 20 is to empty it). A probe that disagrees and is not
listed fails, and so does a listed one that now agrees (take it off the list). Each batch test prints its
agreement.
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import rules_values  # noqa: E402

CORPUS = Path(__file__).parent / "corpus"
RECORDED = json.loads((CORPUS / "rules_values.json").read_text())
OPEN = {entry["condition"] for entry in json.loads((CORPUS / "rules_values_open.json").read_text())["open"]}
CASES = [rules_values.Probe(index, case["condition"]) for index, case in enumerate(RECORDED["cases"])]
EXPECTED = {index: case for index, case in enumerate(RECORDED["cases"])}
LOADABLE = [probe for probe in CASES if EXPECTED[probe.id]["outcome"] != "invalid"]
REFUSED = [probe for probe in CASES if EXPECTED[probe.id]["outcome"] == "invalid"]


def compare(answers: dict[int, str]) -> tuple[list[str], list[str]]:
    """The probes that disagree and are not listed as open, and the listed ones that now agree."""
    new, fixed = [], []
    for probe_id, answer in answers.items():
        expected = EXPECTED[probe_id]["outcome"]
        condition = EXPECTED[probe_id]["condition"]
        if answer != expected and condition not in OPEN:
            new.append(f"{condition}: official {expected}, hearth {answer}")
        if answer == expected and condition in OPEN:
            fixed.append(condition)
    return new, fixed


@pytest.mark.parametrize("batch", rules_values.batches(LOADABLE), ids=lambda batch: f"probes {batch[0].id}-{batch[-1].id}")
def test_hearth_evaluates_each_probe_as_the_official_emulator(suite, batch):
    project = f"demo-values-{uuid.uuid4().hex[:8]}"
    loaded = rules_values.load(suite.firestore_url, project, rules_values.ruleset(batch))
    assert loaded.status_code == 200, loaded.text[:2000]
    answers = rules_values.outcomes(suite.firestore_url, project, batch)
    agreed = sum(answer == EXPECTED[probe_id]["outcome"] for probe_id, answer in answers.items())
    print(f"{agreed} of {len(batch)} probes agree")
    new, fixed = compare(answers)
    assert not new, f"{len(new)} probes disagree with the official emulator:\n" + "\n".join(new[:50])
    assert not fixed, "now agree, take them off rules_values_open.json:\n" + "\n".join(fixed[:50])


@pytest.mark.parametrize("probe", REFUSED, ids=lambda probe: probe.condition[:60])
def test_hearth_refuses_the_rulesets_the_official_emulator_refuses(suite, probe):
    project = f"demo-values-{uuid.uuid4().hex[:8]}"
    loaded = rules_values.load(suite.firestore_url, project, rules_values.ruleset([probe]))
    if probe.condition in OPEN:
        assert loaded.status_code == 200, "now refused as the official emulator refuses: take it off the open list"
        pytest.xfail("listed in rules_values_open.json")
    assert loaded.status_code == EXPECTED[probe.id]["status"], loaded.text[:2000]
