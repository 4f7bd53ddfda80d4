"""The Emulator UI's Storage and Authentication pages in headless Chromium, checked with the official clients:

- Storage: a file is previewed and downloaded with its own bytes when no storage rules are loaded (the UI reads as
  an administrator); a failed upload is not counted as uploaded; a download token created in the UI opens the file
  to anyone while the rules deny it, and no longer once revoked there; custom metadata, contents type and cache
  control edited in the UI are what google-cloud-storage reads back.
- Authentication: the add-user dialog refuses reserved and oversized claims and says why, keeps what was typed when
  the emulator refuses (a duplicate email), and leaves no user half made; with thousands of users, the open page
  reads a few kilobytes a second while idle, not the whole list.

The module's hearth (test_browser_ui's `hearth` fixture) loads rules that allow everything; the tests that need
other rules load them over `PUT /internal/setRules` and put the open ones back. The preview test runs against a
second hearth started with no rules files at all.
"""

from __future__ import annotations

import base64
import os
import time
import uuid

import pytest
import requests
from firebase_admin import auth as admin_auth
from google.auth.credentials import AnonymousCredentials

from browser_support import OPEN_STORAGE_RULES
from support import RunningHearth
from test_browser_ui import PROJECT, UI, WAIT, clients, hearth, ui  # noqa: F401 (fixtures)

BUCKET = f"{PROJECT}.appspot.com"
OWNER = {"Authorization": "Bearer owner"}
DENY_STORAGE_RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /{allPaths=**} { allow read, write: if false; }
  }
}
"""


@pytest.fixture(scope="module")
def ruleless_hearth(tmp_path_factory):
    """A plain `hearth start` in an empty folder: no rules files, so Storage refuses all but an administrator."""
    args = ["--project", PROJECT]
    for name in ("auth", "firestore", "database", "storage", "hub", "ui"):
        args += ["--port", f"{name}=0"]
    process = RunningHearth(args, cwd=tmp_path_factory.mktemp("ruleless-hearth"))
    try:
        process.wait_ready()
        addresses = process.addresses
        yield {"ui": f"http://{addresses['Emulator UI']}/", "addresses": addresses}
        assert process.process.poll() is None, "hearth exited during the module:\n" + process.output()
    finally:
        process.stop()


def set_storage_rules(hearth, rules: str) -> None:
    answer = requests.put(f"http://{hearth['addresses']['Storage']}/internal/setRules",
                          json={"rules": {"files": [{"name": "storage.rules", "content": rules}]}}, timeout=10)
    assert answer.status_code == 200, answer.text


@pytest.fixture
def denying_rules(hearth):
    """Storage rules that refuse every read and write for the test; the open rules again after it."""
    set_storage_rules(hearth, DENY_STORAGE_RULES)
    try:
        yield
    finally:
        set_storage_rules(hearth, OPEN_STORAGE_RULES)


@pytest.fixture
def gcs(hearth, monkeypatch):
    """A google-cloud-storage bucket of the module's hearth."""
    from google.cloud import storage

    monkeypatch.setenv("STORAGE_EMULATOR_HOST", f"http://{hearth['addresses']['Storage']}")
    return storage.Client(project=PROJECT, credentials=AnonymousCredentials()).bucket(BUCKET)


def expect_console(browser, pattern: str) -> None:
    """Takes the console entries logged so far; each SEVERE one must contain `pattern` (a refusal provoked on
    purpose: Chromium logs every HTTP answer >= 400 at SEVERE)."""
    severe = [entry["message"] for entry in browser.console() if entry["level"] == "SEVERE"]
    assert severe and all(pattern in message for message in severe), severe


def toasts(ui) -> list[str]:
    return ui.driver.execute_script("return [...document.querySelectorAll('#toast div')].map((t) => t.textContent)")


def test_a_file_is_previewed_and_downloaded_with_its_bytes_when_no_storage_rules_are_loaded(
        ui, ruleless_hearth, tmp_path):
    content = os.urandom(50_000) + b"%PDF-1.4 hearth"
    (tmp_path / "upload").mkdir()
    path = tmp_path / "upload" / "report.pdf"
    path.write_bytes(content)
    storage = f"http://{ruleless_hearth['addresses']['Storage']}/v0/b/{BUCKET}/o"
    assert requests.get(storage, timeout=10).status_code == 403  # what an app sees: no ruleset loaded
    bare = UI(ui.driver, ruleless_hearth["ui"])
    bare.open(f"storage/{BUCKET}/papers")
    bare.find("[data-upload]").send_keys(str(path))
    bare.find('[data-open="papers/report.pdf"]').click()
    frame = bare.find("[data-detail] iframe.preview")
    shown = bare.driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        fetch(arguments[0].src).then((r) => r.arrayBuffer()).then((b) => {
          let text = ''; for (const byte of new Uint8Array(b)) text += String.fromCharCode(byte); done(btoa(text));
        });""", frame)
    assert base64.b64decode(shown) == content
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    bare.driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    try:
        bare.find("[data-detail] [data-download]").click()
        saved = downloads / "report.pdf"
        bare.wait(lambda: saved.exists() and saved.stat().st_size == len(content), "the downloaded file")
        assert saved.read_bytes() == content
    finally:
        bare.driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "default"})


def test_a_failed_upload_is_not_counted_as_uploaded(ui, browser, gcs, tmp_path):
    # Object names are at most 1,024 bytes: in this folder, a short name fits and a longer one is refused.
    folder = "f" * 1000
    fits, too_long = tmp_path / "a.txt", tmp_path / ("b" * 30 + ".txt")
    fits.write_bytes(b"fits")
    too_long.write_bytes(b"refused")
    ui.open(f"storage/{BUCKET}/{folder}")
    ui.find("[data-upload]").send_keys(f"{fits}\n{too_long}")
    ui.wait(lambda: "1 of 2 files uploaded; 1 failed." in toasts(ui), "the count of each")
    expect_console(browser, "status of 400 (Bad Request)")
    assert any(toast.startswith(f"Upload of {too_long.name} failed: The maximum object length is 1024 characters")
               for toast in toasts(ui)), toasts(ui)
    assert "2 files uploaded." not in toasts(ui)
    assert gcs.blob(f"{folder}/a.txt").download_as_bytes() == b"fits"


def test_a_token_created_in_the_ui_opens_the_file_while_the_rules_deny_and_not_once_revoked(
        ui, hearth, denying_rules):
    name = f"tokens/{uuid.uuid4().hex[:6]}.txt"
    objects = f"http://{hearth['addresses']['Storage']}/v0/b/{BUCKET}/o"
    uploaded = requests.post(f"{objects}?name={requests.utils.quote(name, safe='')}", data=b"secret",
                             headers={**OWNER, "Content-Type": "text/plain"}, timeout=10)
    assert uploaded.status_code == 200, uploaded.text
    first = uploaded.json()["downloadTokens"]
    media = f"{objects}/{requests.utils.quote(name, safe='')}?alt=media"
    assert requests.get(media, timeout=10).status_code == 403  # the rules deny

    ui.open(f"storage/{BUCKET}/tokens")
    ui.find(f'[data-open="{name}"]').click()
    ui.find(f'[data-revoke-token="{first}"]')
    ui.find("[data-create-token]").click()
    tokens = lambda: ui.driver.execute_script(  # noqa: E731
        "return [...document.querySelectorAll('[data-revoke-token]')].map((b) => b.dataset.revokeToken)")
    ui.wait(lambda: len(tokens()) == 2, "the new token listed")
    created = next(token for token in tokens() if token != first)
    opened = requests.get(f"{media}&token={created}", timeout=10)
    assert opened.status_code == 200 and opened.content == b"secret", opened.text

    ui.driver.execute_script("window.confirm = () => true")
    # Clicked in the page: the toast that said the token was created may cover the button.
    ui.driver.execute_script("arguments[0].click()", ui.find(f'[data-revoke-token="{created}"]'))
    ui.wait(lambda: tokens() == [first], "the revoked token gone")
    assert requests.get(f"{media}&token={created}", timeout=10).status_code == 403
    assert requests.get(f"{media}&token={first}", timeout=10).status_code == 200


def test_metadata_edited_in_the_ui_is_what_google_cloud_storage_reads(ui, gcs):
    blob = gcs.blob(f"meta/{uuid.uuid4().hex[:6]}.txt")
    blob.metadata = {"keep": "1", "drop": "2"}
    blob.upload_from_string(b"a,b\n", content_type="text/plain")
    ui.open(f"storage/{BUCKET}/meta")
    ui.find(f'[data-open="{blob.name}"]').click()
    ui.find("[data-detail] [data-edit-metadata]").click()
    ui.find('dialog[open] input[name="remove:drop"]').click()
    ui.fill_dialog({'input[name="value:keep"]': "changed", "#m-new-key": "added", "#m-new-value": "yes",
                    "#m-type": "text/csv", "#m-cache": "public, max-age=60"})
    ui.wait(lambda: ui.shows("[data-detail]", "metadata.added"), "the new metadata shown")
    blob.reload()
    custom = {key: value for key, value in blob.metadata.items() if key != "firebaseStorageDownloadTokens"}
    assert custom == {"keep": "changed", "added": "yes"}
    assert (blob.content_type, blob.cache_control) == ("text/csv", "public, max-age=60")


def add_user_in_dialog(ui, fields: dict[str, str]) -> None:
    ui.open("auth")
    ui.find("[data-add]").click()
    ui.fill_dialog(fields, submit=False)
    ui.find("dialog[open] button.primary").click()


def dialog_error(ui) -> str:
    return ui.driver.execute_script("return document.querySelector('dialog[open] [data-error]')?.textContent || ''")


def no_user_with(email: str, clients) -> bool:
    try:
        admin_auth.get_user_by_email(email, app=clients["app"])
    except admin_auth.UserNotFoundError:
        return True
    return False


@pytest.mark.parametrize("claims, message", [
    ('{"role": "x", "sub": "someone"}', "sub is a claim every ID token carries"),
    ('{"note": "%s"}' % ("n" * 1000), "Custom claims may take 1000 characters at most"),
])
def test_claims_production_refuses_are_refused_in_the_dialog_and_no_user_is_made(ui, clients, claims, message):
    email = f"claims-{uuid.uuid4().hex[:8]}@example.com"
    add_user_in_dialog(ui, {"#u-email": email, "#u-password": "secret-123", "#u-claims": claims})
    ui.wait(lambda: message in dialog_error(ui), "the claims refused")
    ui.find("dialog[open] [data-cancel]").click()
    time.sleep(0.3)
    assert no_user_with(email, clients)


def test_a_duplicate_email_is_refused_readably_keeping_what_was_typed(ui, browser, clients):
    email = f"taken-{uuid.uuid4().hex[:8]}@example.com"
    admin_auth.create_user(email=email, app=clients["app"])
    add_user_in_dialog(ui, {"#u-email": email, "#u-password": "secret-123", "#u-name": "Second"})
    ui.wait(lambda: "A user with this email already exists." in dialog_error(ui), "the readable refusal")
    assert ui.find("dialog[open] #u-name").get_attribute("value") == "Second"
    ui.find("dialog[open] [data-cancel]").click()
    matching = [user for user in admin_auth.list_users(app=clients["app"]).iterate_all() if user.email == email]
    assert len(matching) == 1
    expect_console(browser, "status of 400 (Bad Request)")


def test_a_user_whose_second_call_is_refused_is_not_left_half_made(ui, clients):
    """A user is added in two calls (create, then claims and the rest): when the second is refused, the first is
    undone. The refusal is made in the page (the dialog checks everything the emulator would refuse)."""
    email = f"half-{uuid.uuid4().hex[:8]}@example.com"
    ui.open("auth")
    ui.driver.execute_script("""
        const original = window.fetch;
        window.fetch = (url, init) => String(url).endsWith('/accounts:update')
          ? Promise.resolve(new Response('{"error": {"code": 400, "message": "CLAIMS_TOO_LARGE"}}', {status: 400}))
          : original(url, init);""")
    ui.find("[data-add]").click()
    ui.fill_dialog({"#u-email": email, "#u-claims": '{"role": "editor"}'}, submit=False)
    ui.find("dialog[open] button.primary").click()
    ui.wait(lambda: "Custom claims may take 1000 characters at most" in dialog_error(ui), "the refusal")
    ui.find("dialog[open] [data-cancel]").click()
    assert no_user_with(email, clients)


def test_an_idle_auth_page_with_thousands_of_users_reads_little(ui, clients):
    auth = f"{clients['auth']}/identitytoolkit.googleapis.com/v1/projects/{PROJECT}"
    for start in range(0, 5000, 1000):
        users = [{"localId": f"many{n:05d}", "email": f"many{n:05d}@example.com", "displayName": f"Many {n}",
                  "createdAt": str(1_600_000_000_000 + n)} for n in range(start, start + 1000)]
        created = requests.post(f"{auth}/accounts:batchCreate", json={"users": users}, headers=OWNER, timeout=30)
        assert created.status_code == 200 and not created.json().get("error"), created.text[:500]
    try:
        every = requests.post(f"{auth}/accounts:query", json={}, headers=OWNER, timeout=30).content
        ui.open("auth")
        ui.wait(lambda: ui.driver.find_elements("css selector", "tr[data-uid]"), "the first page of users")
        # The emulator's answers are cross-origin without Timing-Allow-Origin, so resource timing has no sizes:
        # the page's own fetch counts what it reads.
        ui.driver.execute_script("""
            window.read = {requests: 0, bytes: 0};
            const original = window.fetch;
            window.fetch = async (...args) => {
              const response = await original(...args);
              window.read.requests += 1;
              response.clone().arrayBuffer().then((b) => { window.read.bytes += b.byteLength; });
              return response;
            };""")
        time.sleep(3)
        read = ui.driver.execute_script("return window.read")
        print(f"idle 3 s with {len(every)} bytes of users: {read}")
        assert read["requests"] > 0, "the page stopped reading"
        assert read["bytes"] < len(every) / 10, read
        email = f"late-{uuid.uuid4().hex[:8]}@example.com"
        admin_auth.create_user(email=email, app=clients["app"])
        ui.wait(lambda: email in ui.text(), "a user added while the page is open", WAIT)
    finally:
        requests.delete(f"{clients['auth']}/emulator/v1/projects/{PROJECT}/accounts", timeout=30)
