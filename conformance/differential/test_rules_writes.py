"""Hearth decides every write of the rules-writes corpus (corpus/rules_writes.json, recorded from Google's
official Firestore emulator by `record.py writes`; rules_writes.py explains the probes) as the official
emulator does: conditions over request.resource, resource, diff(), request.method and request.auth, lazy
`let`s and wrong argument counts, against creates, updates (whole, masked, adding and removing fields), server
timestamps and deletes.

A ratchet while they disagree: corpus/rules_writes_open.json lists the probes Hearth does not yet answer the
same way; see test_rules_values.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import differential  # noqa: E402
import differential_checks  # noqa: E402

NAME = "writes"
PROBES, EXPECTED = differential.recorded(NAME)

test_hearth_decides_each_write_as_the_official_emulator, test_hearth_refuses_the_rulesets_the_official_emulator_refuses = (
    differential_checks.tests(NAME, PROBES, EXPECTED))
