"""Hearth answers as Google's official Firestore emulator does to the document ids, timestamps and geopoints
recorded in fixtures/official_value_answers.json (conformance/recorders/record_value_answers.py made it by
sending these requests to the official emulator; CI needs no Java). Status, error status and the stored
fields must agree; error messages too, except where noted."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
import requests

RECORDED = json.loads((Path(__file__).parent / "fixtures" / "official_value_answers.json").read_text())
OWNER = {"Authorization": "Bearer owner"}
# Messages of the official emulator's JSON parser Hearth words its own way (same status and code).
OWN_WORDING = {"Payload isn't valid for request."}


@pytest.mark.parametrize("case", RECORDED["cases"], ids=[case["name"] for case in RECORDED["cases"]])
def test_hearth_answers_as_the_official_emulator(suite, case):
    project = f"demo-answers-{uuid.uuid4().hex[:8]}"
    url = f"http://{suite.firestore_host}/v1/projects/{project}/databases/(default)/documents/{case['path']}"
    response = requests.patch(url, headers=OWNER, json={"fields": case["fields"]})
    official = case["official"]
    assert response.status_code == official["status"], response.text
    body = response.json()
    if official["status"] == 200:
        assert body.get("fields", {}) == official["fields"]
        return
    assert body["error"]["status"] == official["error"]["status"]
    assert body["error"]["code"] == official["error"]["code"]
    if official["error"]["message"] not in OWN_WORDING:
        assert body["error"]["message"] == official["error"]["message"]
