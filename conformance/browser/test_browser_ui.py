"""Hearth's Emulator UI in headless Chromium: its pages load with no console error or failed request, in the
light and the dark theme (screenshots of each go to $HEARTH_UI_SCREENSHOTS, else .build/ui-screenshots), and
what is done in the UI is what the official clients see, and the other way round:

- a user added in the UI signs in over the Identity Toolkit REST API with its password and custom claims;
  one created by firebase-admin appears in the UI;
- a field edited in the UI reaches a google-cloud-firestore `on_snapshot` listener; a document a client
  writes appears in the open UI (the time it took is printed).

Needs chromium, chromedriver and selenium only (not the SDK bundles); skipped with the reason otherwise.
"""

from __future__ import annotations

import datetime
import json
import math
import os
import time
import uuid
from pathlib import Path

import firebase_admin
import pytest
import requests
from firebase_admin import auth as admin_auth
from google.auth.credentials import AnonymousCredentials
from google.cloud import firestore

from browser_support import start_open_hearth
from support import REPO_ROOT

PROJECT = "demo-browser-ui"
SCREENSHOTS = Path(os.environ.get("HEARTH_UI_SCREENSHOTS", REPO_ROOT / ".build" / "ui-screenshots"))
WAIT = 30.0


@pytest.fixture(scope="module")
def hearth(tmp_path_factory):
    """A hearth of this module's own, its Emulator UI on a free port; stopped by PID at the end."""
    process, endpoints = start_open_hearth(tmp_path_factory.mktemp("ui-hearth"), PROJECT)
    try:
        addresses = process.addresses
        assert "Emulator UI" in addresses, process.output()
        yield {"ui": f"http://{addresses['Emulator UI']}/", "addresses": addresses}
        assert process.process.poll() is None, "hearth exited during the module:\n" + process.output()
    finally:
        process.stop()


@pytest.fixture
def ui(browser, hearth):
    """The browser's main tab, its window 1400×900, the console emptied; after the test, no SEVERE entry
    (a failed request is one) may have been logged."""
    driver = browser.driver
    driver.switch_to.window(browser.home)
    driver.set_window_size(1400, 900)
    driver.get("about:blank")
    browser.console()
    yield UI(driver, hearth["ui"])
    problems = [entry["message"] for entry in browser.console() if entry["level"] == "SEVERE"]
    assert not problems, "console errors:\n" + "\n".join(problems)


class UI:
    """The UI in one tab: navigation and waiting for what it shows."""

    def __init__(self, driver, url: str):
        self.driver = driver
        self.url = url

    def open(self, route: str = "", theme: str = "light") -> None:
        self.driver.get(self.url)
        self.driver.execute_script("localStorage.setItem('hearth-theme', arguments[0])", theme)
        self.driver.get(self.url + "#/" + route)
        self.driver.refresh()
        self.wait(lambda: self.driver.execute_script(
            "return document.documentElement.dataset.theme === arguments[0]"
            " && !document.querySelector('#page').textContent.includes('Loading')", theme), f"page {route!r} loaded")

    def wait(self, condition, what: str, timeout: float = WAIT):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = condition()
            if value:
                return value
            time.sleep(0.02)
        raise AssertionError(f"not seen in {timeout} s: {what}")

    def find(self, selector: str):
        from selenium.webdriver.common.by import By

        return self.wait(lambda: self.driver.find_elements(By.CSS_SELECTOR, selector), selector)[0]

    def click(self, selector: str) -> None:
        """Clicks the element `selector` once it is there, found in the page at the click: a live redraw may
        replace it between finding and clicking it."""
        self.find(selector)
        self.driver.execute_script("document.querySelector(arguments[0]).click()", selector)

    def text(self) -> str:
        return self.driver.execute_script("return document.querySelector('#page').innerText")

    def shows(self, selector: str, text: str) -> bool:
        """Whether the element `selector` shows `text` now (read in the page: the element may be redrawn)."""
        return self.driver.execute_script(
            "const e = document.querySelector(arguments[0]); return Boolean(e && e.innerText.includes(arguments[1]))",
            selector, text)

    def fill_dialog(self, values: dict[str, str], submit: bool = True) -> None:
        for selector, value in values.items():
            field = self.find(f"dialog[open] {selector}")
            field.clear()
            field.send_keys(value)
        if submit:
            self.find("dialog[open] button.primary").click()
            self.wait(lambda: not self.driver.find_elements("css selector", "dialog[open]"), "the dialog closed")

    def screenshot(self, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.driver.save_screenshot(str(path))
        return path


@pytest.fixture
def clients(hearth, monkeypatch):
    """firebase-admin and google-cloud-firestore pointed at the module's hearth (no credentials needed)."""
    addresses = hearth["addresses"]
    monkeypatch.setenv("FIREBASE_AUTH_EMULATOR_HOST", addresses["Authentication"])
    monkeypatch.setenv("FIRESTORE_EMULATOR_HOST", addresses["Firestore"])
    app = firebase_admin.initialize_app(options={"projectId": PROJECT}, name=f"ui-{uuid.uuid4().hex[:10]}")
    client = firestore.Client(project=PROJECT, credentials=AnonymousCredentials())
    try:
        yield {"app": app, "firestore": client, "auth": f"http://{addresses['Authentication']}"}
    finally:
        client.close()
        firebase_admin.delete_app(app)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_page_loads_cleanly_and_is_captured(ui, clients, theme):
    clients["firestore"].collection("rooms").document("welcome").set(
        {"title": "Welcome", "members": ["alice", "bob"], "created": firestore.SERVER_TIMESTAMP,
         "place": firestore.GeoPoint(52.37, 4.9), "settings": {"public": True, "limit": 10}})
    admin_auth.create_user(email=f"shown-{uuid.uuid4().hex[:6]}@example.com", display_name="Shown User",
                           app=clients["app"])
    for route, name, expected in [
        ("", "overview", "Overview"),
        ("auth", "auth", "Shown User"),
        ("firestore", "firestore", "rooms"),
        ("firestore/rooms/welcome", "firestore-document", "Welcome"),
        ("database", "database", f"{PROJECT}-default-rtdb"),
        ("storage", "storage-empty", "Upload files"),
        ("requests", "requests-empty", "Requests"),
        ("logs", "logs", "Logs"),
    ]:
        ui.open(route, theme)
        ui.wait(lambda: expected in ui.text(), f"{expected!r} on {route!r}")
        print("screenshot:", ui.screenshot(f"{name}-{theme}"))


def test_a_user_added_in_the_ui_signs_in_with_its_password_and_claims(ui, clients):
    email = f"ui-{uuid.uuid4().hex[:8]}@example.com"
    ui.open("auth")
    ui.find("[data-add]").click()
    ui.fill_dialog({"#u-email": email, "#u-password": "secret-123", "#u-name": "From The UI",
                    "#u-claims": '{"role": "editor"}'})
    ui.wait(lambda: email in ui.text(), "the new user in the table")
    signed_in = requests.post(
        f"{clients['auth']}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=fake",
        json={"email": email, "password": "secret-123", "returnSecureToken": True}, timeout=10)
    assert signed_in.status_code == 200, signed_in.text
    user = admin_auth.get_user_by_email(email, app=clients["app"])
    assert user.display_name == "From The UI" and user.custom_claims == {"role": "editor"}


def test_the_ui_refuses_claims_that_are_not_a_json_object(ui):
    ui.open("auth")
    ui.find("[data-add]").click()
    ui.fill_dialog({"#u-email": "bad-claims@example.com", "#u-claims": "[1, 2]"}, submit=False)
    ui.find("dialog[open] button.primary").click()
    ui.wait(lambda: "must be a JSON object" in ui.find("dialog[open] [data-error]").text, "the claims error")
    ui.find("dialog[open] [data-cancel]").click()


def test_a_user_created_by_firebase_admin_appears_in_the_ui(ui, clients):
    ui.open("auth")
    email = f"admin-{uuid.uuid4().hex[:8]}@example.com"
    admin_auth.create_user(email=email, app=clients["app"])
    ui.wait(lambda: email in ui.text(), "the user firebase-admin created")


def test_a_field_edited_in_the_ui_reaches_a_listener(ui, clients):
    reference = clients["firestore"].collection("notes").document(f"n-{uuid.uuid4().hex[:6]}")
    reference.set({"body": "draft", "n": 1})
    seen = []
    watch = reference.on_snapshot(lambda snapshots, *_: seen.extend(s.to_dict() for s in snapshots))
    try:
        ui.open(f"firestore/notes/{reference.id}")
        ui.find('[data-edit-field="body"]').click()
        ui.fill_dialog({"#f-value": "final"})
        ui.wait(lambda: any(s and s.get("body") == "final" for s in seen), "the listener saw the edit")
        assert reference.get().to_dict() == {"body": "final", "n": 1}
    finally:
        watch.unsubscribe()


def test_a_document_a_client_writes_appears_in_the_open_ui(ui, clients):
    collection = f"live-{uuid.uuid4().hex[:6]}"
    clients["firestore"].collection(collection).document("first").set({"n": 1})
    ui.open(f"firestore/{collection}")
    ui.wait(lambda: "first" in ui.text(), "the first document")
    written = time.monotonic()
    clients["firestore"].collection(collection).document("second").set({"n": 2})
    ui.wait(lambda: "second" in ui.text(), "the document the client wrote")
    print(f"a client's write showed in the open UI after {(time.monotonic() - written) * 1000:.0f} ms")


def test_a_document_added_and_deleted_in_the_ui(ui, clients):
    collection = f"made-{uuid.uuid4().hex[:6]}"
    ui.open("firestore")
    ui.find("[data-add-collection]").click()
    ui.find("dialog[open] #f-type").send_keys("number")
    ui.fill_dialog({"#c-id": collection, "#d-id": "doc1", "#f-name": "count", "#f-value": "42"})
    ui.wait(lambda: "count" in ui.text(), "the new document's field")
    assert clients["firestore"].collection(collection).document("doc1").get().to_dict() == {"count": 42}
    ui.driver.execute_script("window.confirm = () => true")
    ui.find("[data-delete-document]").click()
    ui.wait(lambda: not clients["firestore"].collection(collection).document("doc1").get().exists, "the delete")


VAULT_RULES = """rules_version = '2';
service cloud.firestore {
  match /databases/{database}/documents {
    match /{collection}/{document=**} {
      allow read, write: if collection != 'vault';
    }
    match /vault/{id} {
      allow read: if request.auth != null && request.auth.uid == 'boss';
    }
  }
}
"""


def load_vault_rules(hearth) -> str:
    """Puts VAULT_RULES in force on the module's Firestore; answers its URL."""
    firestore_url = f"http://{hearth['addresses']['Firestore']}"
    loaded = requests.put(f"{firestore_url}/emulator/v1/projects/{PROJECT}:securityRules",
                          json={"rules": {"files": [{"name": "firestore.rules", "content": VAULT_RULES}]}}, timeout=10)
    assert loaded.status_code == 200, loaded.text
    return firestore_url


def test_a_denied_request_shows_with_the_failing_expressions_marked(ui, hearth):
    firestore_url = load_vault_rules(hearth)
    ui.open("requests")
    denied = requests.get(f"{firestore_url}/v1/projects/{PROJECT}/databases/(default)/documents/vault/plans", timeout=10)
    assert denied.status_code == 403, denied.text
    row = ui.find('tr[data-id]')
    ui.wait(lambda: "/vault/plans" in row.text and "Denied" in row.text, "the denied get, live, on the Requests page")
    row.click()
    marks = ui.wait(lambda: ui.driver.find_elements("css selector", "[data-detail] pre.rules mark.m-f"), "false marks")
    titles = [mark.get_attribute("title") for mark in marks]
    assert "false: false" in titles, titles
    detail = ui.find("[data-detail]").text
    assert "get /databases/(default)/documents/vault/plans" in detail and "Denied" in detail, detail
    assert "allow read: false" in detail, detail  # the explanation, one line per statement
    print("screenshot:", ui.screenshot("requests-light"))
    ui.open("requests", "dark")
    ui.find('tr[data-id]').click()
    ui.wait(lambda: ui.driver.find_elements("css selector", "[data-detail] pre.rules mark"), "marks (dark)")
    print("screenshot:", ui.screenshot("requests-dark"))
    ui.find("[data-clear]").click()
    ui.wait(lambda: not ui.shows("[data-list]", "/vault/plans"), "the list cleared")
    requests.get(f"{firestore_url}/v1/projects/{PROJECT}/databases/(default)/documents/vault/after", timeout=10)
    ui.wait(lambda: ui.shows("[data-list]", "/vault/after"), "a new decision after the clear, live")


def test_a_file_uploaded_in_the_ui_downloads_identically_through_google_cloud_storage(ui, hearth, tmp_path,
                                                                                     monkeypatch):
    from google.cloud import storage as gcs

    content = os.urandom(300_000) + b"%PDF-1.4 hearth"
    path = tmp_path / "report.pdf"
    path.write_bytes(content)
    bucket = f"{PROJECT}.appspot.com"
    ui.open(f"storage/{bucket}/uploads")
    ui.find("[data-upload]").send_keys(str(path))
    ui.wait(lambda: ui.shows("[data-drop]", "report.pdf"), "the uploaded file in its folder")
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", f"http://{hearth['addresses']['Storage']}")
    client = gcs.Client(project=PROJECT, credentials=AnonymousCredentials())
    assert client.bucket(bucket).blob("uploads/report.pdf").download_as_bytes() == content
    ui.find('[data-open="uploads/report.pdf"]').click()
    ui.wait(lambda: ui.shows("[data-detail]", "application/pdf"), "the file's metadata")
    print("screenshot:", ui.screenshot("storage-light"))
    client.bucket(bucket).blob("uploads/pixel.png").upload_from_string(
        bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                      "1f15c4890000000d49444154789c6360f8ffff3f0005fe02fea7d6a4b60000000049454e44ae426082"),
        content_type="image/png")
    ui.open(f"storage/{bucket}/uploads", "dark")
    ui.find('[data-open="uploads/pixel.png"]').click()
    image = ui.find("[data-detail] img.preview")
    ui.wait(lambda: ui.driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth === 1", image),
            "the image preview loaded")
    print("screenshot:", ui.screenshot("storage-dark"))
    ui.driver.execute_script("window.confirm = () => true")
    ui.find('[data-delete="uploads/pixel.png"]').click()
    ui.wait(lambda: not client.bucket(bucket).blob("uploads/pixel.png").exists(), "the delete")


def database_url(hearth, path: str) -> str:
    return f"http://{hearth['addresses']['Database']}/{path}.json?ns={PROJECT}-default-rtdb"


def test_a_database_write_shows_in_the_open_tree_and_an_edit_in_the_ui_reaches_rest(ui, hearth):
    owner = {"Authorization": "Bearer owner"}
    requests.put(database_url(hearth, "rooms"), json={"r1": {"title": "hello", "count": 1}}, headers=owner, timeout=10)
    ui.open("database")
    ui.wait(lambda: ui.shows("[data-tree]", "rooms"), "the rooms node")
    ui.find('[data-toggle="/rooms"]').click()
    ui.find('[data-toggle="/rooms/r1"]').click()
    ui.wait(lambda: ui.shows("[data-tree]", '"hello"'), "the leaf value")
    written = time.monotonic()
    requests.put(database_url(hearth, "rooms/r1/title"), json="changed live", headers=owner, timeout=10)
    ui.wait(lambda: ui.shows("[data-tree]", '"changed live"'), "the write, live")
    print(f"a REST write showed in the open tree after {(time.monotonic() - written) * 1000:.0f} ms")
    ui.find('[data-edit="/rooms/r1/count"]').click()
    ui.fill_dialog({"#v-json": "42"})
    ui.wait(lambda: requests.get(database_url(hearth, "rooms/r1/count"), headers=owner, timeout=10).json() == 42,
            "the edit over REST")
    print("screenshot:", ui.screenshot("database-light"))
    ui.find('[data-add="/rooms"]').click()
    ui.fill_dialog({"#c-key": "r2", "#c-json": '{"title": "added"}'})
    ui.wait(lambda: requests.get(database_url(hearth, "rooms/r2"), headers=owner, timeout=10).json() == {"title": "added"},
            "the added child")
    ui.driver.execute_script("window.confirm = () => true")
    ui.find('[data-delete="/rooms/r2"]').click()
    ui.wait(lambda: requests.get(database_url(hearth, "rooms/r2"), headers=owner, timeout=10).json() is None, "the delete")


@pytest.mark.timeout(400)
def test_large_data_stays_responsive(ui, hearth):
    """100,000 Firestore documents and a 10 MB Realtime Database tree: the time to the first paint of each
    page, and of the next page of documents, is printed (no timing is asserted)."""
    firestore_url = f"http://{hearth['addresses']['Firestore']}/v1/projects/{PROJECT}/databases/(default)/documents"
    owner = {"Authorization": "Bearer owner"}
    session = requests.Session()
    for batch in range(200):
        writes = [{"update": {"name": f"projects/{PROJECT}/databases/(default)/documents/big/d{batch * 500 + i:06d}",
                              "fields": {"n": {"integerValue": str(batch * 500 + i)}}}} for i in range(500)]
        assert session.post(firestore_url + ":commit", json={"writes": writes}, headers=owner, timeout=60).ok
    started = time.monotonic()
    ui.open("firestore/big")
    ui.wait(lambda: ui.shows('[data-column="documents"]', "d000049"), "the first page of 100,000 documents")
    first = time.monotonic() - started
    started = time.monotonic()
    ui.find("[data-more]").click()
    ui.wait(lambda: ui.shows('[data-column="documents"]', "d000099"), "the second page")
    print(f"100,000 documents: first page painted in {first * 1000:.0f} ms, the next in "
          f"{(time.monotonic() - started) * 1000:.0f} ms")

    tree = {f"user{i:06d}": {"name": f"User number {i}", "email": f"user{i}@example.com", "score": i,
                             "bio": "x" * 40} for i in range(80_000)}
    body = json.dumps({"big": tree})
    assert len(body) >= 10_000_000, len(body)
    assert session.put(database_url(hearth, ""), data=body, headers=owner, timeout=120).ok
    started = time.monotonic()
    ui.open("database")
    ui.wait(lambda: ui.shows("[data-tree]", "big"), "the root of a 10 MB tree")
    root = time.monotonic() - started
    started = time.monotonic()
    ui.find('[data-toggle="/big"]').click()
    ui.wait(lambda: ui.shows("[data-tree]", "user000199"), "80,000 children, the first 200 shown")
    print(f"10 MB tree ({len(body) / 1e6:.1f} MB): root painted in {root * 1000:.0f} ms, 80,000 children expanded in "
          f"{(time.monotonic() - started) * 1000:.0f} ms")
    assert session.put(database_url(hearth, ""), data="null", headers=owner, timeout=60).ok
    # The later tests export and import the module's data: without these documents.
    for batch in range(200):
        writes = [{"delete": f"projects/{PROJECT}/databases/(default)/documents/big/d{batch * 500 + i:06d}"} for i in range(500)]
        assert session.post(firestore_url + ":commit", json={"writes": writes}, headers=owner, timeout=60).ok


def test_a_sign_in_link_the_suite_prints_shows_on_the_logs_page(ui, clients):
    email = f"link-{uuid.uuid4().hex[:8]}@example.com"
    ui.open("logs")
    sent = requests.post(f"{clients['auth']}/identitytoolkit.googleapis.com/v1/accounts:sendOobCode?key=fake",
                         json={"requestType": "EMAIL_SIGNIN", "email": email, "continueUrl": "https://app.example.com"},
                         timeout=10)
    assert sent.status_code == 200, sent.text
    ui.wait(lambda: ui.shows("[data-lines]", f"To sign in as {email}"), "the sign-in link, live")
    assert ui.shows("[data-lines]", "auth")
    print("screenshot:", ui.screenshot("logs-with-link-light"))


def test_a_collection_filtered_in_the_ui(ui, clients):
    collection = f"scores-{uuid.uuid4().hex[:6]}"
    for n in range(1, 6):
        clients["firestore"].collection(collection).document(f"s{n}").set({"n": n, "tags": ["even" if n % 2 == 0 else "odd"]})
    ui.open(f"firestore/{collection}")
    ui.wait(lambda: ui.shows('[data-column="documents"]', "s5"), "the documents")
    ui.find('[data-filter-form] input[name="field"]').send_keys("n")
    ui.find('[data-filter-form] select[name="op"]').send_keys(">")
    ui.find('[data-filter-form] input[name="text"]').send_keys("3")
    ui.find('[data-filter-form] button[type="submit"]').click()
    ui.wait(lambda: not ui.shows('[data-column="documents"] .list', "s1"), "the filter applied")
    listed = ui.driver.execute_script(
        "return [...document.querySelectorAll('[data-column=\"documents\"] .list a')].map(a => a.textContent)")
    assert listed == ["s4", "s5"], listed
    ui.find("[data-clear-filter]").click()
    ui.wait(lambda: ui.shows('[data-column="documents"] .list', "s1"), "the filter cleared")
    # Two conditions (every one must hold) and an order: production's compound query.
    ui.find('[data-filter-form] input[name="field"]').send_keys("n")
    ui.find('[data-filter-form] select[name="op"]').send_keys(">=")
    ui.find('[data-filter-form] input[name="text"]').send_keys("2")
    ui.find("[data-add-condition]").click()
    ui.wait(lambda: len(ui.driver.find_elements("css selector", '[data-filter-form] input[name="field"]')) == 2, "a second condition")
    fields = ui.driver.find_elements("css selector", '[data-filter-form] input[name="field"]')
    operators = ui.driver.find_elements("css selector", '[data-filter-form] select[name="op"]')
    texts = ui.driver.find_elements("css selector", '[data-filter-form] input[name="text"]')
    fields[1].send_keys("tags")
    operators[1].send_keys("array-contains")
    texts[1].send_keys('"even"')
    ui.find('[data-filter-form] input[name="orderBy"]').send_keys("n")
    ui.find('[data-filter-form] select[name="direction"]').send_keys("desc")
    ui.find('[data-filter-form] button[type="submit"]').click()
    listed = ui.wait(lambda: (lambda shown: shown if shown == ["s4", "s2"] else None)(ui.driver.execute_script(
        "return [...document.querySelectorAll('[data-column=\"documents\"] .list a')].map(a => a.textContent)")),
        "s4 then s2: the even ones from 2 up, in descending order")
    print("screenshot:", ui.screenshot("firestore-filter-light"), listed)


def test_export_and_checkpoints_from_the_overview(ui, clients, tmp_path):
    reference = clients["firestore"].collection("kept").document("k1")
    reference.set({"v": "before"})
    ui.open("")
    ui.find("[data-checkpoint] input").send_keys("ui-point")
    ui.find("[data-checkpoint] button").click()
    ui.wait(lambda: ui.shows("[data-checkpoints]", "ui-point"), "the checkpoint listed")
    reference.set({"v": "after"})
    ui.find('[data-restore="ui-point"]').click()
    ui.wait(lambda: reference.get().to_dict() == {"v": "before"}, "the restore")
    ui.find('[data-forget="ui-point"]').click()
    ui.wait(lambda: not ui.shows("[data-checkpoints]", "ui-point"), "the checkpoint deleted")
    folder = tmp_path / "ui-export"
    ui.find('[data-transfer="export"] input').send_keys(str(folder))
    ui.find('[data-transfer="export"] button').click()
    ui.wait(lambda: (folder / "firebase-export-metadata.json").is_file(), "the export on disk")
    print("screenshot:", ui.screenshot("overview-actions-light"))

    # The export imported into the running suite: a listening client sees the document go back.
    reference.set({"v": "after the export"})
    seen = []
    watch = reference.on_snapshot(lambda snapshots, *_: seen.extend(s.to_dict() for s in snapshots))
    try:
        ui.wait(lambda: {"v": "after the export"} in seen, "the listener's first snapshot")
        ui.driver.execute_script("window.confirm = () => true")
        ui.find('[data-transfer="import"] input').send_keys(str(folder))
        ui.find('[data-transfer="import"] button').click()
        ui.wait(lambda: seen[-1] == {"v": "before"}, "the listener saw the imported document")
        assert reference.get().to_dict() == {"v": "before"}
        ui.wait(lambda: ui.shows("#toast", "Imported"), "the import's toast")
    finally:
        watch.unsubscribe()
    missing = tmp_path / "no-such-export"
    ui.find('[data-transfer="import"] input').clear()
    ui.find('[data-transfer="import"] input').send_keys(str(missing))
    ui.find('[data-transfer="import"] button').click()
    ui.wait(lambda: ui.shows("#toast", "does not exist"), "the reason an import cannot be done")
    # The refused import is the one failed request the console may show.
    refused = [entry["message"] for entry in ui.driver.get_log("browser") if entry["level"] == "SEVERE"]
    assert all("/api/import" in message and "400" in message for message in refused), refused


DATABASE_RULES = {"rules": {".read": False, ".write": False,
                            "rooms": {"$room": {".read": "auth != null && auth.uid === 'boss'"}}}}


def test_a_denied_database_read_shows_with_its_rules_marked(ui, hearth):
    owner = {"Authorization": "Bearer owner"}
    rules_url = f"http://{hearth['addresses']['Database']}/.settings/rules.json?ns={PROJECT}-default-rtdb"
    assert requests.put(rules_url, json=DATABASE_RULES, headers=owner, timeout=10).ok
    try:
        ui.open("requests")
        denied = requests.get(database_url(hearth, "rooms/r9"), timeout=10)
        assert denied.status_code == 401, denied.text
        ui.wait(lambda: ui.shows("[data-list]", "/rooms/r9"), "the denied read, live")
        ui.find("[data-filter=\"service\"]").send_keys("database")
        ui.find("tr[data-id]").click()
        marks = ui.wait(lambda: ui.driver.find_elements("css selector", "[data-detail] pre.rules mark.m-f"), "false marks")
        assert any("auth != null" in mark.text for mark in marks), [mark.text for mark in marks]
        assert ui.shows("[data-detail]", "database.rules.json"), "the file is named"
        print("screenshot:", ui.screenshot("requests-database-light"))
    finally:
        requests.put(rules_url, json={"rules": {".read": True, ".write": True}}, headers=owner, timeout=10)


def test_a_tenants_users_are_shown_when_it_is_picked(ui, clients):
    auth_url = clients["auth"]
    owner = {"Authorization": "Bearer owner"}
    created = requests.post(f"{auth_url}/identitytoolkit.googleapis.com/v2/projects/{PROJECT}/tenants",
                            json={"displayName": "Team A"}, headers=owner, timeout=10)
    assert created.ok, created.text
    tenant = created.json()["name"].split("/")[-1]
    email = f"tenant-{uuid.uuid4().hex[:6]}@example.com"
    added = requests.post(f"{auth_url}/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/tenants/{tenant}/accounts",
                          json={"email": email, "password": "secret-123"}, headers=owner, timeout=10)
    assert added.ok, added.text
    ui.open("auth")
    assert not ui.shows("[data-table]", email), "the project's own users do not include the tenant's"
    ui.find("[data-tenant]").send_keys("Team A")
    ui.wait(lambda: ui.shows("[data-table]", email), "the tenant's user")


def test_a_named_database_is_browsed_and_edited_in_the_ui(ui, clients):
    from selenium.webdriver.support.ui import Select

    client = firestore.Client(project=PROJECT, credentials=AnonymousCredentials(), database="ui-named-db")
    try:
        reference = client.collection("galaxies").document("andromeda")
        reference.set({"distance": 2.5})
        ui.open("firestore")
        picker = ui.find("[data-database]")
        ui.wait(lambda: "ui-named-db" in picker.text, "the named database in the picker")
        Select(picker).select_by_value("ui-named-db")
        ui.wait(lambda: "database=ui-named-db" in ui.driver.current_url and ui.shows('[data-column="collections"]', "galaxies"),
                "the named database's collections")
        ui.find('[data-column="collections"] a').click()
        ui.wait(lambda: ui.shows('[data-column="documents"]', "andromeda"), "its documents")
        ui.find('[data-column="documents"] .list a').click()
        ui.find('[data-edit-field="distance"]').click()
        ui.fill_dialog({"#f-value": "2.537"})
        ui.wait(lambda: reference.get().to_dict() == {"distance": 2.537}, "the edit in the named database")
        assert not clients["firestore"].collection("galaxies").document("andromeda").get().exists, \
            "the (default) database is untouched"
        print("screenshot:", ui.screenshot("firestore-named-database-light"))
    finally:
        client.close()


def _unsigned_token(claims: dict) -> str:
    import base64

    def part(value: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    return f"{part({'alg': 'none', 'typ': 'JWT'})}.{part(claims)}."


def test_an_identity_provider_account_linked_in_the_ui_signs_in_as_its_user(ui, clients):
    email = f"idp-{uuid.uuid4().hex[:8]}@example.com"
    user = admin_auth.create_user(email=f"owner-{uuid.uuid4().hex[:8]}@example.com", display_name="Linked Owner",
                                  app=clients["app"])
    ui.open("auth")
    ui.find(f'[data-edit="{user.uid}"]').click()
    ui.find("dialog[open] #u-idp").send_keys("google.com")
    ui.fill_dialog({"#u-idp-email": email, "#u-idp-name": "Googler"}, submit=False)
    print("screenshot:", ui.screenshot("auth-user-dialog-light"))
    ui.find("dialog[open] button.primary").click()
    linked = ui.wait(lambda: [p for p in admin_auth.get_user(user.uid, app=clients["app"]).provider_data
                              if p.provider_id == "google.com"], "the linked account")
    assert linked[0].email == email and linked[0].display_name == "Googler", linked[0].__dict__
    # The emulator's sign-in page offers it ...
    page = requests.get(f"{clients['auth']}/emulator/auth/handler",
                        params={"apiKey": "fake", "providerId": "google.com"}, timeout=10)
    assert page.status_code == 200 and email in page.text
    # ... and choosing it signs in as the user it is linked to.
    token = _unsigned_token({"sub": linked[0].uid, "email": email, "email_verified": True})
    signed_in = requests.post(
        f"{clients['auth']}/identitytoolkit.googleapis.com/v1/accounts:signInWithIdp?key=fake",
        json={"postBody": f"id_token={token}&providerId=google.com", "requestUri": "http://localhost",
              "returnSecureToken": True}, timeout=10)
    assert signed_in.status_code == 200, signed_in.text
    assert signed_in.json()["localId"] == user.uid
    ui.find('[data-view="accounts"]').click()
    ui.wait(lambda: ui.shows("[data-table]", email), "the account on the identity-provider accounts tab")
    print("screenshot:", ui.screenshot("auth-accounts-light"))
    ui.find(f'[data-table] [data-edit="{user.uid}"]').click()
    ui.find('dialog[open] input[name="unlink:google.com"]').click()
    ui.find("dialog[open] button.primary").click()
    ui.wait(lambda: not [p for p in admin_auth.get_user(user.uid, app=clients["app"]).provider_data
                         if p.provider_id == "google.com"], "the account unlinked")
    ui.wait(lambda: not ui.shows("[data-table]", email), "the account gone from the tab")
    ui.find('[data-view="users"]').click()


def test_the_one_account_per_email_setting_is_changed_in_the_ui(ui, clients):
    config_url = f"{clients['auth']}/emulator/v1/projects/{PROJECT}/config"

    def allowed() -> bool:
        return requests.get(config_url, timeout=10).json()["signIn"]["allowDuplicateEmails"]

    assert not allowed()
    ui.open("auth")
    ui.find("[data-duplicates]").click()
    ui.wait(allowed, "duplicate emails allowed")
    # With several accounts per email, a provider's account with a user's email is a user of its own.
    email = f"twice-{uuid.uuid4().hex[:6]}@example.com"
    first = admin_auth.create_user(email=email, password="secret-123", app=clients["app"])
    token = _unsigned_token({"sub": uuid.uuid4().hex, "email": email, "email_verified": True})
    signed_in = requests.post(
        f"{clients['auth']}/identitytoolkit.googleapis.com/v1/accounts:signInWithIdp?key=fake",
        json={"postBody": f"id_token={token}&providerId=google.com", "requestUri": "http://localhost",
              "returnSecureToken": True}, timeout=10)
    assert signed_in.status_code == 200, signed_in.text
    assert signed_in.json()["localId"] != first.uid and not signed_in.json().get("needConfirmation"), signed_in.json()
    ui.find("[data-duplicates]").click()
    ui.wait(lambda: not allowed(), "one account per email again")


def test_a_page_left_before_it_finished_drawing_leaves_nothing_running(ui, hearth, clients):
    """Two navigations in a row: the second page is shown, whole, and the first one's re-reads stop."""
    clients["firestore"].collection("race").document("d").set({"n": 1})
    ui.open("firestore/race/d")
    ui.wait(lambda: ui.shows("[data-columns]", "n"), "the document")
    firestore_port = hearth["addresses"]["Firestore"].rsplit(":", 1)[1]
    # Left while its first reads are under way, a few times, at different moments.
    for delay in (1, 3, 6, 10):
        ui.driver.execute_script(
            "location.hash = '#/firestore/race'; setTimeout(() => { location.hash = '#/requests'; }, arguments[0]);", delay)
        ui.wait(lambda: ui.driver.find_elements("css selector", "#page h1") and
                ui.driver.find_element("css selector", "#page h1").text == "Requests", "the Requests page")
    time.sleep(0.3)  # any Firestore read started before the navigation ends
    ui.driver.execute_script("performance.clearResourceTimings()")
    time.sleep(2)
    reads = ui.driver.execute_script(
        "return performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.includes(':' + arguments[0] + '/'))",
        firestore_port)
    assert reads == [], reads
    assert "Cannot set properties" not in ui.text()
    assert len(ui.driver.find_elements("css selector", "#page h1")) == 1


def test_a_live_redraw_keeps_the_keyboard_focus(ui, clients):
    collection = f"focus-{uuid.uuid4().hex[:6]}"
    clients["firestore"].collection(collection).document("a").set({"n": 1})
    ui.open(f"firestore/{collection}")
    link = ui.find(f'[data-column="documents"] a[href$="/{collection}/a"]')
    ui.driver.execute_script("arguments[0].focus()", link)
    clients["firestore"].collection(collection).document("b").set({"n": 2})
    ui.wait(lambda: ui.shows('[data-column="documents"]', "b"), "the client's document, redrawn")
    focused = ui.driver.execute_script("return document.activeElement.getAttribute('href')")
    assert focused and focused.endswith(f"/{collection}/a"), focused


def test_a_map_saved_unchanged_keeps_every_value_and_type(ui, clients):
    """Maps and arrays are edited as JSON with `$` tags for what JSON cannot say: saving one unchanged stores
    exactly what was there (timestamps, geopoints, references, bytes, integers past 2^53, integral doubles)."""
    from google.cloud.firestore_v1 import GeoPoint

    db = clients["firestore"]
    reference = db.collection("typed").document(f"t-{uuid.uuid4().hex[:6]}")
    when = datetime.datetime(2024, 5, 1, 10, 0, 0, 123456, tzinfo=datetime.timezone.utc)
    original = {"m": {"when": when, "big": 9007199254740993, "loc": GeoPoint(52.37, 4.9), "ref": db.document("users/alice"),
                      "raw": b"\x00\xff", "one": 1.0, "half": 0.5, "nan": float("nan"), "list": [1, "two", None, True]}}
    reference.set(original)
    ui.open(f"firestore/typed/{reference.id}")
    ui.find('[data-edit-field="m"]').click()
    text = ui.find("dialog[open] #f-value").get_attribute("value")
    assert '"$integer": "9007199254740993"' in text and '"$geopoint"' in text and '"$double": 1' in text, text
    print("screenshot:", ui.screenshot("firestore-map-editor-light"))
    ui.find("dialog[open] button.primary").click()
    ui.wait(lambda: not ui.driver.find_elements("css selector", "dialog[open]"), "the dialog closed")
    time.sleep(0.3)
    stored = reference.get().to_dict()["m"]
    assert stored["when"] == when and stored["big"] == 9007199254740993 and isinstance(stored["loc"], GeoPoint)
    assert stored["ref"].path == "users/alice" and stored["raw"] == b"\x00\xff"
    assert stored["one"] == 1.0 and isinstance(stored["one"], float) and stored["half"] == 0.5
    assert math.isnan(stored["nan"]) and stored["list"] == [1, "two", None, True]


def test_the_field_editor_refuses_what_it_cannot_store_and_takes_nan(ui, clients):
    reference = clients["firestore"].collection("typed").document(f"e-{uuid.uuid4().hex[:6]}")
    reference.set({"flag": True, "x": 1})
    ui.open(f"firestore/typed/{reference.id}")
    ui.find('[data-edit-field="flag"]').click()
    ui.fill_dialog({"#f-value": "yes"}, submit=False)
    ui.find("dialog[open] button.primary").click()
    ui.wait(lambda: "true or false" in ui.find("dialog[open] [data-error]").text, "the boolean refused")
    ui.find("dialog[open] [data-cancel]").click()
    ui.find('[data-edit-field="x"]').click()
    ui.fill_dialog({"#f-value": "99999999999999999999"}, submit=False)
    ui.find("dialog[open] button.primary").click()
    ui.wait(lambda: "64-bit" in ui.find("dialog[open] [data-error]").text, "an integer past 64 bits refused")
    ui.fill_dialog({"#f-value": "NaN"})
    ui.wait(lambda: math.isnan(reference.get().to_dict()["x"]), "NaN stored")


def test_a_missing_document_with_subcollections_is_shown_without_failed_requests(ui, clients):
    """The `ui` fixture fails the test on any failed request in the console, which a 404 would be."""
    clients["firestore"].collection("ghosts").document("missing").collection("rooms").document("r").set({"n": 1})
    ui.open("firestore/ghosts/missing")
    ui.wait(lambda: ui.shows('[data-column="document"]', "does not exist; it has subcollections"), "the missing document")
    time.sleep(1.2)  # two re-reads


def test_a_document_with_no_fields_is_added_and_a_bad_id_refused(ui, clients):
    collection = f"bare-{uuid.uuid4().hex[:6]}"
    clients["firestore"].collection(collection).document("seed").set({"n": 1})
    ui.open(f"firestore/{collection}")
    ui.find("[data-add-document]").click()
    ui.fill_dialog({"#d-id": "a/b"}, submit=False)
    ui.find("dialog[open] button.primary").click()
    ui.wait(lambda: 'cannot contain "/"' in ui.find("dialog[open] [data-error]").text, "the slash refused")
    ui.fill_dialog({"#d-id": "empty"})
    ui.wait(lambda: clients["firestore"].collection(collection).document("empty").get().exists, "the empty document")
    assert clients["firestore"].collection(collection).document("empty").get().to_dict() == {}


def test_the_tree_orders_keys_as_the_database_does_and_says_when_it_cannot_read(ui, hearth):
    owner = {"Authorization": "Bearer owner"}
    namespace = f"{PROJECT}-default-rtdb"
    base = f"http://{hearth['addresses']['Database']}"
    assert requests.put(f"{base}/ordered.json?ns={namespace}", json={"10": 1, "9": 2, "b": 3, "a": 4, "-1": 5},
                        headers=owner, timeout=10).ok
    ui.open("database")
    ui.find('[data-toggle="/ordered"]').click()
    ui.wait(lambda: ui.shows("[data-tree]", "10"), "the children")
    keys = ui.driver.execute_script(
        "return [...document.querySelectorAll('[data-tree] li li li > .key')].map((k) => k.textContent)")
    assert keys == ["-1", "9", "10", "a", "b"], keys
    requests.delete(f"{base}/ordered.json?ns={namespace}", headers=owner, timeout=10)
    field = ui.find("[data-namespace]")
    field.clear()
    field.send_keys("Bad NS!\n")
    ui.wait(lambda: "1 to 100 letters" in ui.driver.find_element("css selector", "#toast").text, "the name refused")
    assert "#/database/Bad" not in ui.driver.current_url


def test_a_decisions_expressions_and_values_are_listed_for_keyboard_readers(ui, hearth):
    firestore_url = load_vault_rules(hearth)
    ui.open("requests")
    requests.get(f"{firestore_url}/v1/projects/{PROJECT}/databases/(default)/documents/vault/keys", timeout=10)
    # The newest row is this get's once the page has it; until then it is an earlier test's request.
    newest = "const row = document.querySelector('tr[data-id]'); return row ? row.textContent : ''"
    ui.wait(lambda: "/vault/keys" in ui.driver.execute_script(newest), "the get, live, on the Requests page")
    # Focused in the page, then Enter on whatever has the focus: a live redraw may replace the row meanwhile
    # (and keeps the focus on it).
    ui.driver.execute_script("document.querySelector('tr[data-id]').focus()")
    ui.driver.switch_to.active_element.send_keys("\n")
    table = ui.find("[data-detail] table.expressions")
    ui.wait(lambda: "request.auth != null" in table.text and "collection != 'vault'" in table.text, "the expressions")
    assert "false" in table.text
    ui.driver.execute_script("arguments[0].scrollIntoView()", table)
    print("screenshot:", ui.screenshot("requests-expressions-light"))


def test_a_file_chooser_label_opens_from_the_keyboard(ui):
    ui.open("database")
    ui.driver.execute_script(
        "window.chooserOpened = 0; HTMLInputElement.prototype.click = function () { if (this.type === 'file') window.chooserOpened++; };")
    label = ui.find("label.button[tabindex]")
    ui.driver.execute_script("arguments[0].focus()", label)
    label.send_keys(" ")
    label.send_keys("\n")
    assert ui.driver.execute_script("return window.chooserOpened") == 2


def test_an_action_right_after_a_quick_navigation_acts_on_the_page_shown(ui, clients):
    """The first visit's reads, answered late, must not write into the page shown after it."""
    db = clients["firestore"]
    first, second = f"first-{uuid.uuid4().hex[:6]}", f"second-{uuid.uuid4().hex[:6]}"
    db.collection(first).document("d1").set({"n": 1})
    db.collection(second).document("x").set({"n": 1})
    ui.open("firestore")
    for attempt in range(4):
        ui.driver.execute_script(
            "location.hash = arguments[0]; setTimeout(() => { location.hash = arguments[1]; }, arguments[2]);",
            f"#/firestore/{first}/d1", f"#/firestore/{second}", attempt * 3)
        ui.wait(lambda: ui.driver.execute_script("return location.hash") == f"#/firestore/{second}"
                and ui.shows('[data-column="documents"] header', second), "the second collection shown")
        time.sleep(0.15)
        ui.click("[data-add-document]")
        ui.fill_dialog({"#d-id": f"race{attempt}"})
        ui.wait(lambda: db.collection(second).document(f"race{attempt}").get().exists, f"race{attempt} in {second}")
    assert [d.id for d in db.collection(first).stream()] == ["d1"]


def test_show_more_stops_at_the_most_children_a_node_shows(ui, hearth):
    owner = {"Authorization": "Bearer owner"}
    base = f"http://{hearth['addresses']['Database']}"
    assert requests.put(f"{base}/wide.json?ns={PROJECT}-default-rtdb", json={f"k{i:04d}": i for i in range(1300)},
                        headers=owner, timeout=10).ok
    try:
        ui.open("database")
        ui.find('[data-toggle="/wide"]').click()
        for shown in (400, 600, 800, 1000):
            ui.click('[data-more="/wide"]')
            ui.wait(lambda: ui.shows("[data-tree]", f"k{shown - 1:04d}"), f"{shown} children")
        ui.wait(lambda: ui.shows("[data-tree]", "The first 1,000 of 1,300 children are shown"), "the limit said")
        assert not ui.driver.find_elements("css selector", '[data-more="/wide"]')
        time.sleep(1.6)  # two re-reads, which must not be refused (the fixture fails on a failed request)
    finally:
        requests.delete(f"{base}/wide.json?ns={PROJECT}-default-rtdb", headers=owner, timeout=10)


def test_doubles_and_tag_named_keys_are_saved_unchanged(ui, clients):
    reference = clients["firestore"].collection("typed").document(f"d-{uuid.uuid4().hex[:6]}")
    original = {"five": 5.0, "huge": 1e20, "m": {"big": 1e20, "inner": {"$timestamp": "not a date"}}}
    reference.set(original)
    ui.open(f"firestore/typed/{reference.id}")
    for field in ("five", "huge", "m"):
        ui.click(f'[data-edit-field="{field}"]')
        ui.find("dialog[open] button.primary").click()
        ui.wait(lambda: not ui.driver.find_elements("css selector", "dialog[open]"), f"{field} saved")
    stored = reference.get().to_dict()
    assert stored == original
    assert isinstance(stored["five"], float) and isinstance(stored["m"]["big"], float)


def test_a_refusal_from_the_emulator_keeps_the_dialog_and_what_was_typed(ui, clients, browser):
    reference = clients["firestore"].collection("typed").document(f"r-{uuid.uuid4().hex[:6]}")
    reference.set({"n": 1})
    ui.open(f"firestore/typed/{reference.id}")
    ui.find("[data-add-field]").click()
    ui.fill_dialog({"#f-name": "text"}, submit=False)
    # Over the 1 MiB a document may hold: only the emulator can say so.
    ui.driver.execute_script("document.querySelector('dialog[open] #f-value').value = 'x'.repeat(1100000)")
    ui.find("dialog[open] button.primary").click()
    ui.wait(lambda: ui.find("dialog[open] [data-error]").text, "the emulator's refusal in the dialog")
    assert ui.driver.execute_script("return document.querySelector('dialog[open] #f-name').value") == "text"
    ui.find("dialog[open] [data-cancel]").click()
    assert reference.get().to_dict() == {"n": 1}
    severe = [entry["message"] for entry in browser.console() if entry["level"] == "SEVERE"]
    assert severe and all("updateMask.fieldPaths=text" in message and "400" in message for message in severe), severe
