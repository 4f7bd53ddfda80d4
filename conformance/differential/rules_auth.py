"""A corpus of `request.auth` as rules see the callers' ID tokens: no token, and unsigned tokens (as the Auth
emulator mints them) of password, anonymous, phone and custom-token users with and without custom claims,
against conditions over `request.auth`, `request.auth.uid` and `request.auth.token.*` (email, its
verification, the sign-in provider, identities, claims, times). Tokens come from firestore_support.id_token.

Each probe is one condition and one caller: a get of a missing document in the probe's collection `u<id>`,
allowed (NOT_FOUND) or denied (PERMISSION_DENIED).

`record.py auth` asks Google's official emulator; `test_rules_auth.py` asks Hearth and compares.
"""

from __future__ import annotations

import requests

from differential import Probe
from firestore_support import id_token

CONDITIONS = [
    "request.auth == null",
    "request.auth != null",
    "request.auth.uid == 'alice'",
    "request.auth.uid is string",
    "request.auth.token.email == 'alice@example.com'",
    "request.auth.token.email_verified == true",
    "request.auth.token.email_verified is bool",
    "request.auth.token.firebase.sign_in_provider == 'password'",
    "request.auth.token.firebase.sign_in_provider == 'anonymous'",
    "request.auth.token.firebase.identities.keys().hasAny(['email'])",
    "'email' in request.auth.token.firebase.identities",
    "request.auth.token.admin == true",
    "request.auth.token.get('admin', false) == true",
    "request.auth.token.role == 'editor'",
    "request.auth.token.phone_number == '+15555550100'",
    "request.auth.token.sub == request.auth.uid",
    "request.auth.token.user_id == request.auth.uid",
    "request.auth.token.iat is int",
    "request.auth.token.auth_time is int",
    "request.auth.token.exp > request.auth.token.iat",
    "request.auth.token.aud == 'demo-differential'",
    "request.auth.token.keys().hasAll(['sub', 'iat'])",
    "request.auth.token.name == 'Alice'",
    "request.auth.token.tenant == null",
]

# Callers: None for no token, else the token's claims.
CALLERS: list[dict | None] = [
    None,
    {"sub": "alice", "user_id": "alice", "email": "alice@example.com", "email_verified": True, "name": "Alice",
     "firebase": {"sign_in_provider": "password", "identities": {"email": ["alice@example.com"]}}},
    {"sub": "alice", "user_id": "alice", "email": "alice@example.com", "email_verified": False,
     "firebase": {"sign_in_provider": "password", "identities": {"email": ["alice@example.com"]}}},
    {"sub": "anon", "user_id": "anon", "provider_id": "anonymous",
     "firebase": {"sign_in_provider": "anonymous", "identities": {}}},
    {"sub": "bob", "user_id": "bob", "phone_number": "+15555550100",
     "firebase": {"sign_in_provider": "phone", "identities": {"phone": ["+15555550100"]}}},
    {"sub": "alice", "user_id": "alice", "admin": True, "role": "editor",
     "firebase": {"sign_in_provider": "custom", "identities": {}}},
]


def probes(seed: int = 19) -> list[Probe]:
    """Every condition with every caller (the seed is unused: the corpus is exhaustive)."""
    result: list[Probe] = []
    for condition in CONDITIONS:
        for index in range(len(CALLERS)):
            result.append(Probe(len(result), condition, {"caller": index}))
    return result


def ruleset(batch: list[Probe]) -> str:
    lines = ["rules_version = '2';", "service cloud.firestore {", "  match /databases/{database}/documents {"]
    for probe in batch:
        lines.append(f"    match /u{probe.id}/{{doc}} {{ allow get: if {probe.condition}; }}")
    lines += ["  }", "}", ""]
    return "\n".join(lines)


def ask(base: str, project: str, probe: Probe, http: requests.Session) -> str:
    """`allowed` (NOT_FOUND), `denied`, or `status <code>`."""
    caller = CALLERS[probe.query["caller"]]
    # The project the token names is the one recorded against (`aud`, `iss`), whatever project asks.
    headers = {"Authorization": f"Bearer {id_token(caller['sub'], 'demo-differential', **caller)}"} if caller is not None else {}
    response = http.get(f"{base}/v1/projects/{project}/databases/(default)/documents/u{probe.id}/d", headers=headers, timeout=30)
    if response.status_code == 404:
        return "allowed"
    if response.status_code == 403:
        return "denied"
    return f"status {response.status_code}"
