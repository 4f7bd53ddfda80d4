"""Hearth matches paths as the official emulator does on every probe of the rules-matches corpus
(corpus/rules_matches.json, and corpus/rules_matches_v1.json for the same probes under rules_version 1;
recorded from Google's official Firestore emulator by `record.py matches` and `record.py matches_v1`;
rules_matches.py explains the probes): single and recursive wildcards anywhere, literals, nested blocks,
repeated names, and what the bound variables hold.

A ratchet while they disagree: corpus/rules_matches_open.json and rules_matches_v1_open.json list the probes
Hearth does not yet answer the same way; see test_rules_values.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import differential  # noqa: E402
import differential_checks  # noqa: E402

test_hearth_matches_each_path_as_the_official_emulator, test_hearth_refuses_the_rulesets_the_official_emulator_refuses = (
    differential_checks.tests("matches", *differential.recorded("matches")))
(test_hearth_matches_each_path_as_the_official_emulator_in_version_1,
 test_hearth_refuses_the_rulesets_the_official_emulator_refuses_in_version_1) = (
    differential_checks.tests("matches_v1", *differential.recorded("matches_v1")))
