#!/usr/bin/env python3
"""Asks a fresh Hearth (the release binary, or --bin) every recorded probe of a corpus and writes those it
answers unlike the official emulator to corpus/rules_<corpus>_open.json, the list the corpus's test holds
Hearth to until it is empty. Prints the agreement.

Usage: .venv/bin/python conformance/differential/update_open.py values|queries|writes|matches|matches_v1|auth [--bin PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent.parent / "bench"))
import differential  # noqa: E402
import hearth_process  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", choices=["values", "queries", "writes", "matches", "matches_v1", "auth"])
    parser.add_argument("--bin")
    args = parser.parse_args()
    corpus = differential.module(args.corpus)
    probes, expected = differential.recorded(args.corpus)
    differing: list[tuple[differential.Probe, str]] = []
    binary = hearth_process.binary(str(Path(args.bin).resolve()) if args.bin else None)
    with hearth_process.running(binary, "firestore", "Firestore", "demo-differential") as (_, host):
        base = f"http://{host}"
        loadable = [probe for probe in probes if expected[probe.id]["outcome"] != "invalid"]
        for batch in differential.batches(loadable):
            project = f"demo-differential-{uuid.uuid4().hex[:8]}"
            loaded = differential.load(base, project, corpus.ruleset(batch))
            if loaded.status_code != 200:
                sys.exit(f"hearth refused a ruleset the official emulator took: {loaded.text[:2000]}")
            for probe_id, answer in differential.outcomes(corpus, base, project, batch).items():
                if answer != expected[probe_id]["outcome"]:
                    differing.append((probes[probe_id], answer))
        for probe in probes:
            if expected[probe.id]["outcome"] == "invalid":
                project = f"demo-differential-{uuid.uuid4().hex[:8]}"
                status = differential.load(base, project, corpus.ruleset([probe])).status_code
                if status != expected[probe.id]["status"]:
                    differing.append((probe, "loaded" if status == 200 else f"status {status}"))
    differing.sort(key=lambda entry: entry[0].id)
    (differential.CORPUS / f"rules_{args.corpus}_open.json").write_text(json.dumps({
        "_about": f"Probes of rules_{args.corpus}.json Hearth does not yet answer as the official emulator "
                  "does (issue 20 is to empty this list); written by update_open.py.",
        "agreement": f"{len(probes) - len(differing)} of {len(probes)}",
        "open": [{"key": probe.key, "official": expected[probe.id]["outcome"], "hearth": answer}
                 for probe, answer in differing],
    }, indent=0, ensure_ascii=False) + "\n")
    print(f"{len(probes) - len(differing)} of {len(probes)} probes agree; {len(differing)} open")


if __name__ == "__main__":
    main()
