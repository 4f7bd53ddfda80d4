"""Hearth sees every caller as the official emulator does on every probe of the rules-auth corpus
(corpus/rules_auth.json, recorded from Google's official Firestore emulator by `record.py auth`;
rules_auth.py explains the probes): `request.auth` and its token claims for callers without a token
and with the Auth emulator's tokens of several kinds of users.

A ratchet while they disagree: corpus/rules_auth_open.json lists the probes Hearth does not yet answer the
same way; see test_rules_values.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import differential  # noqa: E402
import differential_checks  # noqa: E402

NAME = "auth"
PROBES, EXPECTED = differential.recorded(NAME)

test_hearth_sees_each_caller_as_the_official_emulator, test_hearth_refuses_the_rulesets_the_official_emulator_refuses = (
    differential_checks.tests(NAME, PROBES, EXPECTED))
