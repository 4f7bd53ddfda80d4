"""The two tests every differential corpus runs against Hearth (the `suite` fixture's): each loadable batch
answered as recorded, and each ruleset the official emulator refused refused too (no such test when it refused
none); both hold Hearth to the corpus's open list (see differential.py)."""

from __future__ import annotations

import uuid

import pytest

import differential


def tests(name: str, probes: list[differential.Probe], expected: dict[int, dict]):
    """The batch test and the refusal test of corpus `name`, for a test module to bind."""
    corpus = differential.module(name)
    open_set = differential.open_keys(name)
    by_id = {probe.id: probe for probe in probes}
    loadable = [probe for probe in probes if expected[probe.id]["outcome"] != "invalid"]
    refused = [probe for probe in probes if expected[probe.id]["outcome"] == "invalid"]

    @pytest.mark.parametrize("batch", differential.batches(loadable), ids=lambda batch: f"probes {batch[0].id}-{batch[-1].id}")
    def answers(suite, batch):
        project = f"demo-differential-{uuid.uuid4().hex[:8]}"
        loaded = differential.load(suite.firestore_url, project, corpus.ruleset(batch))
        assert loaded.status_code == 200, loaded.text[:2000]
        answers = differential.outcomes(corpus, suite.firestore_url, project, batch)
        agreed = sum(answer == expected[probe_id]["outcome"] for probe_id, answer in answers.items())
        print(f"{agreed} of {len(batch)} probes agree")
        new, fixed = differential.compare(by_id, expected, answers, open_set)
        assert not new, f"{len(new)} probes disagree with the official emulator:\n" + "\n".join(new[:50])
        assert not fixed, f"now agree, take them off rules_{name}_open.json:\n" + "\n".join(fixed[:50])

    @pytest.mark.parametrize("probe", refused, ids=lambda probe: probe.key[:60])
    def refusals(suite, probe):
        project = f"demo-differential-{uuid.uuid4().hex[:8]}"
        loaded = differential.load(suite.firestore_url, project, corpus.ruleset([probe]))
        if probe.key in open_set:
            assert loaded.status_code == 200, f"now refused as the official emulator refuses: take it off rules_{name}_open.json"
            pytest.xfail(f"listed in rules_{name}_open.json")
        assert loaded.status_code == expected[probe.id]["status"], loaded.text[:2000]

    # A corpus whose rulesets the official emulator all loaded has no refusal test (None is not collected).
    return answers, (refusals if refused else None)
