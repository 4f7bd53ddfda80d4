"""Helpers the conformance tests share: running hearth, calling the Auth emulator over REST, JWTs and
Google error envelopes. Fixtures live in conftest.py."""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import socket
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

REPO_ROOT = Path(__file__).resolve().parent.parent
READY_LINE = "All emulators ready! It is now safe to connect your app."
API_KEY = "fake-api-key"
CUSTOM_TOKEN_AUDIENCE = (
    "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
)
# Table rows look like "│ Authentication │ 127.0.0.1:9099 │".
TABLE_ROW = re.compile(r"│\s*(?P<name>[^│]+?)\s*│\s*(?P<address>\S+:\d+)\s*│")


# --------------------------------------------------------------------------------------------
# Locating and running the binary


def hearth_binary() -> Path:
    """The hearth executable the tests run: $HEARTH_BIN, else the release build, else the debug build."""
    explicit = os.environ.get("HEARTH_BIN")
    if explicit:
        path = Path(explicit)
        if not path.is_absolute():
            path = REPO_ROOT / path
        if not os.access(path, os.X_OK):
            raise pytest.UsageError(f"HEARTH_BIN={explicit} is not an executable file")
        return path
    for candidate in (REPO_ROOT / ".build/release/hearth", REPO_ROOT / ".build/debug/hearth"):
        if os.access(candidate, os.X_OK):
            return candidate
    raise pytest.UsageError(
        "no hearth binary: set HEARTH_BIN or build one (swift build -c release --product hearth)"
    )


def clean_environment() -> dict[str, str]:
    """This process's environment without the variables an outer `hearth exec` set, so a child
    hearth's own environment can be checked for exactly what it adds."""
    env = dict(os.environ)
    for name in (
        "FIREBASE_AUTH_EMULATOR_HOST",
        "FIRESTORE_EMULATOR_HOST",
        "FIREBASE_DATABASE_EMULATOR_HOST",
        "FIREBASE_STORAGE_EMULATOR_HOST",
        "STORAGE_EMULATOR_HOST",
        "FIREBASE_EMULATOR_HUB",
        "GCLOUD_PROJECT",
        "FIREBASE_CONFIG",
    ):
        env.pop(name, None)
    return env


def run_hearth(*args: str, cwd: Path | str, env: dict[str, str] | None = None,
               timeout: float = 30) -> subprocess.CompletedProcess:
    """Runs the hearth binary to completion with `args` (no stdin, output captured as text), in a clean
    environment unless `env` is given."""
    return subprocess.run(
        [str(hearth_binary()), *args],
        cwd=str(cwd),
        env=clean_environment() if env is None else env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def port_accepts(host: str, port: int, timeout: float = 0.5) -> bool:
    """Whether a TCP connection to host:port succeeds."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def split_address(address: str) -> tuple[str, int]:
    """"127.0.0.1:9099" or "[::1]:9099" → (host, port)."""
    host, _, port = address.rpartition(":")
    return host.strip("[]"), int(port)


class RunningHearth:
    """A `hearth start` child process, read until its ready line; stopped by PID."""

    def __init__(self, args: list[str], cwd: Path | str = REPO_ROOT, env: dict[str, str] | None = None):
        self.args = [str(hearth_binary()), "start", *args]
        self.process = subprocess.Popen(
            self.args,
            cwd=str(cwd),
            env=env if env is not None else clean_environment(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.stdout_lines: list[str] = []
        self.stderr_lines: list[str] = []
        self._ready = threading.Event()
        self._readers = [
            threading.Thread(target=self._pump, args=(self.process.stdout, self.stdout_lines, True), daemon=True),
            threading.Thread(target=self._pump, args=(self.process.stderr, self.stderr_lines, False), daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    def _pump(self, stream, lines: list[str], watch_ready: bool) -> None:
        for line in stream:
            lines.append(line.rstrip("\n"))
            if watch_ready and READY_LINE in line:
                self._ready.set()

    def wait_ready(self, timeout: float = 30.0) -> None:
        """Waits for the ready line; fails with the output if the process exits or times out first."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._ready.wait(0.05):
                return
            if self.process.poll() is not None:
                time.sleep(0.1)  # let the readers drain
                raise AssertionError(
                    f"hearth exited with {self.process.returncode} before it was ready:\n" + self.output()
                )
        raise AssertionError(f"hearth not ready after {timeout} s:\n" + self.output())

    @property
    def addresses(self) -> dict[str, str]:
        """Display name → "host:port", from the table printed before the ready line."""
        result = {}
        for line in self.stdout_lines:
            match = TABLE_ROW.search(line)
            if match and match.group("name") not in ("Emulator",):
                result[match.group("name")] = match.group("address")
        return result

    def output(self) -> str:
        return "stdout:\n" + "\n".join(self.stdout_lines) + "\nstderr:\n" + "\n".join(self.stderr_lines)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15.0) -> int:
        """Sends `sig` to the process (by PID) and returns its exit code."""
        if self.process.poll() is None:
            os.kill(self.process.pid, sig)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait()
                raise AssertionError(f"hearth did not exit within {timeout} s of signal {sig}")
        for reader in self._readers:
            reader.join(2)
        return self.process.returncode


# --------------------------------------------------------------------------------------------
# The suite under test


@dataclass(frozen=True)
class Suite:
    """Where the suite under test listens."""

    auth_host: str  # "127.0.0.1:9099", as in FIREBASE_AUTH_EMULATOR_HOST
    hub_host: str  # as in FIREBASE_EMULATOR_HUB
    project_id: str
    firestore_host: str = ""  # as in FIRESTORE_EMULATOR_HOST
    storage_host: str = ""  # as in FIREBASE_STORAGE_EMULATOR_HOST
    database_host: str = ""  # as in FIREBASE_DATABASE_EMULATOR_HOST

    @property
    def database_url(self) -> str:
        return f"http://{self.database_host}"

    @property
    def firestore_url(self) -> str:
        return f"http://{self.firestore_host}"

    @property
    def auth_url(self) -> str:
        return f"http://{self.auth_host}"

    @property
    def hub_url(self) -> str:
        return f"http://{self.hub_host}"


# --------------------------------------------------------------------------------------------
# REST helpers (the wire as the JS / iOS SDKs use it)


class Rest:
    """Calls the Auth emulator the way the client SDKs do: the production host as first path segment,
    `?key=` API key, JSON bodies."""

    def __init__(self, suite: Suite):
        self.suite = suite
        self.base = suite.auth_url
        self.http = requests.Session()

    def url(self, path: str) -> str:
        return self.base + path

    def post(self, path: str, body=None, *, key: str | None = API_KEY, headers=None, **kwargs) -> requests.Response:
        params = {"key": key} if key is not None else None
        return self.http.post(self.url(path), params=params, json=body, headers=headers, timeout=10, **kwargs)

    def accounts(self, op: str, body=None, **kwargs) -> requests.Response:
        """POST /identitytoolkit.googleapis.com/v1/accounts:<op>?key=…"""
        return self.post(f"/identitytoolkit.googleapis.com/v1/accounts:{op}", body if body is not None else {}, **kwargs)

    def admin(self, method: str, path: str, body=None, **kwargs) -> requests.Response:
        """An Admin-SDK style call: /identitytoolkit.googleapis.com/v1/projects/{p}/<path> with Bearer owner."""
        url = self.url(f"/identitytoolkit.googleapis.com/v1/projects/{self.suite.project_id}/{path}")
        return self.http.request(
            method, url, json=body, headers={"Authorization": "Bearer owner"}, timeout=10, **kwargs
        )

    def emulator(self, method: str, path: str, body=None) -> requests.Response:
        """/emulator/v1/projects/{p}/<path> (emulator-only endpoints, no auth)."""
        url = self.url(f"/emulator/v1/projects/{self.suite.project_id}/{path}")
        return self.http.request(method, url, json=body, timeout=10)

    def refresh(self, refresh_token: str) -> requests.Response:
        """The Secure Token refresh exactly as the JS SDK sends it: form-encoded."""
        return self.http.post(
            self.url("/securetoken.googleapis.com/v1/token"),
            params={"key": API_KEY},
            data={"grant_type": "refresh_token", "refresh_token": refresh_token},
            headers={"Content-Type": "application/x-www-form-urlencoded"},
            timeout=10,
        )

    # Flows used by many tests ---------------------------------------------------------------

    def sign_up(self, email: str, password: str = "secret12", **extra) -> dict:
        response = self.accounts("signUp", {"email": email, "password": password, "returnSecureToken": True, **extra})
        assert response.status_code == 200, response.text
        return response.json()

    def sign_in(self, email: str, password: str = "secret12") -> dict:
        response = self.accounts(
            "signInWithPassword", {"email": email, "password": password, "returnSecureToken": True}
        )
        assert response.status_code == 200, response.text
        return response.json()

    def oob_codes(self) -> list[dict]:
        response = self.emulator("GET", "oobCodes")
        assert response.status_code == 200, response.text
        return response.json()["oobCodes"]

    def latest_oob(self, email: str, request_type: str) -> dict:
        codes = [c for c in self.oob_codes() if c.get("email") == email and c.get("requestType") == request_type]
        assert codes, f"no {request_type} code for {email} in /oobCodes"
        return codes[-1]



def b64url_decode(segment: str) -> bytes:
    return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))


def decode_jwt(token: str | bytes) -> tuple[dict, dict, str]:
    """(header, payload, signature) of a JWT, without verifying anything."""
    if isinstance(token, bytes):
        token = token.decode()
    parts = token.split(".")
    assert len(parts) == 3, f"a JWT has 3 segments, got {len(parts)}: {token!r}"
    return json.loads(b64url_decode(parts[0])), json.loads(b64url_decode(parts[1])), parts[2]


def google_error(response: requests.Response, status: int, message: str) -> dict:
    """Asserts the Google error envelope `{"error":{"code","message","errors":[…]}}` and returns `error`."""
    assert response.status_code == status, f"expected {status} {message}, got {response.status_code}: {response.text}"
    assert response.headers.get("Content-Type", "").startswith("application/json"), response.headers
    body = response.json()
    assert set(body) == {"error"}, body
    error = body["error"]
    assert error["code"] == status, body
    assert error["message"] == message, body
    assert isinstance(error.get("errors"), list) and error["errors"], body
    return error


def bad_request(response: requests.Response, message: str) -> dict:
    """The exact production shape of a 400: no `status`, one error with reason invalid, domain global."""
    error = google_error(response, 400, message)
    assert error["errors"] == [{"message": message, "reason": "invalid", "domain": "global"}], error
    assert "status" not in error, error
    return error
