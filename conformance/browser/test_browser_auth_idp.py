"""signInWithPopup and signInWithRedirect in a browser, through the Auth emulator's fake identity provider
(`/emulator/auth/handler`, where the user picks or adds an account, and `/emulator/auth/iframe`, which hands
the result to the SDK), as the official emulator serves them.

These machines have no Internet, and the SDK loads Google's `gapi` (https://apis.google.com/js/api.js) before
any popup or redirect, even against an emulator; so the page first includes Hearth's stand-in,
`/emulator/auth/gapi.js`, as an app's offline tests would. The pages themselves need nothing from elsewhere.
"""

from __future__ import annotations

import uuid

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

import requests

# Loads Hearth's gapi stand-in from the Auth emulator before the SDK needs it. (Popups and redirects need an
# `authDomain` in the app's options, emulator or not: the apps below set the project's default one.)
LOAD_GAPI = """
    if (!(window.gapi && gapi.iframes)) {
        await new Promise((resolve, reject) => {
            const script = document.createElement("script");
            script.src = "http://" + args.auth + "/emulator/auth/gapi.js";
            script.onload = resolve;
            script.onerror = () => reject(new Error("gapi.js did not load"));
            document.head.appendChild(script);
        });
    }
"""


def popup_window(page):
    """Switches to the popup the page opened."""
    WebDriverWait(page.driver, 10).until(lambda driver: len(driver.window_handles) > 1)
    popup = next(handle for handle in page.driver.window_handles if handle != page.handle)
    page.driver.switch_to.window(popup)
    WebDriverWait(page.driver, 10).until(expected_conditions.title_contains("Auth Emulator"))
    return popup


def add_account(driver, email: str, name: str) -> None:
    """Fills the handler page's new-account form and signs in."""
    driver.find_element(By.CSS_SELECTOR, ".js-new-account").click()
    driver.find_element(By.ID, "email-input").send_keys(email)
    driver.find_element(By.ID, "display-name-input").send_keys(name)
    driver.find_element(By.ID, "screen-name-input").send_keys("screen_" + name.split()[0].lower())
    driver.find_element(By.ID, "sign-in").click()


def start_popup(page, endpoints) -> None:
    page.run(LOAD_GAPI + """
        const {auth: A} = fb;
        t.auth = h.auth(h.app("popup", {authDomain: args.authDomain}));
        t.outcome = null;
        A.signInWithPopup(t.auth, new A.GoogleAuthProvider()).then(
            (result) => t.outcome = {uid: result.user.uid, email: result.user.email, name: result.user.displayName,
                                     providers: result.user.providerData.map((p) => p.providerId),
                                     isNew: A.getAdditionalUserInfo(result).isNewUser,
                                     credential: A.GoogleAuthProvider.credentialFromResult(result)?.providerId},
            (error) => t.outcome = {error: error.code});
    """, auth=endpoints.auth, authDomain=f"{endpoints.project_id}.firebaseapp.com")


def finish_popup(page) -> dict:
    page.focus()
    return page.run("await h.until(() => t.outcome, 'the popup sign-in', 15000); return t.outcome;")


def test_sign_in_with_popup_adds_then_picks_an_account(page, endpoints):
    email = f"ada.{uuid.uuid4().hex[:6]}@example.com"
    start_popup(page, endpoints)
    popup_window(page)
    add_account(page.driver, email, "Ada Lovelace")
    first = finish_popup(page)
    assert first.get("error") is None, first
    assert first["email"] == email and first["name"] == "Ada Lovelace"
    assert first["providers"] == ["google.com"] and first["isNew"] is True
    assert first["credential"] == "google.com"
    WebDriverWait(page.driver, 10).until(lambda driver: len(driver.window_handles) == 1)  # the SDK closed it

    # Again, after signing out: the account is listed; picking it signs the same user in.
    page.run("await fb.auth.signOut(t.auth);")
    page.run("""
        const {auth: A} = fb;
        t.outcome = null;
        A.signInWithPopup(t.auth, new A.GoogleAuthProvider()).then(
            (result) => t.outcome = {uid: result.user.uid, isNew: A.getAdditionalUserInfo(result).isNewUser},
            (error) => t.outcome = {error: error.code});
    """)
    popup_window(page)
    listed = page.driver.find_elements(By.CSS_SELECTOR, "#accounts-list li")
    chosen = next(item for item in listed if email in item.text)
    assert "Ada Lovelace" in chosen.text
    chosen.find_element(By.TAG_NAME, "button").click()
    second = finish_popup(page)
    assert second == {"uid": first["uid"], "isNew": False}


def test_a_closed_popup_is_reported_as_closed_by_the_user(page, endpoints):
    start_popup(page, endpoints)
    popup_window(page)
    page.driver.close()
    page.driver.switch_to.window(page.handle)
    outcome = page.run("await h.until(() => t.outcome, 'the rejection', 20000); return t.outcome;")
    assert outcome == {"error": "auth/popup-closed-by-user"}


def test_sign_in_with_redirect_comes_back_signed_in(page, endpoints):
    email = f"grace.{uuid.uuid4().hex[:6]}@example.com"
    label = "redirect-" + uuid.uuid4().hex[:6]
    page.run(LOAD_GAPI + """
        const {auth: A} = fb;
        const auth = h.auth(h.app(args.label, {authDomain: args.authDomain}, true));
        const provider = new A.OAuthProvider("github.com");
        setTimeout(() => A.signInWithRedirect(auth, provider), 0);
    """, auth=endpoints.auth, label=label, authDomain=f"{endpoints.project_id}.firebaseapp.com")
    driver = page.driver
    WebDriverWait(driver, 10).until(expected_conditions.title_contains("Auth Emulator"))
    assert "/emulator/auth/handler" in driver.current_url and "authType=signInViaRedirect" in driver.current_url
    add_account(driver, email, "Grace Hopper")
    # Back on the app's page: a fresh load, whose SDK finds the pending redirect.
    WebDriverWait(driver, 10).until(lambda d: d.current_url.startswith(page.browser.server.url)
                                    and d.execute_script("return window.harnessReady === true"))
    driver.execute_script("h.configure(arguments[0])", endpoints.page_values())
    result = page.run(LOAD_GAPI + """
        const {auth: A} = fb;
        const auth = h.auth(h.app(args.label, {authDomain: args.authDomain}, true));
        const result = await A.getRedirectResult(auth);
        return {email: result.user.email, name: result.user.displayName, operation: result.operationType,
                providers: result.user.providerData.map((p) => p.providerId), current: auth.currentUser?.email};
    """, auth=endpoints.auth, label=label, authDomain=f"{endpoints.project_id}.firebaseapp.com")
    assert result == {"email": email, "name": "Grace Hopper", "operation": "signIn", "providers": ["github.com"],
                      "current": email}
    # A later load has no redirect result: null, not a hang.
    page.load()
    again = page.run(LOAD_GAPI + """
        const auth = h.auth(h.app(args.label, {authDomain: args.authDomain}, true));
        return await fb.auth.getRedirectResult(auth);
    """, auth=endpoints.auth, label=label, authDomain=f"{endpoints.project_id}.firebaseapp.com")
    assert again is None


def test_the_handler_refuses_a_request_without_its_parameters(endpoints):
    base = f"http://{endpoints.auth}/emulator/auth/handler"
    missing_key = requests.get(base, params={"providerId": "google.com"}, timeout=10)
    assert missing_key.status_code == 400 and "apiKey" in missing_key.json()["authEmulator"]["error"]
    missing_provider = requests.get(base, params={"apiKey": "k"}, timeout=10)
    assert missing_provider.status_code == 400 and "providerId" in missing_provider.json()["authEmulator"]["error"]
    page = requests.get(base, params={"apiKey": "k", "appName": "a", "providerId": "<b>x</b>", "authType": "signInViaPopup"},
                        timeout=10)
    assert page.status_code == 200 and "<b>x</b>" not in page.text and "&lt;b&gt;x&lt;/b&gt;" in page.text
