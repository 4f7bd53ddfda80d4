"""`hearth rules check FILE...`: compiles rules files and prints diagnostics as compilers do."""

from __future__ import annotations

import re
import subprocess

from support import run_hearth

VALID = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /documents/{conversationId}/{messageId}/{filename} {
      allow read: if request.auth != null
        && request.auth.uid in firestore.get(
          /databases/(default)/documents/conversations/$(conversationId)).data.participantIds;
    }
  }
}
"""

BROKEN = """rules_version = '2';
service cloud.firestore {
  match /databases/{database}/documents {
    match /users/{uid} {
      allow read: if request.auth.uid == ;
    }
  }
}
"""


def check(tmp_path, *files: tuple[str, str]) -> subprocess.CompletedProcess:
    paths = []
    for name, text in files:
        path = tmp_path / name
        path.write_text(text)
        paths.append(str(path))
    return run_hearth("rules", "check", *paths, cwd=tmp_path)


def test_valid_rules_pass(tmp_path):
    result = check(tmp_path, ("storage.rules", VALID))
    assert result.returncode == 0, result.stderr
    assert "storage.rules: ok" in result.stdout


def test_errors_are_reported_with_position_and_fail(tmp_path):
    result = check(tmp_path, ("firestore.rules", BROKEN))
    assert result.returncode != 0
    line = next(l for l in result.stderr.splitlines() if ": error: " in l)
    assert re.search(r"firestore\.rules:5:\d+: error: ", line), line


def test_every_file_is_checked(tmp_path):
    result = check(tmp_path, ("a.rules", VALID), ("b.rules", BROKEN))
    assert result.returncode != 0
    assert "a.rules: ok" in result.stdout
    assert "b.rules:5:" in result.stderr


def test_warnings_do_not_fail(tmp_path):
    text = VALID.replace("match /b/{bucket}/o {", "match /b/{bucket}/o {\n    function unused() { return true; }", 1)
    result = check(tmp_path, ("storage.rules", text))
    assert result.returncode == 0, result.stderr
    assert "warning: Unused function: unused." in result.stderr
