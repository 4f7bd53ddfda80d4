#!/usr/bin/env python3
"""Records what Google's official Firestore emulator answers to every probe of a corpus (`values`: rules
expressions, rules_values.py; `queries`: list rules against query filters, rules_queries.py; `writes`: write
rules against writes of every shape, rules_writes.py; `matches`, `matches_v1`: match forms under rules versions 2 and 1, rules_matches.py; `auth`: request.auth from ID tokens, rules_auth.py) into
corpus/rules_<corpus>.json; the corpus's test asks Hearth the same and compares. Only this needs Java.

A batch whose ruleset the official emulator refuses is split until the refused probes stand alone; those are
recorded as `invalid` with the emulator's message.

Usage: .venv/bin/python conformance/differential/record.py values|queries|writes|matches|matches_v1|auth [--seed 19]
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
import differential  # noqa: E402
from official_firestore import Emulator  # noqa: E402

VERSION_FILE = Path("/usr/lib/google-cloud-sdk/.install/cloud-firestore-emulator.snapshot.json")


def official_version() -> str:
    for component in json.loads(VERSION_FILE.read_text())["components"]:
        if component["id"] == "cloud-firestore-emulator":
            return component["version"]["version_string"]
    return "unknown"


def record(corpus, base: str, batch: list, counter: list, results: dict) -> None:
    counter[0] += 1
    project = f"demo-differential-{counter[0]}"
    response = differential.load(base, project, corpus.ruleset(batch))
    if response.status_code == 200:
        for probe_id, answer in differential.outcomes(corpus, base, project, batch).items():
            results[probe_id] = {"outcome": answer}
        return
    if len(batch) == 1:
        message = response.json().get("error", {}).get("message", response.text)
        results[batch[0].id] = {"outcome": "invalid", "status": response.status_code, "message": message}
        return
    middle = len(batch) // 2
    record(corpus, base, batch[:middle], counter, results)
    record(corpus, base, batch[middle:], counter, results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", choices=["values", "queries", "writes", "matches", "matches_v1", "auth"])
    parser.add_argument("--seed", type=int, default=19)
    args = parser.parse_args()
    corpus = differential.module(args.corpus)
    probes = corpus.probes(args.seed)
    results: dict = {}
    started = time.time()
    with Emulator() as emulator:
        counter = [0]
        for index, batch in enumerate(differential.batches(probes)):
            record(corpus, emulator.base, batch, counter, results)
            print(f"batch {index + 1}: {len(results)} of {len(probes)} probes, {time.time() - started:.0f} s", flush=True)
    cases = [{"condition": probe.condition, **({"query": probe.query} if probe.query is not None else {}),
              **results[probe.id]} for probe in probes]
    out = differential.CORPUS / f"rules_{args.corpus}.json"
    out.write_text(json.dumps({
        "_source": f"Google's Cloud Firestore emulator {official_version()} (gcloud SDK component "
                   f"cloud-firestore-emulator), asked on {datetime.date.today().isoformat()} by "
                   f"record.py {args.corpus} with seed {args.seed}",
        "cases": cases,
    }, indent=0, ensure_ascii=False) + "\n")
    counts: dict = {}
    for case in cases:
        counts[case["outcome"]] = counts.get(case["outcome"], 0) + 1
    print(f"{len(cases)} probes recorded to {out}: {counts}")


if __name__ == "__main__":
    main()
