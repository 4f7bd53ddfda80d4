"""Durable state (`--data-dir`, Hearth only): a hearth started again on the same folder serves everything the last
one acknowledged, whether it stopped cleanly or was killed with SIGKILL mid-write; one hearth per folder.

The crash test runs writers of all four emulators with the official clients (google-cloud-firestore batches over
gRPC, firebase-admin for Auth and the Realtime Database, google-cloud-storage uploads), kills the process at a
random moment, starts it again, and checks that every acknowledged write is there and that no batch or
multi-path update is there in part. Every test starts its own hearth processes and stops them by PID.
"""

from __future__ import annotations

import random
import signal
import threading
import time
import uuid

import firebase_admin
import pytest
import requests
from firebase_admin import auth as admin_auth
from firebase_admin import db as admin_db
from google.api_core.client_options import ClientOptions
from google.auth.credentials import AnonymousCredentials
from google.cloud import firestore, storage

from support import RunningHearth
from test_export_import import Hearth, check_restored

PROJECT = "demo-export"
BUCKET = f"{PROJECT}.appspot.com"
OWNER = {"Authorization": "Bearer owner"}


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGKILL])
def test_a_restart_on_the_data_dir_brings_back_every_emulator(tmp_path, stop_signal):
    first = Hearth(tmp_path, "--data-dir", "data")
    try:
        first.seed()
        before = first.state()
    finally:
        first.stop(stop_signal)
    assert (tmp_path / "data" / "hearth.sqlite").is_file()
    second = Hearth(tmp_path, "--data-dir", "data")
    try:
        after = second.state()
    finally:
        second.stop()
    check_restored(after, before)


def test_a_second_hearth_on_the_data_dir_is_refused(tmp_path):
    first = Hearth(tmp_path, "--data-dir", "data", "--only", "firestore")
    try:
        second = RunningHearth(["--project", PROJECT, "--only", "firestore", "--port", "firestore=0", "--port", "hub=0",
                                "--data-dir", "data"], cwd=tmp_path)
        code = second.process.wait(timeout=30)
        second.stop()
        assert code != 0
        message = "\n".join(second.stderr_lines)
        assert f"is in use by another hearth process (pid {first.process.process.pid})" in message, second.output()
        # The first one goes on serving.
        documents = f"{first.urls['firestore']}/v1/projects/{PROJECT}/databases/(default)/documents"
        assert requests.patch(documents + "/a/b", headers=OWNER, json={"fields": {}}).status_code == 200
    finally:
        first.stop()


def test_the_data_dir_key_of_emulator_json_is_the_same_as_the_option(tmp_path):
    (tmp_path / "emulator.json").write_text('{"dataDir": "kept"}')
    first = Hearth(tmp_path, "--only", "database")
    database = f"{first.urls['database']}/.json?ns={PROJECT}-default-rtdb"
    try:
        assert requests.put(database, headers=OWNER, json={"kept": 1}).status_code == 200
    finally:
        first.stop()
    assert (tmp_path / "kept" / "hearth.sqlite").is_file()
    second = Hearth(tmp_path, "--only", "database")
    try:
        assert requests.get(f"{second.urls['database']}/.json?ns={PROJECT}-default-rtdb", headers=OWNER).json() == {"kept": 1}
    finally:
        second.stop()


def test_an_import_seeds_a_new_data_dir_only(tmp_path):
    seed = tmp_path / "seed"
    seed.mkdir()
    (seed / f"{PROJECT}-default-rtdb.json").write_text('{"seeded": true}')
    args = ("--only", "database", "--data-dir", "data", "--import", "seed")
    first = Hearth(tmp_path, *args)
    database = f"{first.urls['database']}/.json?ns={PROJECT}-default-rtdb"
    try:
        assert requests.get(database, headers=OWNER).json() == {"seeded": True}
        assert requests.patch(database, headers=OWNER, json={"written": 1}).status_code == 200
    finally:
        first.stop(signal.SIGKILL)
    second = Hearth(tmp_path, *args)
    try:
        # The folder is newer than the seed: importing it again would undo the write.
        assert any("Skipping the import of seed" in line for line in second.process.stdout_lines), second.process.output()
        answer = requests.get(f"{second.urls['database']}/.json?ns={PROJECT}-default-rtdb", headers=OWNER)
        assert answer.json() == {"seeded": True, "written": 1}
    finally:
        second.stop()


class Writers:
    """Writers of every emulator through the official clients, each recording what was acknowledged."""

    BATCH = 5

    def __init__(self, hearth: Hearth, round_id: str, monkeypatch):
        self.round = round_id
        self.stop = threading.Event()
        self.acknowledged: dict[str, list] = {"firestore": [], "database": [], "auth": [], "storage": []}
        address = {name: url.removeprefix("http://") for name, url in hearth.urls.items()}
        monkeypatch.setenv("FIRESTORE_EMULATOR_HOST", address["firestore"])
        monkeypatch.setenv("FIREBASE_AUTH_EMULATOR_HOST", address["auth"])
        monkeypatch.setenv("FIREBASE_DATABASE_EMULATOR_HOST", address["database"])
        self.app = firebase_admin.initialize_app(
            options={"projectId": PROJECT, "databaseURL": f"{hearth.urls['database']}?ns={PROJECT}-default-rtdb",
                     "httpTimeout": 30},
            name=f"crash-{uuid.uuid4().hex[:10]}")
        self.firestore = firestore.Client(project=PROJECT, credentials=AnonymousCredentials())
        self.storage = storage.Client(project=PROJECT, credentials=AnonymousCredentials(),
                                      client_options=ClientOptions(api_endpoint=hearth.urls["storage"]))
        self.threads = [threading.Thread(target=self._loop, args=(write,), daemon=True)
                        for write in (self._firestore, self._database, self._auth, self._storage)]

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def finish(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=30)
        self.firestore.close()
        self.storage.close()
        firebase_admin.delete_app(self.app)

    def all_acknowledged_once(self, timeout: float) -> bool:
        """Waits until every writer has had a write acknowledged (the first pays for the client's set-up)."""
        deadline = time.monotonic() + timeout
        while not all(self.acknowledged.values()):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

    def _loop(self, write) -> None:
        count = 0
        while not self.stop.is_set():
            try:
                write(f"{self.round}-{count}")
            except Exception:  # slow, or the process is gone: not acknowledged; try again until told to stop
                time.sleep(0.05)
            count += 1

    def _firestore(self, key: str) -> None:
        batch = self.firestore.batch()
        for index in range(self.BATCH):
            batch.set(self.firestore.collection("crash").document(f"{key}-{index}"), {"batch": key, "index": index})
        batch.commit(retry=None, timeout=30)
        self.acknowledged["firestore"].append(key)

    def _database(self, key: str) -> None:
        admin_db.reference("crash", app=self.app).update({f"{key}/a": key, f"{key}/b": key})
        self.acknowledged["database"].append(key)

    def _auth(self, key: str) -> None:
        admin_auth.create_user(uid=key, email=f"{key}@example.com", password="s3cret!", app=self.app)
        self.acknowledged["auth"].append(key)

    def _storage(self, key: str) -> None:
        blob = self.storage.bucket(BUCKET).blob(f"crash/{key}")
        blob.upload_from_string(key.encode() * 100, content_type="text/plain", retry=None, timeout=30)
        self.acknowledged["storage"].append(key)


def check_everything_acknowledged_is_there(hearth: Hearth, acknowledged: dict[str, list]) -> None:
    documents = f"{hearth.urls['firestore']}/v1/projects/{PROJECT}/databases/(default)/documents"
    listed = requests.get(documents + "/crash?pageSize=100000", headers=OWNER).json().get("documents", [])
    batches: dict[str, int] = {}
    for document in listed:
        key = document["fields"]["batch"]["stringValue"]
        batches[key] = batches.get(key, 0) + 1
    assert all(count == Writers.BATCH for count in batches.values()), "a batch is there in part"
    assert set(acknowledged["firestore"]) <= set(batches)

    tree = requests.get(f"{hearth.urls['database']}/crash.json?ns={PROJECT}-default-rtdb", headers=OWNER).json() or {}
    assert all(set(value) == {"a", "b"} for value in tree.values()), "a multi-path update is there in part"
    assert set(acknowledged["database"]) <= set(tree)

    auth = hearth.urls["auth"] + "/identitytoolkit.googleapis.com/v1"
    for key in acknowledged["auth"]:
        answer = requests.post(auth + "/accounts:signInWithPassword?key=k", json={
            "email": f"{key}@example.com", "password": "s3cret!", "returnSecureToken": True})
        assert answer.status_code == 200, (key, answer.text)

    objects = f"{hearth.urls['storage']}/v0/b/{BUCKET}/o"
    for key in acknowledged["storage"]:
        answer = requests.get(f"{objects}/crash%2F{key}?alt=media", headers=OWNER)
        assert answer.status_code == 200 and answer.content == key.encode() * 100, key


@pytest.mark.timeout(300)
def test_kill_9_at_random_moments_loses_no_acknowledged_write(tmp_path, monkeypatch):
    generator = random.Random(int(time.time()))
    acknowledged: dict[str, list] = {"firestore": [], "database": [], "auth": [], "storage": []}
    for round_number in range(4):
        hearth = Hearth(tmp_path, "--data-dir", "data")
        try:
            check_everything_acknowledged_is_there(hearth, acknowledged)
            writers = Writers(hearth, f"r{round_number}", monkeypatch)
            writers.start()
            # Every writer is under way (on a slow machine the first writes take a while), then a random moment.
            assert writers.all_acknowledged_once(timeout=60), writers.acknowledged
            time.sleep(generator.uniform(0.3, 1.5))
        finally:
            hearth.stop(signal.SIGKILL)
        writers.finish()
        for name, keys in writers.acknowledged.items():
            acknowledged[name].extend(keys)
        assert all(writers.acknowledged.values()), writers.acknowledged  # every writer got something through
    last = Hearth(tmp_path, "--data-dir", "data")
    try:
        check_everything_acknowledged_is_there(last, acknowledged)
    finally:
        last.stop()
