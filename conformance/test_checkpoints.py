"""Checkpoints (Hearth only): `POST /emulator/v1/checkpoints/{name}` on the hub snapshots every emulator and
`POST .../{name}:restore` brings it back. Checked with google-cloud-firestore (reads and an `on_snapshot`
listener open across the restore), firebase-admin's Realtime Database and Auth clients, and REST for Storage.

The tests start a hearth of their own (a restore replaces every emulator's state, which would disturb the
shared suite) on free ports, and stop it by PID.
"""

from __future__ import annotations

import threading
import time
import uuid

import firebase_admin
import pytest
import requests
from firebase_admin import auth as admin_auth
from firebase_admin import db as admin_db
from google.auth.credentials import AnonymousCredentials
from google.cloud import firestore

from support import RunningHearth

PROJECT = "demo-checkpoints"
OWNER = {"Authorization": "Bearer owner"}


@pytest.fixture
def hearth(tmp_path, monkeypatch):
    process = RunningHearth(["--project", PROJECT, "--port", "auth=0", "--port", "firestore=0", "--port", "database=0",
                             "--port", "storage=0", "--port", "hub=0"], cwd=tmp_path)
    process.wait_ready()
    addresses = process.addresses
    monkeypatch.setenv("FIRESTORE_EMULATOR_HOST", addresses["Firestore"])
    monkeypatch.setenv("FIREBASE_AUTH_EMULATOR_HOST", addresses["Authentication"])
    monkeypatch.setenv("FIREBASE_DATABASE_EMULATOR_HOST", addresses["Database"])
    # With the emulator variables set, firebase-admin needs no credentials (it sends `Bearer owner`).
    app = firebase_admin.initialize_app(
        options={"projectId": PROJECT, "databaseURL": f"http://{addresses['Database']}?ns={PROJECT}-default-rtdb"},
        name=f"checkpoints-{uuid.uuid4().hex[:10]}")
    client = firestore.Client(project=PROJECT, credentials=AnonymousCredentials())
    try:
        yield {"urls": {name: f"http://{address}" for name, address in addresses.items()}, "app": app, "firestore": client}
    finally:
        client.close()
        firebase_admin.delete_app(app)
        process.stop()


def hub(hearth, path: str, method: str = "POST") -> requests.Response:
    return requests.request(method, hearth["urls"]["Emulator Hub"] + "/emulator/v1/checkpoints" + path)


def test_a_restore_brings_back_every_emulator_and_a_listener_sees_it(hearth):
    client = hearth["firestore"]
    rooms = client.collection("rooms")
    rooms.document("r1").set({"title": "seeded"})
    rooms.document("r2").set({"title": "second"})
    presence = admin_db.reference("presence/alice", app=hearth["app"])
    presence.set({"online": True})
    admin_auth.create_user(uid="alice", email="alice@example.com", password="s3cret!", app=hearth["app"])
    storage = hearth["urls"]["Storage"] + f"/v0/b/{PROJECT}.appspot.com/o"
    assert requests.post(f"{storage}?name=a.txt", data=b"seeded", headers=OWNER).status_code == 200

    taken = hub(hearth, "/seeded")
    assert taken.status_code == 200, taken.text
    assert taken.json()["name"] == "seeded" and taken.json()["createTime"].endswith("Z")
    assert [item["name"] for item in hub(hearth, "", "GET").json()["checkpoints"]] == ["seeded"]

    seen: list[dict[str, dict]] = []
    changed = threading.Event()

    def on_snapshot(documents, changes, read_time):
        seen.append({document.id: document.to_dict() for document in documents})
        changed.set()

    watch = rooms.on_snapshot(on_snapshot)
    try:
        deadline = time.monotonic() + 10
        while not seen and time.monotonic() < deadline:
            time.sleep(0.02)
        rooms.document("r1").set({"title": "changed"})
        rooms.document("r2").delete()
        rooms.document("r3").set({"title": "new"})
        presence.set({"online": False})
        admin_auth.create_user(uid="bob", email="bob@example.com", app=hearth["app"])
        assert requests.post(f"{storage}?name=a.txt", data=b"changed", headers=OWNER).status_code == 200
        deadline = time.monotonic() + 10
        while (not seen or seen[-1] != {"r1": {"title": "changed"}, "r3": {"title": "new"}}) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert seen[-1] == {"r1": {"title": "changed"}, "r3": {"title": "new"}}

        restored = hub(hearth, "/seeded:restore")
        assert restored.status_code == 200, restored.text
        deadline = time.monotonic() + 10
        while seen[-1] != {"r1": {"title": "seeded"}, "r2": {"title": "second"}} and time.monotonic() < deadline:
            time.sleep(0.02)
        assert seen[-1] == {"r1": {"title": "seeded"}, "r2": {"title": "second"}}
    finally:
        watch.unsubscribe()

    assert {document.id: document.to_dict() for document in rooms.stream()} == {
        "r1": {"title": "seeded"}, "r2": {"title": "second"}}
    assert presence.get() == {"online": True}
    assert [user.uid for user in admin_auth.list_users(app=hearth["app"]).iterate_all()] == ["alice"]
    content = requests.get(f"{storage}/a.txt?alt=media", headers=OWNER)
    assert content.content == b"seeded"


def test_checkpoint_errors_are_google_errors(hearth):
    missing = hub(hearth, "/never:restore")
    assert missing.status_code == 404
    assert missing.json()["error"]["status"] == "NOT_FOUND"
    assert missing.json()["error"]["message"] == "No checkpoint named 'never'."
    bad = hub(hearth, "/" + "x" * 101)
    assert bad.status_code == 400 and bad.json()["error"]["status"] == "INVALID_ARGUMENT"
    assert hub(hearth, "/gone", "DELETE").status_code == 404
    assert hub(hearth, "/kept").status_code == 200
    assert hub(hearth, "/kept", "DELETE").status_code == 200
    assert hub(hearth, "", "GET").json() == {"checkpoints": []}
