"""Firebase Auth in a browser: firebase-auth.js 10.7.1 with connectAuthEmulator against a hearth of this module's
own (the email-privacy test changes the project's config).

Production facts asserted: the JS SDK maps the Identity Toolkit's INVALID_PASSWORD / EMAIL_NOT_FOUND to
auth/wrong-password / auth/user-not-found, and INVALID_LOGIN_CREDENTIALS (what the Auth emulator and production
answer when email enumeration protection, `emailPrivacyConfig.enableImprovedEmailPrivacy`, is on; off by default
in the emulator) to auth/invalid-credential. ID tokens carry `iat` in seconds, so a forced refresh gives a different
token once the clock has moved to the next second.
"""

from __future__ import annotations

import base64
import json
import time
import uuid

import pytest
import requests

from support import CUSTOM_TOKEN_AUDIENCE, decode_jwt

def unique_email(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}@example.com"


def unsigned_jwt(payload: dict) -> str:
    segment = lambda part: base64.urlsafe_b64encode(json.dumps(part).encode()).rstrip(b"=").decode()
    return f"{segment({'alg': 'none', 'typ': 'JWT'})}.{segment(payload)}."


def lookup(endpoints, uid: str) -> dict:
    """The account as the Admin API sees it (Bearer owner)."""
    response = requests.post(
        f"http://{endpoints.auth}/identitytoolkit.googleapis.com/v1/projects/{endpoints.project_id}/accounts:lookup",
        json={"localId": [uid]}, headers={"Authorization": "Bearer owner"}, timeout=10)
    assert response.status_code == 200, response.text
    users = response.json().get("users", [])
    assert len(users) == 1, response.text
    return users[0]


def test_create_user_sign_out_and_sign_in_with_password(page, endpoints):
    email = unique_email("create")
    result = page.run("""
        const {auth: A} = fb;
        const auth = h.auth(h.app("a"));
        const created = await A.createUserWithEmailAndPassword(auth, args.email, "secret12");
        const afterCreate = {uid: created.user.uid, email: created.user.email, current: auth.currentUser?.uid,
                             providers: created.user.providerData.map((p) => p.providerId),
                             anonymous: created.user.isAnonymous,
                             isNewUser: A.getAdditionalUserInfo(created).isNewUser};
        await A.signOut(auth);
        const afterSignOut = auth.currentUser;
        const signedIn = await A.signInWithEmailAndPassword(auth, args.email, "secret12");
        return {afterCreate, afterSignOut, signedIn: signedIn.user.uid, current: auth.currentUser?.uid,
                isNewUser: A.getAdditionalUserInfo(signedIn).isNewUser, token: await signedIn.user.getIdToken()};
    """, email=email)
    created = result["afterCreate"]
    assert created["email"] == email
    assert created["current"] == created["uid"]
    assert created["providers"] == ["password"]
    assert created["anonymous"] is False
    assert created["isNewUser"] is True
    assert result["afterSignOut"] is None
    assert result["signedIn"] == result["current"] == created["uid"]
    assert result["isNewUser"] is False
    _, claims, _ = decode_jwt(result["token"])
    assert claims["sub"] == claims["user_id"] == created["uid"]
    assert claims["email"] == email
    assert claims["aud"] == endpoints.project_id
    assert claims["iss"] == f"https://securetoken.google.com/{endpoints.project_id}"
    assert claims["firebase"]["sign_in_provider"] == "password"
    assert lookup(endpoints, created["uid"])["email"] == email


@pytest.mark.parametrize("improved_privacy, wrong_password, unknown_email", [
    (False, "auth/wrong-password", "auth/user-not-found"),
    (True, "auth/invalid-credential", "auth/invalid-credential"),
], ids=["default", "email-enumeration-protection"])
def test_wrong_password(page, endpoints, improved_privacy, wrong_password, unknown_email):
    page.expect_console("sign-in refused")
    config_url = f"http://{endpoints.auth}/emulator/v1/projects/{endpoints.project_id}/config"
    response = requests.patch(config_url, json={"emailPrivacyConfig": {"enableImprovedEmailPrivacy": improved_privacy}},
                              timeout=10)
    assert response.status_code == 200, response.text
    try:
        result = page.run("""
            const {auth: A} = fb;
            const auth = h.auth(h.app("a"));
            await A.createUserWithEmailAndPassword(auth, args.email, "secret12");
            await A.signOut(auth);
            const codes = {};
            for (const [name, email, password] of [["wrong", args.email, "not-the-password"],
                                                    ["unknown", args.unknown, "secret12"]]) {
              try { await A.signInWithEmailAndPassword(auth, email, password); codes[name] = "signed in"; }
              catch (error) { codes[name] = error.code; }
            }
            codes.current = auth.currentUser;
            return codes;
        """, email=unique_email("wrong"), unknown=unique_email("nobody"))
    finally:
        requests.patch(config_url, json={"emailPrivacyConfig": {"enableImprovedEmailPrivacy": False}}, timeout=10)
    assert result == {"wrong": wrong_password, "unknown": unknown_email, "current": None}


def test_sign_in_anonymously(page, endpoints):
    result = page.run("""
        const {auth: A} = fb;
        const auth = h.auth(h.app("a"));
        const credential = await A.signInAnonymously(auth);
        return {uid: credential.user.uid, anonymous: credential.user.isAnonymous, email: credential.user.email,
                providers: credential.user.providerData.length, current: auth.currentUser?.uid,
                token: await credential.user.getIdToken()};
    """)
    assert result["anonymous"] is True
    assert result["email"] is None
    assert result["providers"] == 0
    assert result["current"] == result["uid"]
    _, claims, _ = decode_jwt(result["token"])
    assert claims["user_id"] == result["uid"]
    assert claims["firebase"]["sign_in_provider"] == "anonymous"
    account = lookup(endpoints, result["uid"])
    assert "email" not in account and not account.get("providerUserInfo")


def test_on_auth_state_changed_fires_on_sign_in_and_sign_out(page):
    result = page.run("""
        const {auth: A} = fb;
        const auth = h.auth(h.app("a"));
        const seen = [];
        const unsubscribe = A.onAuthStateChanged(auth, (user) => seen.push(user ? user.uid : null));
        await h.until(() => seen.length === 1, "the initial callback (no user)");
        const created = await A.createUserWithEmailAndPassword(auth, args.email, "secret12");
        await h.until(() => seen.length === 2, "the callback after sign-in");
        await A.signOut(auth);
        await h.until(() => seen.length === 3, "the callback after sign-out");
        await A.signInWithEmailAndPassword(auth, args.email, "secret12");
        await h.until(() => seen.length === 4, "the callback after signing in again");
        await h.sleep(100);  // nothing more may come
        unsubscribe();
        return {uid: created.user.uid, seen};
    """, email=unique_email("state"))
    assert result["seen"] == [None, result["uid"], None, result["uid"]]


def test_forced_token_refresh_gives_a_new_token(page):
    result = page.run("""
        const {auth: A} = fb;
        const auth = h.auth(h.app("a"));
        const credential = await A.createUserWithEmailAndPassword(auth, args.email, "secret12");
        const first = await credential.user.getIdToken();
        const issued = JSON.parse(atob(first.split(".")[1].replace(/-/g, "+").replace(/_/g, "/"))).iat;
        await h.until(() => Date.now() / 1000 >= issued + 1.05, "the next second", 3000);
        const refreshes = () => performance.getEntriesByType("resource")
          .filter((entry) => entry.name.includes("/securetoken.googleapis.com/v1/token")).length;
        const before = refreshes();
        const second = await credential.user.getIdToken(true);
        const cached = await credential.user.getIdToken();
        return {first, second, cached, refreshes: refreshes() - before, uid: credential.user.uid};
    """, email=unique_email("refresh"))
    assert result["refreshes"] == 1, "getIdToken(true) must call the Secure Token API once"
    assert result["second"] != result["first"]
    assert result["cached"] == result["second"]
    _, before, _ = decode_jwt(result["first"])
    _, after, _ = decode_jwt(result["second"])
    assert after["iat"] > before["iat"]
    assert after["exp"] - after["iat"] == 3600
    assert after["user_id"] == before["user_id"] == result["uid"]
    assert after["auth_time"] == before["auth_time"], "a refresh is not a new sign-in"


def test_update_profile(page, endpoints):
    result = page.run("""
        const {auth: A} = fb;
        const auth = h.auth(h.app("a"));
        const credential = await A.createUserWithEmailAndPassword(auth, args.email, "secret12");
        await A.updateProfile(credential.user, {displayName: "Ada Lovelace", photoURL: "https://example.com/ada.png"});
        const local = {name: credential.user.displayName, photo: credential.user.photoURL};
        // Another app (another tab) signing in as the same user reads the profile from the server.
        const other = h.auth(h.app("b"));
        const again = await A.signInWithEmailAndPassword(other, args.email, "secret12");
        await A.reload(again.user);
        const token = await again.user.getIdToken(true);
        return {uid: credential.user.uid, local, remote: {name: again.user.displayName, photo: again.user.photoURL},
                token};
    """, email=unique_email("profile"))
    profile = {"name": "Ada Lovelace", "photo": "https://example.com/ada.png"}
    assert result["local"] == profile
    assert result["remote"] == profile
    _, claims, _ = decode_jwt(result["token"])
    assert claims["name"] == "Ada Lovelace"
    assert claims["picture"] == "https://example.com/ada.png"
    account = lookup(endpoints, result["uid"])
    assert account["displayName"] == "Ada Lovelace"
    assert account["photoUrl"] == "https://example.com/ada.png"


def test_sign_in_with_custom_token(page, endpoints):
    uid = "custom-" + uuid.uuid4().hex[:12]
    now = int(time.time())
    # An unsigned custom token, as firebase-admin mints one for the emulator (alg none).
    token = unsigned_jwt({"aud": CUSTOM_TOKEN_AUDIENCE, "iat": now, "exp": now + 3600, "uid": uid,
                          "iss": "firebase-adminsdk@demo.iam.gserviceaccount.com",
                          "sub": "firebase-adminsdk@demo.iam.gserviceaccount.com",
                          "claims": {"role": "editor", "level": 3}})
    result = page.run("""
        const {auth: A} = fb;
        const auth = h.auth(h.app("a"));
        const credential = await A.signInWithCustomToken(auth, args.token);
        const claims = (await credential.user.getIdTokenResult()).claims;
        return {uid: credential.user.uid, anonymous: credential.user.isAnonymous, claims};
    """, token=token)
    assert result["uid"] == uid and result["anonymous"] is False
    assert result["claims"]["role"] == "editor" and result["claims"]["level"] == 3
    assert result["claims"]["firebase"]["sign_in_provider"] == "custom"
    assert lookup(endpoints, uid)["localId"] == uid


def test_link_anonymous_account_then_delete_it(page, endpoints):
    page.expect_console("sign-in refused")
    email = unique_email("link")
    result = page.run("""
        const {auth: A} = fb;
        const auth = h.auth(h.app("a"));
        const anonymous = await A.signInAnonymously(auth);
        const credential = A.EmailAuthProvider.credential(args.email, "secret12");
        const linked = await A.linkWithCredential(anonymous.user, credential);
        const afterLink = {uid: linked.user.uid, anonymous: linked.user.isAnonymous, email: linked.user.email,
                           provider: (await linked.user.getIdTokenResult()).signInProvider};
        await A.signOut(auth);
        const again = await A.signInWithEmailAndPassword(auth, args.email, "secret12");
        const sameUser = again.user.uid === anonymous.user.uid;
        await A.deleteUser(again.user);
        let afterDelete;
        try { await A.signInWithEmailAndPassword(auth, args.email, "secret12"); afterDelete = "signed in"; }
        catch (error) { afterDelete = error.code; }
        return {uid: anonymous.user.uid, afterLink, sameUser, current: auth.currentUser, afterDelete};
    """, email=email)
    assert result["afterLink"] == {"uid": result["uid"], "anonymous": False, "email": email, "provider": "password"}
    assert result["sameUser"] is True
    assert result["current"] is None
    assert result["afterDelete"] == "auth/user-not-found"
    response = requests.post(
        f"http://{endpoints.auth}/identitytoolkit.googleapis.com/v1/projects/{endpoints.project_id}/accounts:lookup",
        json={"localId": [result["uid"]]}, headers={"Authorization": "Bearer owner"}, timeout=10)
    assert response.status_code == 200 and "users" not in response.json(), response.text


def oob_code(endpoints, email: str, request_type: str) -> str:
    """The latest out-of-band code the emulator recorded for `email` (emulator-only /oobCodes)."""
    response = requests.get(f"http://{endpoints.auth}/emulator/v1/projects/{endpoints.project_id}/oobCodes", timeout=10)
    assert response.status_code == 200, response.text
    codes = [code for code in response.json()["oobCodes"]
             if code["email"] == email and code["requestType"] == request_type]
    assert codes, f"no {request_type} code for {email}"
    return codes[-1]["oobCode"]


def test_signed_in_user_survives_a_reload_and_email_actions(page, endpoints):
    """The default persistence (IndexedDB) brings the user back after a reload (the SDK looks the account up);
    verification and password-reset emails are sent and their codes applied as the user's browser would."""
    email = unique_email("actions")
    name = "persisted-" + uuid.uuid4().hex[:8]
    uid = page.run("""
        const {auth: A} = fb;
        const auth = h.auth(h.app(args.name, {}, true));
        const credential = await A.createUserWithEmailAndPassword(auth, args.email, "secret12");
        await A.sendEmailVerification(credential.user);
        await A.sendPasswordResetEmail(auth, args.email);
        return credential.user.uid;
    """, name=name, email=email)
    page.load()
    result = page.run("""
        const {auth: A} = fb;
        const auth = h.auth(h.app(args.name, {}, true));
        await auth.authStateReady();
        const restored = {uid: auth.currentUser?.uid, verified: auth.currentUser?.emailVerified};
        await A.applyActionCode(auth, args.verify);
        await A.reload(auth.currentUser);
        const verified = auth.currentUser.emailVerified;
        const resetFor = await A.verifyPasswordResetCode(auth, args.reset);
        await A.confirmPasswordReset(auth, args.reset, "new-secret");
        await A.signOut(auth);
        const again = await A.signInWithEmailAndPassword(auth, args.email, "new-secret");
        return {restored, verified, resetFor, again: again.user.uid,
                claim: (await again.user.getIdTokenResult()).claims.email_verified};
    """, name=name, email=email, verify=oob_code(endpoints, email, "VERIFY_EMAIL"),
        reset=oob_code(endpoints, email, "PASSWORD_RESET"))
    assert result == {"restored": {"uid": uid, "verified": False}, "verified": True, "resetFor": email, "again": uid,
                      "claim": True}
