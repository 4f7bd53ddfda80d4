"""The match-forms corpus of rules_matches.py under `rules_version = '1'` (the default when a file declares
none): there a recursive wildcard may only end a pattern and matches one segment or more, never none.

`record.py matches_v1` asks Google's official emulator; test_rules_matches.py asks Hearth and compares.
"""

from __future__ import annotations

from rules_matches import ask, probes  # noqa: F401 (the corpus interface)
import rules_matches

from differential import Probe


def ruleset(batch: list[Probe]) -> str:
    return rules_matches.ruleset(batch).replace("rules_version = '2';", "rules_version = '1';", 1)
