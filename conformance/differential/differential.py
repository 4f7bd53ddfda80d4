"""What every differential corpus shares: probes asked in batches, one ruleset and project per batch, of a
Firestore emulator over REST; the official emulator's recorded outcomes in `corpus/<name>.json`; and the
ratchet, `corpus/<name>_open.json`, of the probes Hearth does not yet answer the same way.

A corpus module (`rules_values`, `rules_queries`) provides `probes(seed)`, `ruleset(batch)` and
`ask(base, project, probe, http) -> str`.
"""

from __future__ import annotations

import concurrent.futures
import importlib
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path

import requests

CORPUS = Path(__file__).resolve().parent / "corpus"


@dataclass(frozen=True)
class Probe:
    """One rules condition (and for a query probe, the query's filter), and its place in the corpus."""
    id: int
    condition: str
    query: dict | None = field(default=None, hash=False, compare=False)

    @property
    def key(self) -> str:
        """What names the probe in the recorded files."""
        return self.condition if self.query is None else f"{self.condition} | {json.dumps(self.query, sort_keys=True)}"


def module(name: str):
    """The corpus module `rules_<name>`."""
    return importlib.import_module(f"rules_{name}")


def load(base: str, project: str, rules: str) -> requests.Response:
    """PUTs `rules` for `project` on the emulator at `base`."""
    body = {"rules": {"files": [{"name": "firestore.rules", "content": rules}]}}
    return requests.put(f"{base}/emulator/v1/projects/{project}:securityRules", json=body, timeout=60)


def outcomes(corpus, base: str, project: str, batch: list[Probe], workers: int = 8) -> dict[int, str]:
    """The outcome of every probe of `batch`, whose ruleset is loaded for `project`."""
    local = threading.local()

    def ask(probe: Probe) -> tuple[int, str]:
        if not hasattr(local, "http"):
            local.http = requests.Session()
        return probe.id, corpus.ask(base, project, probe, local.http)

    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        return dict(pool.map(ask, batch))


def batches(probes: list[Probe], size: int = 400) -> list[list[Probe]]:
    """`probes` in batches of `size`, one ruleset and project each."""
    return [probes[start:start + size] for start in range(0, len(probes), size)]


def recorded(name: str) -> tuple[list[Probe], dict[int, dict]]:
    """The recorded probes of corpus `name` and, by probe id, the official emulator's answer."""
    cases = json.loads((CORPUS / f"rules_{name}.json").read_text())["cases"]
    probes = [Probe(index, case["condition"], case.get("query")) for index, case in enumerate(cases)]
    return probes, dict(enumerate(cases))


def open_keys(name: str) -> set[str]:
    """The probes of corpus `name` listed as still answered differently."""
    path = CORPUS / f"rules_{name}_open.json"
    return {entry["key"] for entry in json.loads(path.read_text())["open"]} if path.exists() else set()


def compare(probes: dict[int, Probe], expected: dict[int, dict], answers: dict[int, str], open_set: set[str]) -> tuple[list[str], list[str]]:
    """The probes that disagree and are not listed as open, and the listed ones that now agree."""
    new, fixed = [], []
    for probe_id, answer in answers.items():
        official = expected[probe_id]["outcome"]
        key = probes[probe_id].key
        if answer != official and key not in open_set:
            new.append(f"{key}: official {official}, hearth {answer}")
        if answer == official and key in open_set:
            fixed.append(key)
    return new, fixed
