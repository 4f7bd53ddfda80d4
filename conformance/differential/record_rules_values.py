#!/usr/bin/env python3
"""Records what Google's official Firestore emulator says each probe of the rules-values corpus evaluates to
(rules_values.py explains the probes), into corpus/rules_values.json; test_rules_values.py asks Hearth the
same and compares. Only this recorder needs Java.

A batch whose ruleset the official emulator refuses is split until the refused probes stand alone; those are
recorded as `invalid` with the emulator's message.

Usage: .venv/bin/python conformance/differential/record_rules_values.py [--seed 19]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
import rules_values  # noqa: E402
from official_firestore import Emulator  # noqa: E402

OUT = os.path.join(HERE, "corpus", "rules_values.json")
VERSION_FILE = "/usr/lib/google-cloud-sdk/.install/cloud-firestore-emulator.snapshot.json"


def official_version() -> str:
    with open(VERSION_FILE) as file:
        for component in json.load(file)["components"]:
            if component["id"] == "cloud-firestore-emulator":
                return component["version"]["version_string"]
    return "unknown"


def record(base: str, batch: list, counter: list, results: dict) -> None:
    counter[0] += 1
    project = f"demo-values-{counter[0]}"
    response = rules_values.load(base, project, rules_values.ruleset(batch))
    if response.status_code == 200:
        for probe_id, answer in rules_values.outcomes(base, project, batch).items():
            results[probe_id] = {"outcome": answer}
        return
    if len(batch) == 1:
        message = response.json().get("error", {}).get("message", response.text)
        results[batch[0].id] = {"outcome": "invalid", "status": response.status_code, "message": message}
        return
    middle = len(batch) // 2
    record(base, batch[:middle], counter, results)
    record(base, batch[middle:], counter, results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=19)
    args = parser.parse_args()
    corpus = rules_values.probes(args.seed)
    results: dict = {}
    started = time.time()
    with Emulator() as emulator:
        counter = [0]
        for index, batch in enumerate(rules_values.batches(corpus)):
            record(emulator.base, batch, counter, results)
            print(f"batch {index + 1}: {len(results)} of {len(corpus)} probes, {time.time() - started:.0f} s", flush=True)
    cases = [{"condition": probe.condition, **results[probe.id]} for probe in corpus]
    with open(OUT, "w") as file:
        json.dump({
            "_source": f"Google's Cloud Firestore emulator {official_version()} (gcloud SDK component "
                       f"cloud-firestore-emulator), asked on {datetime.date.today().isoformat()} by "
                       f"record_rules_values.py with seed {args.seed}",
            "cases": cases,
        }, file, indent=0, ensure_ascii=False)
        file.write("\n")
    counts: dict = {}
    for case in cases:
        counts[case["outcome"]] = counts.get(case["outcome"], 0) + 1
    print(f"{len(cases)} probes recorded to {OUT}: {counts}")


if __name__ == "__main__":
    main()
