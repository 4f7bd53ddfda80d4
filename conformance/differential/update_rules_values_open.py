#!/usr/bin/env python3
"""Asks a fresh Hearth (the release binary, or --bin) every probe of corpus/rules_values.json and writes the
ones it answers unlike the official emulator to corpus/rules_values_open.json, the list
test_rules_values.py holds Hearth to until it is empty. Prints the agreement.

Usage: .venv/bin/python conformance/differential/update_rules_values_open.py [--bin PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent / "bench"))
import hearth_process  # noqa: E402
import rules_values  # noqa: E402

CORPUS = HERE / "corpus"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin")
    args = parser.parse_args()
    recorded = json.loads((CORPUS / "rules_values.json").read_text())["cases"]
    probes = [rules_values.Probe(index, case["condition"]) for index, case in enumerate(recorded)]
    open_conditions = []
    with hearth_process.running(hearth_process.binary(str(Path(args.bin).resolve()) if args.bin else None), "firestore", "Firestore", "demo-values") as (_, host):
        base = f"http://{host}"
        loadable = [probe for probe in probes if recorded[probe.id]["outcome"] != "invalid"]
        for batch in rules_values.batches(loadable):
            project = f"demo-values-{uuid.uuid4().hex[:8]}"
            loaded = rules_values.load(base, project, rules_values.ruleset(batch))
            if loaded.status_code != 200:
                sys.exit(f"hearth refused a ruleset the official emulator took: {loaded.text[:2000]}")
            for probe_id, answer in rules_values.outcomes(base, project, batch).items():
                if answer != recorded[probe_id]["outcome"]:
                    open_conditions.append((recorded[probe_id]["condition"], answer))
        for probe in probes:
            if recorded[probe.id]["outcome"] == "invalid":
                project = f"demo-values-{uuid.uuid4().hex[:8]}"
                status = rules_values.load(base, project, rules_values.ruleset([probe])).status_code
                if status != recorded[probe.id]["status"]:
                    open_conditions.append((probe.condition, "loaded" if status == 200 else f"status {status}"))
    order = {case["condition"]: index for index, case in enumerate(recorded)}
    open_conditions.sort(key=lambda entry: order[entry[0]])
    (CORPUS / "rules_values_open.json").write_text(json.dumps({
        "_about": "Probes of rules_values.json Hearth does not yet answer as the official emulator does "
                  "(issue 20 is to empty this list); written by update_rules_values_open.py.",
        "agreement": f"{len(probes) - len(open_conditions)} of {len(probes)}",
        "open": [{"condition": condition, "official": recorded[order[condition]]["outcome"], "hearth": answer}
                 for condition, answer in open_conditions],
    }, indent=0, ensure_ascii=False) + "\n")
    print(f"{len(probes) - len(open_conditions)} of {len(probes)} probes agree; {len(open_conditions)} open")


if __name__ == "__main__":
    main()
