#!/usr/bin/env python3
"""Records what Google's official Firestore emulator answers to the document ids, timestamps and geopoints the
export work touched (numeric `__id<N>__` ids, RFC 3339 timestamps at the calendar's edges, zero geopoints),
into conformance/fixtures/official_value_answers.json; test_official_value_answers.py replays the same
requests against Hearth and compares. CI does not need Java: only this recorder does.

Usage: .venv/bin/python conformance/recorders/record_value_answers.py
"""
import json
import os
import sys

import requests

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from official_firestore import AUTH, EMU_JAR, Emulator  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "official_value_answers.json")
PROJECT = "demo-answers"

IDS = ["__id42__", "__id-7__", "__id0__", "__id007__", "__idabc__", "__id9223372036854775807__",
       "__id9223372036854775808__", "__id__", "__id-0__", "__id+5__"]
TIMESTAMPS = ["0001-01-01T00:00:00Z", "1582-10-04T23:59:59Z", "1582-10-15T00:00:00Z", "1900-02-28T23:59:59.5Z",
              "9999-12-31T23:59:59.999999999Z", "2024-02-29T12:00:00+02:00", "2024-02-29T12:00:00-05:30",
              "2024-02-30T00:00:00Z", "2023-02-29T00:00:00Z", "2024-01-01t00:00:00z", "0000-12-31T23:59:59Z",
              "2024-01-01T00:00:00.1234567891Z", "2024-01-01T24:00:00Z", "2024-01-01T00:00:60Z", "2024-01-01T00:00Z",
              "2024-01-01T00:00:00", "2024-01-01T00:00:00.Z", "10000-01-01T00:00:00Z"]
GEOPOINTS = [{"latitude": 0, "longitude": 0}, {}, {"latitude": -0.0, "longitude": 1}, {"latitude": 1.5}]


def cases():
    for index, doc_id in enumerate(IDS):
        yield {"name": f"id {doc_id}", "path": f"ids/{doc_id}", "fields": {"n": {"integerValue": str(index)}}}
    for index, text in enumerate(TIMESTAMPS):
        yield {"name": f"timestamp {text}", "path": f"times/t{index}", "fields": {"t": {"timestampValue": text}}}
    for index, point in enumerate(GEOPOINTS):
        yield {"name": f"geopoint {json.dumps(point)}", "path": f"geo/g{index}", "fields": {"g": {"geoPointValue": point}}}


def answer(response: requests.Response) -> dict:
    body = response.json()
    if response.status_code == 200:
        return {"status": 200, "fields": body.get("fields", {})}
    return {"status": response.status_code, "error": {key: body["error"].get(key) for key in ("code", "status", "message")}}


def main():
    recorded = []
    with Emulator() as emulator:
        for case in cases():
            url = f"{emulator.db_root(PROJECT)}/{case['path']}"
            response = requests.patch(url, headers=AUTH, json={"fields": case["fields"]})
            recorded.append({**case, "official": answer(response)})
    with open(OUT, "w") as out:
        json.dump({"emulator": os.path.basename(EMU_JAR), "cloud_sdk": open("/usr/lib/google-cloud-sdk/VERSION").read().strip(),
                   "project": PROJECT, "cases": recorded}, out, indent=1, ensure_ascii=False)
        out.write("\n")
    print(f"{len(recorded)} answers -> {OUT}")


if __name__ == "__main__":
    main()
