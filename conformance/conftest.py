"""Shared fixtures for the black-box conformance tests.

The tests talk to a running hearth over loopback, the way apps and the official SDKs do:

* Under `hearth exec -- pytest conformance` (what `scripts/test` and CI do) the suite is already
  running and the environment says where: FIREBASE_AUTH_EMULATOR_HOST, FIRESTORE_EMULATOR_HOST,
  FIREBASE_EMULATOR_HUB and GCLOUD_PROJECT, exactly as the official `firebase emulators:exec` sets them.
* Run on its own (`pytest conformance`), the session starts a hearth itself on free ports
  (`hearth start --port auth=0 --port firestore=0 --port database=0 --port storage=0 --port hub=0`, with the
  repo's emulator.json but the Emulator UI off, as under exec), reads the real ports off its table, and stops it
  by PID at the end.

The hearth binary is `$HEARTH_BIN`, else `.build/release/hearth`, else `.build/debug/hearth`.
Every test makes its own users with unique emails, so tests never depend on each other or on order.
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import pytest

from support import REPO_ROOT, RunningHearth, Rest, Suite


def exec_like_config(folder: Path) -> Path:
    """The repo's emulator.json with absolute rules paths and the Emulator UI off, as under `hearth exec`
    (which serves no UI unless asked): a suite started here for the session runs what CI's does."""
    config = json.loads((REPO_ROOT / "emulator.json").read_text())
    for settings in config.get("emulators", {}).values():
        if "rules" in settings:
            settings["rules"] = str(REPO_ROOT / settings["rules"])
    config["emulators"]["ui"] = {"enabled": False}
    path = folder / "emulator.json"
    path.write_text(json.dumps(config))
    return path


@pytest.fixture(scope="session")
def suite(tmp_path_factory):
    """The running suite: from the `hearth exec` environment, else one started for this session."""
    auth = os.environ.get("FIREBASE_AUTH_EMULATOR_HOST")
    hub = os.environ.get("FIREBASE_EMULATOR_HUB")
    firestore = os.environ.get("FIRESTORE_EMULATOR_HOST")
    project = os.environ.get("GCLOUD_PROJECT")
    storage = os.environ.get("FIREBASE_STORAGE_EMULATOR_HOST")
    database = os.environ.get("FIREBASE_DATABASE_EMULATOR_HOST")
    if auth and hub and firestore and storage and database and project:
        yield Suite(
            auth_host=auth, hub_host=hub, project_id=project, firestore_host=firestore, storage_host=storage,
            database_host=database)
        return
    project = project or "demo-hearth"
    hearth = RunningHearth(
        ["--config", str(exec_like_config(tmp_path_factory.mktemp("suite"))), "--project", project, "--port", "auth=0",
         "--port", "firestore=0", "--port", "database=0", "--port", "storage=0", "--port", "hub=0"])
    try:
        hearth.wait_ready()
        addresses = hearth.addresses
        assert {"Authentication", "Firestore", "Database", "Storage", "Emulator Hub"} <= set(addresses), hearth.output()
        started = Suite(
            addresses["Authentication"], addresses["Emulator Hub"], project, addresses["Firestore"], addresses["Storage"],
            addresses["Database"])
        os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = started.auth_host
        os.environ["FIRESTORE_EMULATOR_HOST"] = started.firestore_host
        os.environ["FIREBASE_EMULATOR_HUB"] = started.hub_host
        os.environ["FIREBASE_STORAGE_EMULATOR_HOST"] = started.storage_host
        os.environ["STORAGE_EMULATOR_HOST"] = f"http://{started.storage_host}"
        os.environ["FIREBASE_DATABASE_EMULATOR_HOST"] = started.database_host
        os.environ["GCLOUD_PROJECT"] = project
        yield started
    finally:
        hearth.stop()


@pytest.fixture(scope="session")
def project_id(suite) -> str:
    return suite.project_id


@pytest.fixture(scope="session")
def admin_app(suite):
    """The default firebase_admin app, set up as the docs tell emulator users: a project id and the
    FIREBASE_AUTH_EMULATOR_HOST variable (the SDK then sends `Bearer owner` and skips credentials)."""
    import firebase_admin

    os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = suite.auth_host
    app = firebase_admin.initialize_app(options={"projectId": suite.project_id})
    yield app
    firebase_admin.delete_app(app)


@pytest.fixture(scope="session")
def rest(suite) -> Rest:
    return Rest(suite)


@pytest.fixture
def unique_email():
    """A factory of emails no other test uses: unique_email("reset") → "reset-1a2b…@example.com"."""

    def make(prefix: str = "user") -> str:
        return f"{prefix}-{uuid.uuid4().hex[:16]}@example.com"

    return make


@pytest.fixture
def unique_uid():
    def make(prefix: str = "uid") -> str:
        return f"{prefix}-{uuid.uuid4().hex[:20]}"

    return make


