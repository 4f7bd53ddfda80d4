"""Import and export in the official layout, through the command line, the hub and the Firestore emulator's
export endpoint, checked with the official clients (firebase-admin for Auth, google-cloud-firestore,
google-cloud-storage, REST for the Realtime Database) and, where it is installed, Google's official Firestore
emulator reading Hearth's export and Hearth reading the official emulator's.

Every test starts its own hearth processes on free ports in a scratch folder and stops them by PID.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import pytest
import requests

import official_firestore
from support import RunningHearth, clean_environment, run_hearth

FREE_PORTS = ["--port", "auth=0", "--port", "firestore=0", "--port", "database=0", "--port", "storage=0", "--port", "hub=0"]
PROJECT = "demo-export"
OWNER = {"Authorization": "Bearer owner"}
# Exports the official emulator wrote, with the documents it served (Tests/FirestoreEmulatorTests/Exports/README.md).
GOLDEN = Path(__file__).resolve().parent.parent / "Tests" / "FirestoreEmulatorTests" / "Exports"


class Hearth:
    """A hearth of the test's own, with its emulators' URLs."""

    def __init__(self, cwd: Path, *args: str, project: str = PROJECT):
        only = args[args.index("--only") + 1].split(",") + ["hub"] if "--only" in args else None
        ports = [part for name in ("auth", "firestore", "database", "storage", "hub") if only is None or name in only
                 for part in ("--port", f"{name}=0")]
        self.process = RunningHearth(["--project", project, *ports, *args], cwd=cwd)
        self.process.wait_ready()
        addresses = self.process.addresses
        self.urls = {
            name: f"http://{addresses[display]}"
            for name, display in [("auth", "Authentication"), ("firestore", "Firestore"), ("database", "Database"),
                                  ("storage", "Storage"), ("hub", "Emulator Hub")]
            if display in addresses
        }
        self.project = project

    def stop(self, sig: int = signal.SIGTERM) -> int:
        return self.process.stop(sig, timeout=60)

    # Seeding and reading, one of each kind of data.

    def seed(self) -> None:
        auth = self.urls["auth"] + f"/identitytoolkit.googleapis.com/v1/projects/{self.project}"
        created = requests.post(auth + "/accounts", headers=OWNER, json={
            "localId": "alice", "email": "alice@example.com", "password": "s3cret!", "displayName": "Alice"})
        assert created.status_code == 200, created.text
        claims = requests.post(auth + "/accounts:update", headers=OWNER, json={
            "localId": "alice", "customAttributes": json.dumps({"role": "admin"})})
        assert claims.status_code == 200, claims.text
        documents = f"{self.urls['firestore']}/v1/projects/{self.project}/databases/(default)/documents"
        for path, fields in [
            ("rooms/r1", {"name": {"stringValue": "général"}, "n": {"integerValue": "9223372036854775807"},
                          "at": {"timestampValue": "2024-01-02T03:04:05.123456Z"},
                          "tags": {"arrayValue": {"values": [{"stringValue": "a"}, {"doubleValue": -0.0}]}},
                          "nested": {"mapValue": {"fields": {"deep": {"mapValue": {"fields": {
                              "geo": {"geoPointValue": {"latitude": 1.5, "longitude": -2.5}}}}}}}},
                          "blob": {"bytesValue": "AAEC"}, "none": {"nullValue": None},
                          "ref": {"referenceValue": f"projects/{self.project}/databases/(default)/documents/rooms/r2"}}),
            ("rooms/r1/messages/m1", {"text": {"stringValue": "hi"}}),
            ("ghost/missing/sub/doc", {"under": {"booleanValue": True}}),
        ]:
            answer = requests.patch(f"{documents}/{path}", headers=OWNER, json={"fields": fields})
            assert answer.status_code == 200, answer.text
        named = f"{self.urls['firestore']}/v1/projects/{self.project}/databases/other/documents/c/d"
        assert requests.patch(named, headers=OWNER, json={"fields": {"db": {"stringValue": "other"}}}).status_code == 200
        database = self.urls["database"]
        answer = requests.put(f"{database}/.json?ns={self.project}-default-rtdb", headers=OWNER,
                              json={"presence": {"alice": {"online": True, ".priority": 3}}})
        assert answer.status_code == 200, answer.text
        storage = self.urls["storage"]
        upload = requests.post(f"{storage}/v0/b/{self.project}.appspot.com/o?name=docs%2Fa.pdf", headers={
            **OWNER, "Content-Type": "application/pdf"}, data=b"%PDF-1.4 hello")
        assert upload.status_code == 200, upload.text

    def state(self) -> dict:
        """Everything seeded, as the emulators serve it now (times and generated ids left out)."""
        auth = self.urls["auth"] + f"/identitytoolkit.googleapis.com/v1/projects/{self.project}"
        users = requests.get(auth + "/accounts:batchGet?maxResults=100", headers=OWNER).json().get("users", [])
        signin = requests.post(self.urls["auth"] + "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k",
                               json={"email": "alice@example.com", "password": "s3cret!", "returnSecureToken": True})
        documents = {}
        for database in ["(default)", "other"]:
            root = f"{self.urls['firestore']}/v1/projects/{self.project}/databases/{database}/documents"
            for path in ["rooms/r1", "rooms/r1/messages/m1", "ghost/missing/sub/doc", "c/d"]:
                answer = requests.get(f"{root}/{path}", headers=OWNER)
                if answer.status_code == 200:
                    documents[f"{database}/{path}"] = answer.json()["fields"]
        database = requests.get(f"{self.urls['database']}/.json?ns={self.project}-default-rtdb&format=export",
                                headers=OWNER).json()
        storage = self.urls["storage"]
        metadata = requests.get(f"{storage}/v0/b/{self.project}.appspot.com/o/docs%2Fa.pdf", headers=OWNER).json()
        token = metadata.get("downloadTokens")
        content = requests.get(f"{storage}/v0/b/{self.project}.appspot.com/o/docs%2Fa.pdf?alt=media&token={token}",
                               headers=OWNER)
        return {
            "users": [{key: user.get(key) for key in ("localId", "email", "displayName", "customAttributes", "passwordHash")}
                      for user in users],
            "signin": signin.status_code,
            "documents": documents,
            "database": database,
            "object": {key: metadata.get(key) for key in ("name", "contentType", "size", "md5Hash", "downloadTokens")},
            "content": content.content if content.status_code == 200 else content.status_code,
        }


def check_restored(after: dict, before: dict) -> None:
    """`after` (a `Hearth.state()`) is what was seeded and read as `before`, every emulator's part of it."""
    assert after == before
    assert after["signin"] == 200 and after["content"] == b"%PDF-1.4 hello"
    assert after["documents"]["other/c/d"] == {"db": {"stringValue": "other"}}


def export_layout(folder: Path) -> set[str]:
    return {str(path.relative_to(folder)) for path in folder.rglob("*") if path.is_file() and "blobs" not in path.parts
            and "metadata" not in path.parts}


# --------------------------------------------------------------------------------------------
# Round trips through the command line


def test_export_command_then_import_restores_every_emulator(tmp_path):
    first = Hearth(tmp_path)
    try:
        first.seed()
        before = first.state()
        result = run_hearth("export", "seed", "--project", PROJECT, cwd=tmp_path, timeout=60)
        assert result.returncode == 0, result.stderr
        assert "Export complete" in result.stdout
    finally:
        first.stop()
    seed = tmp_path / "seed"
    assert export_layout(seed) >= {
        "firebase-export-metadata.json", "auth_export/accounts.json", "auth_export/config.json",
        f"database_export/{PROJECT}-default-rtdb.json", "storage_export/buckets.json",
        "firestore_export/firestore_export.overall_export_metadata",
        "firestore_export/all_namespaces/all_kinds/all_namespaces_all_kinds.export_metadata",
        "firestore_export/all_namespaces/all_kinds/output-0"}
    metadata = json.loads((seed / "firebase-export-metadata.json").read_text())
    assert metadata["firestore"]["metadata_file"] == "firestore_export/firestore_export.overall_export_metadata"
    assert [metadata[name]["path"] for name in ("database", "auth", "storage")] == [
        "database_export", "auth_export", "storage_export"]
    accounts = json.loads((seed / "auth_export/accounts.json").read_text())
    assert accounts["kind"] == "identitytoolkit#DownloadAccountResponse"
    assert accounts["users"][0]["passwordHash"].startswith("fakeHash:salt=")
    assert json.loads((seed / f"database_export/{PROJECT}-default-rtdb.json").read_text()) == {
        "presence": {"alice": {"online": True, ".priority": 3}}}

    second = Hearth(tmp_path, "--import", "seed")
    try:
        assert any(line.startswith("Imported from seed") for line in second.process.stdout_lines), second.process.output()
        after = second.state()
    finally:
        second.stop()
    check_restored(after, before)


def test_export_only_writes_the_named_emulators_and_refuses_to_replace_without_force(tmp_path):
    hearth = Hearth(tmp_path)
    try:
        hearth.seed()
        result = run_hearth("export", "out", "--only", "database,auth", "--project", PROJECT, cwd=tmp_path, timeout=60)
        assert result.returncode == 0, result.stderr
        metadata = json.loads((tmp_path / "out/firebase-export-metadata.json").read_text())
        assert set(metadata) == {"version", "database", "auth"}
        again = run_hearth("export", "out", "--project", PROJECT, cwd=tmp_path, timeout=60)
        assert again.returncode != 0
        assert "re-run with --force" in again.stderr
        forced = run_hearth("export", "out", "--force", "--project", PROJECT, cwd=tmp_path, timeout=60)
        assert forced.returncode == 0, forced.stderr
        assert set(json.loads((tmp_path / "out/firebase-export-metadata.json").read_text())) == {
            "version", "firestore", "database", "auth", "storage"}
        # No staging folder is left beside the export.
        assert sorted(path.name for path in tmp_path.iterdir() if path.name.startswith(".")) == []
    finally:
        hearth.stop()


def test_export_refuses_the_working_directory_its_parents_and_foreign_folders(tmp_path):
    hearth = Hearth(tmp_path)
    try:
        for target in [".", "..", str(tmp_path)]:
            result = run_hearth("export", target, "--force", "--project", PROJECT, cwd=tmp_path, timeout=30)
            assert result.returncode != 0
            assert "working directory or one of its parents" in result.stderr
        foreign = tmp_path / "src"
        foreign.mkdir()
        (foreign / "main.swift").write_text("print(1)")
        result = run_hearth("export", "src", "--force", "--project", PROJECT, cwd=tmp_path, timeout=30)
        assert result.returncode != 0
        assert "not an emulator export" in result.stderr
        assert (foreign / "main.swift").read_text() == "print(1)"
    finally:
        hearth.stop()


def test_export_without_a_running_suite_says_so(tmp_path):
    env = clean_environment()
    env["TMPDIR"] = str(tmp_path)
    env.pop("FIREBASE_EMULATOR_HUB", None)
    result = run_hearth("export", "out", "--project", "demo-nobody-runs", cwd=tmp_path, env=env)
    assert result.returncode != 0
    assert "Did not find any running emulators for project demo-nobody-runs." in result.stderr


# --------------------------------------------------------------------------------------------
# Export on exit


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_export_on_exit_runs_on_each_shutdown_signal(tmp_path, sig):
    hearth = Hearth(tmp_path, "--export-on-exit", "data")
    hearth.seed()
    before = hearth.state()
    assert hearth.stop(sig) == 0, hearth.process.output()
    assert (tmp_path / "data/firebase-export-metadata.json").is_file(), hearth.process.output()
    again = Hearth(tmp_path, "--import", "data")
    try:
        assert again.state() == before
    finally:
        again.stop()


def test_import_and_export_on_exit_to_the_same_folder_keeps_data_across_runs(tmp_path):
    # The first run has no folder yet: the import is skipped, as the official CLI does.
    first = Hearth(tmp_path, "--import", "data", "--export-on-exit")
    first.seed()
    before = first.state()
    assert first.stop(signal.SIGINT) == 0
    second = Hearth(tmp_path, "--import", "data", "--export-on-exit")
    try:
        assert second.state() == before
        requests.put(f"{second.urls['database']}/extra.json?ns={PROJECT}-default-rtdb", headers=OWNER, json=1)
    finally:
        assert second.stop(signal.SIGINT) == 0
    third = Hearth(tmp_path, "--import", "data")
    try:
        assert requests.get(f"{third.urls['database']}/extra.json?ns={PROJECT}-default-rtdb").json() == 1
    finally:
        third.stop()


def test_emulator_json_import_and_export_on_exit_keys(tmp_path):
    (tmp_path / "emulator.json").write_text(json.dumps({
        "projectId": PROJECT, "import": "data", "exportOnExit": True,
        "emulators": {"database": {"port": 0}, "hub": {"port": 0}}}))
    first = RunningHearth([], cwd=tmp_path)
    first.wait_ready()
    database = "http://" + first.addresses["Database"]
    assert requests.put(f"{database}/k.json?ns={PROJECT}-default-rtdb", headers=OWNER, json="kept").status_code == 200
    assert first.stop(signal.SIGINT) == 0
    assert json.loads((tmp_path / f"data/database_export/{PROJECT}-default-rtdb.json").read_text()) == {"k": "kept"}
    second = RunningHearth([], cwd=tmp_path)
    try:
        second.wait_ready()
        database = "http://" + second.addresses["Database"]
        assert requests.get(f"{database}/k.json?ns={PROJECT}-default-rtdb").json() == "kept"
    finally:
        second.stop()


def test_exec_exports_on_exit_whatever_the_command_returns(tmp_path):
    script = ("import os, requests\n"
              "db = os.environ['FIREBASE_DATABASE_EMULATOR_HOST']\n"
              f"requests.put(f'http://{{db}}/x.json?ns={PROJECT}-default-rtdb', json=42, headers={{'Authorization': 'Bearer owner'}})\n"
              "raise SystemExit(3)\n")
    result = run_hearth("exec", "--project", PROJECT, *FREE_PORTS, "--export-on-exit", "out", "--",
                        sys.executable, "-c", script, cwd=tmp_path, timeout=60)
    assert result.returncode == 3, result.stderr
    exported = json.loads((tmp_path / f"out/database_export/{PROJECT}-default-rtdb.json").read_text())
    assert exported == {"x": 42}


def test_export_on_exit_without_a_folder_needs_import(tmp_path):
    result = run_hearth("start", "--project", PROJECT, *FREE_PORTS, "--export-on-exit", cwd=tmp_path)
    assert result.returncode != 0
    assert ('"--export-on-exit" must be used with "--import" or provide a dir directly to "--export-on-exit [dir]"'
            in result.stderr)


@pytest.mark.parametrize("target", [".", ".."])
def test_export_on_exit_refuses_the_working_directory_and_its_parents(tmp_path, target):
    result = run_hearth("start", "--project", PROJECT, *FREE_PORTS, "--export-on-exit", target, cwd=tmp_path)
    assert result.returncode != 0
    assert "working directory or one of its parents" in result.stderr


# --------------------------------------------------------------------------------------------
# Imports that cannot be done


def test_import_of_a_missing_folder_is_one_error(tmp_path):
    result = run_hearth("start", "--project", PROJECT, *FREE_PORTS, "--import", "nowhere", cwd=tmp_path)
    assert result.returncode != 0
    assert "Import path 'nowhere' does not exist." in result.stderr


def test_import_of_a_corrupt_firestore_export_names_the_file_and_record_and_imports_nothing(tmp_path):
    first = Hearth(tmp_path)
    try:
        first.seed()
        assert run_hearth("export", "seed", "--project", PROJECT, cwd=tmp_path, timeout=60).returncode == 0
    finally:
        first.stop()
    output = tmp_path / "seed/firestore_export/all_namespaces/all_kinds/output-0"
    data = bytearray(output.read_bytes())
    data[40] ^= 0xFF
    output.write_bytes(bytes(data))
    result = run_hearth("start", "--project", PROJECT, *FREE_PORTS, "--import", "seed", cwd=tmp_path)
    assert result.returncode != 0
    assert "output-0" in result.stderr and "record 0" in result.stderr and "checksum" in result.stderr, result.stderr


def test_import_of_a_folder_of_database_json_files(tmp_path):
    seed = tmp_path / "rtdb"
    seed.mkdir()
    (seed / f"{PROJECT}-default-rtdb.json").write_text(json.dumps({"a": {"b": 1, ".priority": "p"}}))
    (seed / "second-ns.json").write_text(json.dumps({"c": True}))
    hearth = Hearth(tmp_path, "--import", "rtdb")
    try:
        database = hearth.urls["database"]
        assert requests.get(f"{database}/.json?ns={PROJECT}-default-rtdb&format=export").json() == {
            "a": {"b": 1, ".priority": "p"}}
        assert requests.get(f"{database}/c.json?ns=second-ns").json() is True
    finally:
        hearth.stop()


# --------------------------------------------------------------------------------------------
# The hub and the Firestore endpoint


def test_hub_export_is_refused_to_browser_pages(tmp_path):
    hearth = Hearth(tmp_path)
    try:
        answer = requests.post(hearth.urls["hub"] + "/_admin/export", json={"path": str(tmp_path / "x")},
                               headers={"Origin": "http://localhost:3000"})
        assert answer.status_code == 403
        assert answer.json() == {"message": "Export cannot be triggered by external callers."}
        assert not (tmp_path / "x").exists()
        # firebase-tools names every emulator firebase.json configures; those without data are left out.
        ok = requests.post(hearth.urls["hub"] + "/_admin/export", json={
            "path": str(tmp_path / "y"), "initiatedBy": "test", "targets": ["firestore", "functions", "hosting"]})
        assert ok.status_code == 200 and ok.json() == {"message": "OK"}
        assert set(json.loads((tmp_path / "y/firebase-export-metadata.json").read_text())) == {"version", "firestore"}
        bad = requests.post(hearth.urls["hub"] + "/_admin/export", json={"path": str(tmp_path / "z"), "targets": [1]})
        assert bad.status_code == 400
    finally:
        hearth.stop()


def test_firestore_export_endpoint_writes_the_managed_export_layout(tmp_path):
    hearth = Hearth(tmp_path)
    try:
        hearth.seed()
        answer = requests.post(f"{hearth.urls['firestore']}/emulator/v1/projects/{PROJECT}:export", headers=OWNER, json={
            "database": f"projects/{PROJECT}/databases/(default)", "export_directory": str(tmp_path),
            "export_name": "fs"})
        assert answer.status_code == 200, answer.text
        assert answer.json() == {}
        assert (tmp_path / "fs/fs.overall_export_metadata").is_file()
        assert (tmp_path / "fs/all_namespaces/all_kinds/output-0").is_file()
        again = requests.post(f"{hearth.urls['firestore']}/emulator/v1/projects/{PROJECT}:export", headers=OWNER, json={
            "export_directory": str(tmp_path), "export_name": "fs"})
        assert again.status_code == 400
    finally:
        hearth.stop()


# --------------------------------------------------------------------------------------------
# Google's official Firestore emulator: the proof of the format, both ways


def golden_documents(case: str) -> list[dict]:
    return json.loads((GOLDEN / f"{case}.documents.json").read_text())["documents"]


def key(name: str) -> str:
    """`path@database` of a document name."""
    return name.split("/documents/", 1)[1] + "@" + name.split("/")[3]


def served(documents: list[dict]) -> dict[str, dict]:
    """The recorded documents' fields by `key`."""
    return {key(document["name"]): document.get("fields", {}) for document in documents}


def read_documents(base: str, documents: list[dict], project: str) -> dict[str, dict]:
    """The same documents as `base` serves them now (a status where it does not)."""
    result = {}
    for document in documents:
        name = document["name"].replace(document["name"].split("/")[1], project, 1)
        answer = requests.get(f"{base}/v1/{name}", headers=OWNER)
        result[key(name)] = answer.json().get("fields", {}) if answer.status_code == 200 else answer.status_code
    return result


@pytest.mark.parametrize("case", ["all-types", "named-db"])
def test_an_export_the_official_emulator_wrote_imports_identically(tmp_path, case):
    documents = golden_documents(case)
    hearth = Hearth(tmp_path, "--only", "firestore", "--import", str(GOLDEN / case / "firestore_export"),
                    project="demo-hearth")
    try:
        got = read_documents(hearth.urls["firestore"], documents, "demo-hearth")
    finally:
        hearth.stop()
    assert got == served(documents)


@pytest.mark.parametrize("case", ["all-types", "named-db"])
def test_an_export_hearth_wrote_imports_into_the_official_emulator_identically(tmp_path, case):
    documents = golden_documents(case)
    hearth = Hearth(tmp_path, "--only", "firestore", "--import", str(GOLDEN / case / "firestore_export"),
                    project="demo-hearth")
    try:
        result = run_hearth("export", "out", "--project", "demo-hearth", cwd=tmp_path, timeout=60)
        assert result.returncode == 0, result.stderr
    finally:
        hearth.stop()
    if not official_firestore.installed():
        pytest.skip(f"the official Firestore emulator is not installed ({official_firestore.EMU_JAR})")
    official = official_firestore.Emulator(
        ["--import-data", str(tmp_path / "out/firestore_export/firestore_export.overall_export_metadata")])
    with official:
        got = read_documents(official.base, documents, "demo-hearth")
    assert got == served(documents)
