"""The Emulator Hub and the `hearth start` / `hearth exec` command-line contract.

The hub is checked on the suite under test. The CLI tests start their own hearth processes (the binary
from $HEARTH_BIN or .build) on free ports, in scratch folders, and stop each one by PID.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from support import (
    READY_LINE,
    RunningHearth,
    clean_environment,
    decode_jwt,
    hearth_binary,
    port_accepts,
    run_hearth,
    split_address,
)

FREE_PORTS = ["--port", "auth=0", "--port", "firestore=0", "--port", "database=0", "--port", "storage=0", "--port", "hub=0"]
# Variables of emulators that a `--only auth` run does not start.
OTHER_EMULATOR_VARIABLES = (
    "FIRESTORE_EMULATOR_HOST", "FIREBASE_DATABASE_EMULATOR_HOST", "FIREBASE_STORAGE_EMULATOR_HOST",
    "STORAGE_EMULATOR_HOST")
# What the child of `hearth exec` runs: dump its environment to argv[1], then check the ports it was given.
DUMP_ENV = (
    "import json, os, socket, sys\n"
    "env = dict(os.environ)\n"
    "reachable = {}\n"
    "for name in ('FIREBASE_AUTH_EMULATOR_HOST', 'FIRESTORE_EMULATOR_HOST', 'FIREBASE_STORAGE_EMULATOR_HOST',\n"
    "             'FIREBASE_DATABASE_EMULATOR_HOST', 'FIREBASE_EMULATOR_HUB'):\n"
    "    if name not in env: continue\n"
    "    host, _, port = env.get(name, ':0').rpartition(':')\n"
    "    try:\n"
    "        socket.create_connection((host.strip('[]'), int(port)), timeout=2).close(); reachable[name] = True\n"
    "    except Exception:\n"
    "        reachable[name] = False\n"
    "json.dump({'env': env, 'reachable': reachable}, open(sys.argv[1], 'w'))\n"
)


def run_exec(args: list[str], command: list[str], cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    return run_hearth("exec", *args, "--", *command, cwd=cwd, timeout=timeout)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.strip()]


# --------------------------------------------------------------------------------------------
# Hub


def test_hub_root(suite):
    response = requests.get(suite.hub_url + "/", timeout=5)
    assert response.status_code == 200, response.text
    body = response.json()
    host, port = split_address(suite.hub_host)
    assert body["port"] == port
    assert body["host"] == host
    assert f"http://{suite.hub_host}" in body["origins"]
    assert isinstance(body["version"], str) and body["version"]
    assert isinstance(body["pid"], int)


def test_hub_lists_running_emulators_with_real_ports(suite):
    response = requests.get(suite.hub_url + "/emulators", timeout=5)
    assert response.status_code == 200, response.text
    body = response.json()
    assert {"auth", "firestore", "database", "storage", "hub"} <= set(body), body
    for name, address in (
        ("auth", suite.auth_host), ("firestore", suite.firestore_host), ("database", suite.database_host),
        ("storage", suite.storage_host), ("hub", suite.hub_host),
    ):
        entry = body[name]
        host, port = split_address(address)
        assert entry["name"] == name
        assert entry["host"] == host
        assert entry["port"] == port
        # As firebase-tools with its default host: every address `localhost` may resolve to.
        assert entry["listen"] == [
            {"address": host, "family": "IPv4", "port": port}, {"address": "::1", "family": "IPv6", "port": port},
        ], entry
    for absent in ("ui",):
        assert absent not in body, f"{absent} does not run, so the hub does not list it"


def ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
        return True
    except OSError:
        return False


@pytest.mark.skipif(not ipv6_loopback(), reason="this machine has no IPv6 loopback (::1)")
def test_every_emulator_also_answers_on_ipv6_loopback(suite, monkeypatch):
    """A client that resolves `localhost` to ::1 first (Node 17+, many macOS set-ups) reaches every emulator
    on the same port: HTTP/1.1, gRPC (HTTP/2 on the same port) and the Realtime Database's WebSocket."""
    from google.cloud import firestore
    import websocket

    for name, address in (
        ("auth", suite.auth_host), ("firestore", suite.firestore_host), ("database", suite.database_host),
        ("storage", suite.storage_host), ("hub", suite.hub_host),
    ):
        port = split_address(address)[1]
        response = requests.get(f"http://[::1]:{port}/", timeout=5)
        assert response.status_code < 500, (name, response.status_code, response.text)
    firestore_port = split_address(suite.firestore_host)[1]
    monkeypatch.setenv("FIRESTORE_EMULATOR_HOST", f"[::1]:{firestore_port}")
    client = firestore.Client(project=suite.project_id)
    document = client.collection("ipv6").document("one")
    document.set({"over": "::1"})
    assert document.get().to_dict() == {"over": "::1"}
    database_port = split_address(suite.database_host)[1]
    connection = websocket.create_connection(f"ws://[::1]:{database_port}/.ws?v=5&ns=ipv6", timeout=5)
    try:
        assert json.loads(connection.recv())["t"] == "c"  # the hello
    finally:
        connection.close()


def test_hub_unknown_path_is_404(suite):
    assert requests.get(suite.hub_url + "/no-such-thing", timeout=5).status_code == 404


# --------------------------------------------------------------------------------------------
# hearth start


def test_start_prints_table_and_ready_line_and_stops_on_sigint(tmp_path):
    hearth = RunningHearth(FREE_PORTS, cwd=tmp_path)
    try:
        hearth.wait_ready()
        addresses = hearth.addresses
        # `start` serves the Emulator UI too (4000, or a free port when 4000 is taken), as emulators:start does.
        assert set(addresses) == {"Authentication", "Firestore", "Database", "Storage", "Emulator Hub", "Emulator UI"}, (
            hearth.output())
        assert any(line.startswith("i  View Emulator UI at http://127.0.0.1:") for line in hearth.stdout_lines)
        for address in addresses.values():
            host, port = split_address(address)
            assert host == "127.0.0.1"
            assert port != 0, "port 0 is shown as the port actually picked"
            assert port_accepts(host, port)
        ready = [line for line in hearth.stdout_lines if READY_LINE in line]
        assert len(ready) == 1
        table_end = max(i for i, line in enumerate(hearth.stdout_lines) if "│" in line or "└" in line)
        assert hearth.stdout_lines.index(ready[0]) > table_end, "the ready line comes after the table"
    finally:
        code = hearth.stop(signal.SIGINT)
    assert code == 0, hearth.output()
    for address in addresses.values():
        assert not port_accepts(*split_address(address)), f"{address} still open after shutdown"


def test_start_stops_cleanly_on_sigterm(tmp_path):
    hearth = RunningHearth(FREE_PORTS, cwd=tmp_path)
    try:
        hearth.wait_ready()
    finally:
        code = hearth.stop(signal.SIGTERM)
    assert code == 0, hearth.output()


def test_start_reads_emulator_json_from_the_working_directory(tmp_path):
    (tmp_path / "emulator.json").write_text(
        json.dumps({"projectId": "demo-fromfile", "host": "127.0.0.1", "emulators": {"auth": {"port": 0}, "hub": {"port": 0}}})
    )
    hearth = RunningHearth([], cwd=tmp_path)
    try:
        hearth.wait_ready()
        hub = hearth.addresses["Emulator Hub"]
        auth = hearth.addresses["Authentication"]
        emulators = requests.get(f"http://{hub}/emulators", timeout=5).json()
        assert emulators["auth"]["port"] == split_address(auth)[1]
        # The project from the file is the default project of the Auth emulator.
        response = requests.post(
            f"http://{auth}/identitytoolkit.googleapis.com/v1/accounts:signUp", params={"key": "k"}, json={}, timeout=5
        )
        assert response.status_code == 200, response.text
        payload = decode_jwt(response.json()["idToken"])[1]
        assert payload["aud"] == "demo-fromfile"
    finally:
        assert hearth.stop() == 0, hearth.output()


def test_start_falls_back_to_firebase_json(tmp_path):
    (tmp_path / "firebase.json").write_text(
        json.dumps({"emulators": {
            "auth": {"port": 0}, "hub": {"port": 0}, "functions": {"port": 5001}, "hosting": {"port": 5000},
            "singleProjectMode": True,
        }})
    )
    (tmp_path / ".firebaserc").write_text(json.dumps({"projects": {"default": "demo-firebasejson"}}))
    result = run_exec([], [sys.executable, "-c", DUMP_ENV, str(tmp_path / "env.json")], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    env = json.loads((tmp_path / "env.json").read_text())["env"]
    assert env["GCLOUD_PROJECT"] == "demo-firebasejson"
    assert split_address(env["FIREBASE_AUTH_EMULATOR_HOST"])[1] != 0
    # The emulators it does not run are named once, not ignored in silence.
    named = [line for line in result.stderr.splitlines() if "Not emulated" in line]
    assert named == ["⚠  Not emulated by Hearth: functions, hosting (set up in firebase.json)."], result.stderr


def test_port_in_use_is_one_error_line(tmp_path):
    blocker = socket.socket()
    blocker.bind(("127.0.0.1", 0))
    blocker.listen()
    port = blocker.getsockname()[1]
    try:
        result = run_hearth(
            "start", "--port", f"auth={port}", "--port", "firestore=0", "--port", "database=0", "--port", "storage=0",
            "--port", "hub=0",
            cwd=tmp_path)
    finally:
        blocker.close()
    assert result.returncode != 0
    assert READY_LINE not in result.stdout
    lines = error_lines(result.stderr)
    assert len(lines) == 1, result.stderr
    assert str(port) in lines[0], lines[0]


@pytest.mark.parametrize(
    "config, expected",
    [
        ({"projectId": "demo-x", "emulators": {"auth": {"port": 0, "bogus": 1}}}, "bogus"),
        ({"projectId": "demo-x", "surprise": True}, "surprise"),
        ({"projectId": "demo-x", "emulators": {"auth": {"port": "ninety"}}}, "port"),
        ({"projectId": "demo-x", "emulators": {"auth": {"port": 70000}}}, "port"),
        ({"projectId": "demo-x", "emulators": {"nosuchemulator": {"port": 1}}}, "nosuchemulator"),
        ({"projectId": 42}, "projectId"),
        ("{not json", "emulator.json"),
    ],
    ids=["unknown-emulator-key", "unknown-top-key", "port-not-number", "port-out-of-range", "unknown-emulator",
         "project-not-string", "invalid-json"],
)
def test_bad_config_is_one_error_line(tmp_path, config, expected):
    text = config if isinstance(config, str) else json.dumps(config)
    (tmp_path / "emulator.json").write_text(text)
    result = run_hearth("start", *FREE_PORTS, cwd=tmp_path)
    assert result.returncode != 0
    assert READY_LINE not in result.stdout
    lines = error_lines(result.stderr)
    assert len(lines) == 1, result.stderr
    assert expected in lines[0], lines[0]


@pytest.mark.parametrize(
    "args, expected",
    [
        (["--only", "nosuch"], "nosuch"),
        (["--port", "auth=notaport"], "auth=notaport"),
        (["--port", "nosuch=1"], "nosuch"),
        (["--project", "bad project id"], "project"),
    ],
    ids=["unknown-only", "bad-port-value", "unknown-port-name", "bad-project"],
)
def test_bad_options_are_one_error_line(tmp_path, args, expected):
    result = run_hearth("start", *FREE_PORTS, *args, cwd=tmp_path)
    assert result.returncode != 0
    lines = error_lines(result.stderr)
    assert len(lines) == 1, result.stderr
    assert expected in lines[0], lines[0]


# --------------------------------------------------------------------------------------------
# hearth exec


def test_exec_gives_the_official_environment_for_running_emulators_only(tmp_path):
    out = tmp_path / "env.json"
    result = run_exec([*FREE_PORTS, "--project", "demo-execenv"], [sys.executable, "-c", DUMP_ENV, str(out)], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    dumped = json.loads(out.read_text())
    env = dumped["env"]
    assert env["GCLOUD_PROJECT"] == "demo-execenv"
    auth_host, auth_port = split_address(env["FIREBASE_AUTH_EMULATOR_HOST"])
    hub_host, hub_port = split_address(env["FIREBASE_EMULATOR_HUB"])
    assert "//" not in env["FIREBASE_AUTH_EMULATOR_HOST"], "firebase-admin rejects a scheme here"
    assert auth_host == hub_host == "127.0.0.1"
    assert auth_port != 0 and hub_port != 0
    assert dumped["reachable"] == {
        "FIREBASE_AUTH_EMULATOR_HOST": True, "FIRESTORE_EMULATOR_HOST": True, "FIREBASE_STORAGE_EMULATOR_HOST": True,
        "FIREBASE_DATABASE_EMULATOR_HOST": True, "FIREBASE_EMULATOR_HUB": True}
    assert "//" not in env["FIRESTORE_EMULATOR_HOST"]
    # google-cloud-storage wants the scheme, the Firebase SDKs do not (as `firebase emulators:exec` sets them).
    assert env["STORAGE_EMULATOR_HOST"] == f"http://{env['FIREBASE_STORAGE_EMULATOR_HOST']}"
    assert json.loads(env["FIREBASE_CONFIG"])["storageBucket"] == "demo-execenv.appspot.com"
    assert json.loads(env["FIREBASE_CONFIG"])["projectId"] == "demo-execenv"
    assert json.loads(env["FIREBASE_CONFIG"])["databaseURL"] == (
        f"http://{env['FIREBASE_DATABASE_EMULATOR_HOST']}/?ns=demo-execenv-default-rtdb")
    # The suite is stopped once the command has ended.
    assert not port_accepts(auth_host, auth_port)
    assert not port_accepts(hub_host, hub_port)


def test_exec_sets_variables_only_for_running_emulators(tmp_path):
    out = tmp_path / "env.json"
    result = run_exec(["--only", "auth", "--port", "auth=0", "--port", "hub=0"], [sys.executable, "-c", DUMP_ENV, str(out)],
                      cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    env = json.loads(out.read_text())["env"]
    assert "FIREBASE_AUTH_EMULATOR_HOST" in env
    for name in OTHER_EMULATOR_VARIABLES:
        assert name not in env, f"{name} is set although that emulator does not run"
    assert "databaseURL" not in json.loads(env["FIREBASE_CONFIG"])


HUB_AND_UI = (
    "import json, os, sys, urllib.request\n"
    "emulators = json.load(urllib.request.urlopen('http://' + os.environ['FIREBASE_EMULATOR_HUB'] + '/emulators'))\n"
    "page = None\n"
    "if 'ui' in emulators:\n"
    "    with urllib.request.urlopen(f\"http://{emulators['ui']['host']}:{emulators['ui']['port']}/\") as answer:\n"
    "        page = answer.headers['Content-Type']\n"
    "json.dump({'emulators': sorted(emulators), 'page': page}, open(sys.argv[1], 'w'))\n"
)


def test_exec_serves_the_emulator_ui_only_with_ui(tmp_path):
    out = tmp_path / "hub.json"
    for flags, expected in (([], None), (["--ui", "--port", "ui=0"], "text/html; charset=utf-8")):
        result = run_exec([*FREE_PORTS, *flags], [sys.executable, "-c", HUB_AND_UI, str(out)], cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        dumped = json.loads(out.read_text())
        assert ("ui" in dumped["emulators"]) == (expected is not None), (flags, dumped)
        assert dumped["page"] == expected


def test_exec_keeps_the_callers_environment(tmp_path):
    out = tmp_path / "env.json"
    env = clean_environment()
    env["HEARTH_CONFORMANCE_MARKER"] = "kept"
    result = run_hearth("exec", *FREE_PORTS, "--", sys.executable, "-c", DUMP_ENV, str(out), cwd=tmp_path, env=env,
                        timeout=60)
    assert result.returncode == 0, result.stderr
    assert json.loads(out.read_text())["env"]["HEARTH_CONFORMANCE_MARKER"] == "kept"


@pytest.mark.parametrize(
    "command, expected",
    [
        (["sh", "-c", "exit 0"], 0),
        (["sh", "-c", "exit 7"], 7),
        (["sh", "-c", "exit 255"], 255),
        (["sh", "-c", "kill -TERM $$"], 128 + signal.SIGTERM),
        (["sh", "-c", "kill -KILL $$"], 128 + signal.SIGKILL),
        (["sh", "-c", "kill -INT $$"], 128 + signal.SIGINT),
    ],
    ids=["exit-0", "exit-7", "exit-255", "sigterm", "sigkill", "sigint"],
)
def test_exec_exit_code_is_the_commands(tmp_path, command, expected):
    result = run_exec(FREE_PORTS, command, cwd=tmp_path)
    assert result.returncode == expected, result.stderr


def test_exec_command_starts_with_default_signal_handling(tmp_path):
    """The command must be stoppable like any other process: no signals blocked or ignored on its
    behalf (a blocked SIGINT would make Ctrl-C of a test runner under `hearth exec` do nothing)."""
    out = tmp_path / "status"
    dump = f"import shutil; shutil.copy('/proc/self/status', {str(out)!r})"
    result = run_exec(FREE_PORTS, [sys.executable, "-c", dump], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    status = dict(line.split(":\t", 1) for line in out.read_text().splitlines() if ":\t" in line)
    blocked = int(status["SigBlk"], 16)
    ignored = int(status["SigIgn"], 16)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        assert not blocked & (1 << (sig - 1)), f"{sig.name} is blocked in the command (SigBlk {status['SigBlk']})"
        assert not ignored & (1 << (sig - 1)), f"{sig.name} is ignored in the command (SigIgn {status['SigIgn']})"


def test_exec_stops_the_suite_when_the_command_fails(tmp_path):
    marker = tmp_path / "hosts"
    script = f"echo $FIREBASE_AUTH_EMULATOR_HOST $FIREBASE_EMULATOR_HUB > {marker}; exit 3"
    result = run_exec(FREE_PORTS, ["sh", "-c", script], cwd=tmp_path)
    assert result.returncode == 3, result.stderr
    for address in marker.read_text().split():
        assert not port_accepts(*split_address(address)), f"{address} still open"


def test_exec_of_a_missing_command_fails_and_stops_the_suite(tmp_path):
    result = run_exec(FREE_PORTS, [str(tmp_path / "no-such-command")], cwd=tmp_path)
    assert result.returncode != 0


def test_exec_forwards_sigterm_to_the_command(tmp_path):
    """Stopping `hearth exec` stops the command; the command's fate is the exit code."""
    started = tmp_path / "started"
    process = subprocess.Popen(
        [str(hearth_binary()), "exec", *FREE_PORTS, "--", "sh", "-c", f"touch {started}; exec sleep 30"],
        cwd=str(tmp_path), env=clean_environment(), stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while not started.exists():
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "command never started"
            time.sleep(0.05)
        os.kill(process.pid, signal.SIGTERM)
        process.wait(timeout=15)
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 128 + signal.SIGTERM, process.communicate()


def test_exec_without_a_command_is_a_usage_error(tmp_path):
    result = run_hearth("exec", *FREE_PORTS, cwd=tmp_path)
    assert result.returncode != 0
    assert READY_LINE not in result.stdout + result.stderr


def test_start_in_the_repo_root_serves_the_chat_apps_three_rules_files():
    """`hearth start` in the repository root: emulator.json's firestore.rules, storage.rules and
    database.rules.json (the chat app's) are in force, on the free ports the options give."""
    from firestore_support import id_token

    root = Path(__file__).resolve().parent.parent
    hearth = RunningHearth(FREE_PORTS, cwd=root)
    try:
        hearth.wait_ready()
        project = "demo-hearth"
        alice = {"Authorization": f"Bearer {id_token('alice', project)}"}
        firestore = f"http://{hearth.addresses['Firestore']}/v1/projects/{project}/databases/(default)/documents"
        # users/{uid}: signed-in users read (a missing profile is a 404), nobody else does.
        assert requests.get(f"{firestore}/users/bob", headers=alice, timeout=5).status_code == 404
        denied = requests.get(f"{firestore}/users/bob", timeout=5)
        assert denied.status_code == 403 and denied.json()["error"]["status"] == "PERMISSION_DENIED", denied.text
        # Storage: a document must be a PDF of a conversation alice is in (there is none).
        storage = f"http://{hearth.addresses['Storage']}/v0/b/{project}.appspot.com/o"
        upload = requests.post(
            storage, params={"name": "documents/c1/m1/document.pdf"}, data=b"%PDF-1.7\n",
            headers={**{"Authorization": alice["Authorization"].replace("Bearer", "Firebase")},
                     "Content-Type": "application/pdf"}, timeout=5)
        assert upload.status_code == 403, upload.text
        # Realtime Database (<project>-default-rtdb): presence is written by its own user only.
        database = f"http://{hearth.addresses['Database']}"
        ns = {"ns": f"{project}-default-rtdb"}
        token = id_token("alice", project)
        assert requests.put(f"{database}/presence/alice.json", params={**ns, "auth": token}, json={"online": True},
                            timeout=5).status_code == 200
        assert requests.put(f"{database}/presence/bob.json", params={**ns, "auth": token}, json={"online": True},
                            timeout=5).status_code == 401
        assert requests.get(f"{database}/presence.json", params=ns, timeout=5).status_code == 401
    finally:
        assert hearth.stop() == 0, hearth.output()
