"""Helpers for the browser conformance tests: the Firebase JS SDK's modular builds driven in headless Chromium
(Debian's `chromium` and `chromium-driver`, Selenium from the project's .venv) against Hearth, as a web app runs.

- The SDK: the bundles the `firebase` npm package ships at its root (`firebase-app.js`, `firebase-auth.js`, …),
  from `$HEARTH_JSSDK`, else `../shared/jssdk` beside the repository. They are loaded from that folder, never
  copied into the project. Their imports of `https://www.gstatic.com/firebasejs/<version>/firebase-app.js` are
  pointed at the local file by the page's import map, so any version of the bundles works.
- The page: `page/index.html` and `page/harness.js`, served with the SDK under `/sdk/` by a small loopback
  HTTP server (ES modules do not load from file://).
- Chromium runs with `--host-resolver-rules` that fail every name but localhost and 127.0.0.1: nothing leaves
  the machine, and a probe of an outside URL fails at once instead of hanging.
- Console: every page's SEVERE console entries are read after its test; any the test did not declare it provokes
  (`Page.expect_console`, from `CONSOLE_ALLOW_LIST` below) fails the test.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shutil
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import requests

from support import REPO_ROOT, RunningHearth

PAGE_FOLDER = Path(__file__).resolve().parent / "page"
BUNDLES = ("firebase-app.js", "firebase-auth.js", "firebase-firestore.js", "firebase-database.js",
           "firebase-storage.js")
# How each page's script calls a test's code: `args` (the keyword arguments of Page.run), `fb` (the SDK's
# modules), `h` (harness.js's helpers) and `t` (the page's scratch object) are in scope.
RUNNER = """
const done = arguments[arguments.length - 1];
const args = arguments[0];
(async () => {
%s
})().then(
  (value) => done({value: value === undefined ? null : value}),
  (error) => done({error: {name: String(error && error.name), code: error && error.code ? String(error.code) : null,
                           message: String(error && error.message || error),
                           stack: String(error && error.stack || "")}}));
"""
SCRIPT_TIMEOUT = 60  # seconds one Page.run may take
# The import map page/index.html carries (for SDK 10.7.1); the server replaces it with the one the bundles need.
PAGE_IMPORT_MAP = '{"imports": {"https://www.gstatic.com/firebasejs/10.7.1/firebase-app.js": "/sdk/firebase-app.js"}}'


def jssdk_folder() -> Path:
    """The folder of the SDK bundles: $HEARTH_JSSDK (relative to the repository root), else ../shared/jssdk."""
    explicit = os.environ.get("HEARTH_JSSDK")
    if explicit:
        path = Path(explicit)
        return path if path.is_absolute() else REPO_ROOT / path
    return REPO_ROOT.parent / "shared" / "jssdk"


def missing_requirements(bundles: bool = True) -> list[str]:
    """What the browser tests need and this machine lacks, each as the reason it gives for skipping; without
    `bundles`, what the Emulator UI's tests need (no SDK)."""
    missing = []
    for tool, package in (("chromium", "chromium"), ("chromedriver", "chromium-driver")):
        if not shutil.which(tool):
            missing.append(f"{tool} is not on PATH (apt-get install {package})")
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("selenium is not installed (pip install -r conformance/requirements.txt)")
    if not bundles:
        return missing
    folder = jssdk_folder()
    absent = [name for name in BUNDLES if not (folder / name).is_file()]
    if absent:
        missing.append(f"the Firebase JS SDK bundles {', '.join(absent)} are not in {folder} (set HEARTH_JSSDK)")
    return missing


def import_map(folder: Path) -> dict:
    """The page's import map: each gstatic URL the service bundles import, pointed at the local bundle."""
    imports = {}
    for name in BUNDLES:
        if not (folder / name).is_file():
            continue  # the Emulator UI's tests run without the bundles
        text = (folder / name).read_text(encoding="utf-8", errors="replace")
        for url in set(re.findall(r"https://www\.gstatic\.com/firebasejs/[^\"'`\s]+?\.js", text)):
            imports[url] = "/sdk/" + url.rsplit("/", 1)[1]
    return {"imports": imports}


# --------------------------------------------------------------------------------------------
# Where the emulators are


@dataclass(frozen=True)
class Endpoints:
    """Where a hearth's emulators listen ("host:port" each) and the project the page's apps use."""

    project_id: str
    auth: str
    firestore: str
    database: str
    storage: str

    @property
    def bucket(self) -> str:
        return f"{self.project_id}.appspot.com"

    @property
    def database_namespace(self) -> str:
        """The default Realtime Database instance of the project, as the SDK derives it from databaseURL."""
        return f"{self.project_id}-default-rtdb"

    def page_values(self) -> dict:
        return {"projectId": self.project_id, "bucket": self.bucket,
                "databaseURL": f"https://{self.database_namespace}.firebaseio.com",
                "auth": self.auth, "firestore": self.firestore, "database": self.database, "storage": self.storage}

    def database_rest(self, path: str) -> str:
        """The REST URL of a Realtime Database path in the default namespace."""
        return f"http://{self.database}/{path.strip('/')}.json?ns={self.database_namespace}"


OPEN_FIRESTORE_RULES = """rules_version = '2';
service cloud.firestore {
  match /databases/{database}/documents {
    match /{document=**} { allow read, write: if true; }
  }
}
"""
OPEN_STORAGE_RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /{allPaths=**} { allow read, write: if true; }
  }
}
"""
OPEN_DATABASE_RULES = {"rules": {".read": True, ".write": True}}
DISPLAY_NAMES = {"auth": "Authentication", "firestore": "Firestore", "database": "Database", "storage": "Storage"}


def start_open_hearth(folder: Path, project_id: str) -> tuple[RunningHearth, Endpoints]:
    """Starts `hearth start` in `folder` on free ports (the Emulator UI's too), with an emulator.json whose rules
    allow everything."""
    (folder / "firestore.rules").write_text(OPEN_FIRESTORE_RULES)
    (folder / "storage.rules").write_text(OPEN_STORAGE_RULES)
    (folder / "database.rules.json").write_text(json.dumps(OPEN_DATABASE_RULES))
    config = {"projectId": project_id, "host": "127.0.0.1", "emulators": {
        "auth": {"port": 0}, "firestore": {"port": 0, "rules": "firestore.rules"},
        "database": {"port": 0, "rules": "database.rules.json"}, "storage": {"port": 0, "rules": "storage.rules"},
        "hub": {"port": 0}}}
    (folder / "emulator.json").write_text(json.dumps(config, indent=2))
    args = ["--config", str(folder / "emulator.json")]
    for name in (*DISPLAY_NAMES, "hub", "ui"):
        args += ["--port", f"{name}=0"]
    process = RunningHearth(args, cwd=folder)
    try:
        process.wait_ready()
        printed = process.addresses
        endpoints = Endpoints(project_id, *(printed[DISPLAY_NAMES[name]] for name in DISPLAY_NAMES))
    except BaseException:
        process.stop()
        raise
    return process, endpoints


# --------------------------------------------------------------------------------------------
# The page server


class PageServer:
    """Serves page/ at / and the SDK bundles at /sdk/ on 127.0.0.1 (a free port), with the import map filled in."""

    def __init__(self, jssdk: Path):
        page = (PAGE_FOLDER / "index.html").read_text()
        assert PAGE_IMPORT_MAP in page, "page/index.html lost its import map"
        page = page.replace(PAGE_IMPORT_MAP, json.dumps(import_map(jssdk)))
        sdk_prefix = str(PAGE_FOLDER / "sdk")

        class Handler(http.server.SimpleHTTPRequestHandler):
            def translate_path(self, path: str) -> str:
                local = super().translate_path(path)  # under PAGE_FOLDER, with ".." segments dropped
                if local == sdk_prefix or local.startswith(sdk_prefix + os.sep):
                    return str(jssdk / os.path.relpath(local, sdk_prefix))
                return local

            def do_GET(self):
                if self.path.split("?")[0] in ("/", "/index.html"):
                    body = page.encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html; charset=utf-8")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                super().do_GET()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(Handler, directory=str(PAGE_FOLDER)))
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


# --------------------------------------------------------------------------------------------
# Console entries


@dataclass(frozen=True)
class ConsoleRule:
    """A SEVERE console entry that is expected: `pattern` (a regex searched in the message) and why."""

    pattern: str
    why: str

    def matches(self, message: str) -> bool:
        return re.search(self.pattern, message) is not None


# The allow-list: SEVERE console entries a test may declare it provokes (Page.expect_console(name)), each
# investigated and none a Hearth problem. Chromium logs every HTTP answer >= 400 as "Failed to load resource" at
# SEVERE, so each refusal a test provokes on purpose shows up once; nothing is allowed on every page.
# Seen at lower levels, so not checked: the Auth SDK's INFO "You are using the Auth Emulator" banner; the
# Firestore SDK's WARNING about a Commit that failed with failed-precondition (a transaction conflict, retried);
# the Database SDK's WARNINGs "Using an unspecified index" (the server's `no_index` hint for a query on an
# un-indexed child, as production sends it) and "set at /… failed: permission_denied"; and the App SDK's WARNING
# "Firebase App named '…' already deleted", logged when the heartbeat the App SDK records in IndexedDB as a
# service connects is still being written while the test's cleanup deletes the app.
CONSOLE_ALLOW_LIST = {
    "sign-in refused": ConsoleRule(
        r"/identitytoolkit\.googleapis\.com/v1/accounts:signInWithPassword\?key=\S+ - Failed to load resource: "
        r"the server responded with a status of 400 \(Bad Request\)",
        "a sign-in with a wrong password or an unknown email is answered 400 (INVALID_PASSWORD, EMAIL_NOT_FOUND or "
        "INVALID_LOGIN_CREDENTIALS), as by the Auth emulator and production"),
    "transaction conflict": ConsoleRule(
        r"/v1/projects/\S+/documents:commit - Failed to load resource: "
        r"the server responded with a status of 400 \(Bad Request\)",
        "the commit of a transaction whose documents changed since it read them is answered 400 FAILED_PRECONDITION, "
        "as by production; the SDK then runs the transaction again"),
    "channel closed while polling": ConsoleRule(
        r"/google\.firestore\.v1\.Firestore/(Listen|Write)/channel\?\S*SID=\S* - Failed to load resource: "
        r"the server responded with a status of 400 \(Bad Request\)",
        "when the SDK ends a WebChannel session (disableNetwork, or its app deleted) while a long poll is in flight, "
        "it can send one more request with the session's ID after the terminate; the session is gone, so it is "
        "answered 400 Unknown SID, as production answers an ID it no longer knows, and the SDK has moved on"),
    "long poll after the move": ConsoleRule(
        r"/\.lp\?id=\S+ - Failed to load resource: the server responded with a status of 404 \(Not Found\)",
        "when the Database SDK moves a long-polling session to a WebSocket, a poll it sent before the move can "
        "arrive after the session was handed over; the long-polling session is gone, so it is answered 404, and the "
        "SDK carries on over the WebSocket"),
    "storage object missing": ConsoleRule(
        r"/v0/b/\S+ - Failed to load resource: the server responded with a status of 404 \(Not Found\)",
        "metadata of, or a delete of, an object that is not there is answered 404 (storage/object-not-found), as by "
        "production"),
    "storage rules refusal": ConsoleRule(
        r"/v0/b/\S+ - Failed to load resource: the server responded with a status of 403 \(Forbidden\)",
        "an upload or download storage.rules refuse is answered 403 (storage/unauthorized), as by production"),
}


# --------------------------------------------------------------------------------------------
# The browser and its pages


class PageError(Exception):
    """A script on the page rejected: the error's `code` (a FirebaseError's, e.g. "permission-denied") and text."""

    def __init__(self, error: dict):
        self.code = error.get("code")
        self.message = error.get("message")
        super().__init__(f"{error.get('name')} {self.code}: {self.message}\n{error.get('stack')}")


def chromium_options():
    from selenium import webdriver

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for argument in (
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
        "--disable-extensions", "--disable-background-networking", "--disable-component-update",
        # Every tab runs at full speed: a background tab's timers are otherwise slowed to once a second.
        "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
        "--disable-backgrounding-occluded-windows",
        # Nothing leaves the machine: WebChannel probes an outside URL, which must fail fast, not hang.
        "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost , EXCLUDE 127.0.0.1",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return options


class Browser:
    """One headless Chromium for the whole session; each test gets a fresh page (`open`)."""

    def __init__(self, server: PageServer):
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        self.server = server
        self.driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=chromium_options())
        self.driver.set_script_timeout(SCRIPT_TIMEOUT)
        self.home = self.driver.current_window_handle

    def open(self, endpoints: Endpoints) -> "Page":
        """Loads the page afresh in the main tab (closing any other tab), configured for `endpoints`, with the
        origin's storage emptied: each test is a first visit. (The SDKs keep state there across page loads: Auth's
        signed-in users, Firestore's persistent cache, and the Realtime Database's `previous_websocket_failure`
        mark in localStorage, which is set before a WebSocket opens and cleared only once it has had two answers;
        a page left earlier makes every later page connect with long polling first.)"""
        for handle in self.driver.window_handles:
            if handle != self.home:
                self.driver.switch_to.window(handle)
                self.driver.close()
        self.driver.switch_to.window(self.home)
        self.driver.get("about:blank")
        self.driver.execute_cdp_cmd("Storage.clearDataForOrigin",
                                    {"origin": self.server.url.rstrip("/"), "storageTypes": "all"})
        self.console()  # drop whatever earlier pages left
        page = Page(self, self.home, endpoints)
        page.load()
        return page

    def open_tab(self, endpoints: Endpoints, of: "Page") -> "Page":
        """A second tab with its own page (its own SDK instances), as a user opening the app twice."""
        self.driver.switch_to.new_window("tab")
        page = Page(self, self.driver.current_window_handle, endpoints, console=of.console)
        page.load()
        return page

    def console(self) -> list[dict]:
        """The console entries of every tab since the last call."""
        return self.driver.get_log("browser")

    def quit(self) -> None:
        self.driver.quit()


@dataclass
class Console:
    """What a test's pages logged at SEVERE level and which of those entries the test expects."""

    expected: list[ConsoleRule] = field(default_factory=list)
    entries: list[dict] = field(default_factory=list)

    def unexpected(self) -> list[str]:
        return [entry["message"] for entry in self.entries
                if entry["level"] == "SEVERE" and not any(rule.matches(entry["message"]) for rule in self.expected)]


class Page:
    """One tab running page/index.html; `run` executes a test's script there."""

    def __init__(self, browser: Browser, handle: str, endpoints: Endpoints, console: Console | None = None):
        self.browser = browser
        self.handle = handle
        self.endpoints = endpoints
        self.console = console or Console()

    @property
    def driver(self):
        return self.browser.driver

    def focus(self) -> None:
        if self.driver.current_window_handle != self.handle:
            self.driver.switch_to.window(self.handle)

    def load(self) -> None:
        """Loads the page (again: a reload starts the SDK afresh, keeping IndexedDB) and configures it."""
        self.focus()
        self.driver.get(self.browser.server.url)
        self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "const wait = (n) => window.harnessReady ? done(true) : n > 0 ? setTimeout(() => wait(n - 1), 10)"
            "  : done(false); wait(1500);")
        ready = self.driver.execute_script("return window.harnessReady === true")
        assert ready, "the page's modules did not load: " + repr(self.collect())
        self.driver.execute_script("h.configure(arguments[0])", self.endpoints.page_values())

    def run(self, script: str, **args):
        """Runs `script` as the body of an async function on this page and returns what it returns (JSON
        values); raises PageError if it throws."""
        self.focus()
        answer = self.driver.execute_async_script(RUNNER % script, args)
        if answer.get("error") is not None:
            raise PageError(answer["error"])
        return answer["value"]

    def expect_console(self, name: str) -> None:
        """Declares that this test provokes the SEVERE entries CONSOLE_ALLOW_LIST[name] describes."""
        self.console.expected.append(CONSOLE_ALLOW_LIST[name])

    def collect(self) -> list[dict]:
        entries = self.browser.console()
        self.console.entries += entries
        return entries

    def close_tab(self) -> None:
        """Closes this tab (as a user closing it: the page unloads, its sockets close) and returns to the first."""
        self.focus()
        self.driver.close()
        self.driver.switch_to.window(self.browser.home)

    def finish(self) -> list[str]:
        """Deletes the page's apps, leaves the page, and returns the unexpected SEVERE console entries."""
        problems = []
        try:
            self.run("await h.cleanup();")
        except Exception as error:  # a failed deleteApp is reported, not hidden
            problems.append(f"h.cleanup() failed: {error}")
        self.driver.get("about:blank")
        self.collect()
        return problems + self.console.unexpected()


# --------------------------------------------------------------------------------------------
# Python-side checks


def wait_for(condition, what: str, timeout: float = 10.0, interval: float = 0.02):
    """Polls `condition()` until it returns a truthy value (returned) or `timeout` passes (AssertionError)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


def database_get(endpoints: Endpoints, path: str):
    """A Realtime Database value read over REST as admin."""
    response = requests.get(endpoints.database_rest(path), headers={"Authorization": "Bearer owner"}, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


def database_put(endpoints: Endpoints, path: str, value) -> None:
    response = requests.put(endpoints.database_rest(path), data=json.dumps(value),
                            headers={"Authorization": "Bearer owner"}, timeout=10)
    assert response.status_code == 200, response.text
