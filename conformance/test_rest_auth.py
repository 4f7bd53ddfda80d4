"""The Auth emulator's REST API as the JS and iOS SDKs call it (Identity Toolkit v1 + Secure Token).

Expected values are the official emulator's (firebase-tools `src/emulator/auth`) and production's wire
format: paths prefixed with the production host, `?key=` API keys, exact `kind` strings, exact error
messages in Google's envelope. See shared/reference/storage-auth-hub.md Part B.
"""

from __future__ import annotations

import base64
import json
import random
import re
import time
import uuid
from urllib.parse import urlencode

import pytest

from support import API_KEY, CUSTOM_TOKEN_AUDIENCE, bad_request, decode_jwt

LOCAL_ID = re.compile(r"^[A-Za-z0-9]{28}$")
OOB_CODE = re.compile(r"^[A-Za-z0-9_-]{54}$")
DIGITS_MS = re.compile(r"^\d{13}$")


def unique_phone() -> str:
    return "+1555" + "".join(random.choice("0123456789") for _ in range(7))


def assert_tokens(body: dict) -> None:
    assert isinstance(body.get("idToken"), str) and body["idToken"], body
    assert isinstance(body.get("refreshToken"), str) and body["refreshToken"], body
    assert body.get("expiresIn") == "3600", body


def assert_id_token(token: str, project_id: str, local_id: str, provider: str) -> dict:
    """The official emulator's ID token: unsigned JWT with the production claim set."""
    header, payload, signature = decode_jwt(token)
    assert header == {"alg": "none", "typ": "JWT"}, header
    assert signature == "", "ID tokens are unsigned: empty third segment"
    assert payload["iss"] == f"https://securetoken.google.com/{project_id}", payload
    assert payload["aud"] == project_id, payload
    assert payload["sub"] == local_id and payload["user_id"] == local_id, payload
    for claim in ("iat", "exp", "auth_time"):
        assert isinstance(payload[claim], int), (claim, payload)
    assert payload["exp"] == payload["iat"] + 3600, payload
    assert abs(payload["iat"] - time.time()) < 120, payload
    assert payload["firebase"]["sign_in_provider"] == provider, payload
    assert isinstance(payload["firebase"]["identities"], dict), payload
    return payload


# --------------------------------------------------------------------------------------------
# accounts:signUp


def test_sign_up_with_email_and_password(rest, project_id, unique_email):
    email = unique_email("signup")
    response = rest.accounts("signUp", {"email": email.upper(), "password": "secret12", "returnSecureToken": True})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["kind"] == "identitytoolkit#SignupNewUserResponse"
    assert LOCAL_ID.match(body["localId"]), body
    assert body["email"] == email, "emails are canonicalised to lower case"
    assert_tokens(body)
    payload = assert_id_token(body["idToken"], project_id, body["localId"], "password")
    assert payload["email"] == email
    assert payload["email_verified"] is False
    assert payload["firebase"]["identities"] == {"email": [email]}
    assert "provider_id" not in payload, "provider_id is only set for anonymous sign-in"


def test_sign_up_anonymous_with_empty_body(rest, project_id):
    response = rest.accounts("signUp", {})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["kind"] == "identitytoolkit#SignupNewUserResponse"
    assert LOCAL_ID.match(body["localId"]), body
    assert "email" not in body
    assert_tokens(body)
    payload = assert_id_token(body["idToken"], project_id, body["localId"], "anonymous")
    assert payload["provider_id"] == "anonymous"
    assert payload["firebase"]["identities"] == {}
    assert "email" not in payload and "email_verified" not in payload


def test_sign_up_existing_email_is_email_exists_exactly(rest, unique_email):
    email = unique_email("dup")
    rest.sign_up(email)
    response = rest.accounts("signUp", {"email": email, "password": "another1", "returnSecureToken": True})
    assert response.status_code == 400
    assert response.json() == {
        "error": {
            "code": 400,
            "message": "EMAIL_EXISTS",
            "errors": [{"message": "EMAIL_EXISTS", "reason": "invalid", "domain": "global"}],
        }
    }


@pytest.mark.parametrize(
    "body, message",
    [
        ({"email": "weak@example.com", "password": "12345"}, "WEAK_PASSWORD : Password should be at least 6 characters"),
        ({"email": "not-an-email", "password": "secret12"}, "INVALID_EMAIL"),
        ({"email": "nopassword@example.com"}, "MISSING_PASSWORD"),
        ({"password": "secret12"}, "MISSING_EMAIL"),
    ],
    ids=["weak-password", "invalid-email", "missing-password", "missing-email"],
)
def test_sign_up_bad_input(rest, body, message):
    bad_request(rest.accounts("signUp", {**body, "returnSecureToken": True}), message)


def test_sign_up_through_legacy_v3_path(rest, unique_email):
    """Old SDKs still call www.googleapis.com/identitytoolkit/v3/relyingparty/signupNewUser."""
    email = unique_email("legacy")
    response = rest.post(
        "/www.googleapis.com/identitytoolkit/v3/relyingparty/signupNewUser",
        {"email": email, "password": "secret12", "returnSecureToken": True},
    )
    assert response.status_code == 200, response.text
    assert response.json()["email"] == email
    assert rest.sign_in(email)["email"] == email


# --------------------------------------------------------------------------------------------
# accounts:signInWithPassword


def test_sign_in_with_password(rest, project_id, unique_email):
    email = unique_email("signin")
    created = rest.sign_up(email)
    response = rest.accounts(
        "signInWithPassword", {"email": email.upper(), "password": "secret12", "returnSecureToken": True}
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["kind"] == "identitytoolkit#VerifyPasswordResponse"
    assert body["registered"] is True
    assert body["localId"] == created["localId"]
    assert body["email"] == email
    assert_tokens(body)
    assert_id_token(body["idToken"], project_id, created["localId"], "password")


def test_sign_in_wrong_password_is_invalid_password(rest, unique_email):
    email = unique_email("wrongpw")
    rest.sign_up(email)
    bad_request(rest.accounts("signInWithPassword", {"email": email, "password": "Secret12"}), "INVALID_PASSWORD")


def test_sign_in_unknown_email_is_email_not_found(rest, unique_email):
    bad_request(
        rest.accounts("signInWithPassword", {"email": unique_email("nobody"), "password": "secret12"}),
        "EMAIL_NOT_FOUND",
    )


def test_sign_in_missing_fields(rest, unique_email):
    bad_request(rest.accounts("signInWithPassword", {"password": "secret12"}), "MISSING_EMAIL")
    bad_request(rest.accounts("signInWithPassword", {"email": unique_email()}), "MISSING_PASSWORD")
    bad_request(rest.accounts("signInWithPassword", {"email": "", "password": "secret12"}), "INVALID_EMAIL")


def test_sign_in_disabled_user_is_user_disabled(rest, unique_email):
    email = unique_email("disabled")
    created = rest.sign_up(email)
    response = rest.admin("POST", "accounts:update", {"localId": created["localId"], "disableUser": True})
    assert response.status_code == 200, response.text
    # USER_DISABLED wins over a wrong password, as in the official emulator.
    bad_request(rest.accounts("signInWithPassword", {"email": email, "password": "secret12"}), "USER_DISABLED")
    bad_request(rest.accounts("signInWithPassword", {"email": email, "password": "wrong-one"}), "USER_DISABLED")
    bad_request(rest.refresh(created["refreshToken"]), "USER_DISABLED")


# --------------------------------------------------------------------------------------------
# Secure Token refresh


def test_refresh_token_form_encoded_as_the_js_sdk_sends_it(rest, project_id, unique_email):
    created = rest.sign_up(unique_email("refresh"))
    response = rest.refresh(created["refreshToken"])
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == {
        "id_token", "access_token", "expires_in", "refresh_token", "token_type", "user_id", "project_id",
    }, body
    assert body["access_token"] == body["id_token"]
    assert body["expires_in"] == "3600"
    assert body["token_type"] == "Bearer"
    assert body["user_id"] == created["localId"]
    assert body["project_id"] == "12345", "the emulator's project number"
    assert body["refresh_token"]
    assert_id_token(body["id_token"], project_id, created["localId"], "password")


def test_refresh_token_encoding_matches_the_official_emulator(rest, project_id, unique_email):
    """Refresh tokens are standard base64 of a JSON record, so tokens survive a switch of emulators."""
    created = rest.sign_up(unique_email("rtformat"))
    record = json.loads(base64.b64decode(created["refreshToken"]))
    assert record["_AuthEmulatorRefreshToken"] == "DO NOT MODIFY"
    assert record["localId"] == created["localId"]
    assert record["provider"] == "password"
    assert record["projectId"] == project_id
    assert record["extraClaims"] == {}


def test_refresh_token_json_body(rest, unique_email):
    created = rest.sign_up(unique_email("refreshjson"))
    response = rest.post(
        "/securetoken.googleapis.com/v1/token",
        {"grantType": "refresh_token", "refreshToken": created["refreshToken"]},
    )
    assert response.status_code == 200, response.text
    assert response.json()["user_id"] == created["localId"]


def test_refresh_keeps_anonymous_provider(rest, project_id):
    created = rest.accounts("signUp", {}).json()
    body = rest.refresh(created["refreshToken"]).json()
    payload = assert_id_token(body["id_token"], project_id, created["localId"], "anonymous")
    assert payload["provider_id"] == "anonymous"


def test_refresh_errors(rest, unique_email):
    created = rest.sign_up(unique_email("refresherr"))
    token_path = "/securetoken.googleapis.com/v1/token"
    bad_request(rest.refresh("not-a-refresh-token"), "INVALID_REFRESH_TOKEN")
    bad_request(rest.post(token_path, {"refreshToken": created["refreshToken"]}), "MISSING_GRANT_TYPE")
    bad_request(
        rest.post(token_path, {"grantType": "authorization_code", "refreshToken": created["refreshToken"]}),
        "INVALID_GRANT_TYPE",
    )
    bad_request(rest.post(token_path, {"grantType": "refresh_token"}), "MISSING_REFRESH_TOKEN")


# --------------------------------------------------------------------------------------------
# accounts:lookup


def test_lookup_with_id_token(rest, unique_email):
    email = unique_email("lookup")
    created = rest.sign_up(email, displayName="Lookup Person")
    response = rest.accounts("lookup", {"idToken": created["idToken"]})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["kind"] == "identitytoolkit#GetAccountInfoResponse"
    assert len(body["users"]) == 1
    user = body["users"][0]
    assert user["localId"] == created["localId"]
    assert user["email"] == email
    assert user["emailVerified"] is False
    assert user["displayName"] == "Lookup Person"
    assert DIGITS_MS.match(user["createdAt"]), user
    assert DIGITS_MS.match(user["lastLoginAt"]), user
    assert re.match(r"^\d{10}$", user["validSince"]), user
    assert isinstance(user["passwordUpdatedAt"], int), user
    password_entries = [p for p in user["providerUserInfo"] if p["providerId"] == "password"]
    assert password_entries and password_entries[0]["email"] == email
    assert password_entries[0]["rawId"] == email and password_entries[0]["federatedId"] == email


def test_lookup_errors(rest, unique_email):
    bad_request(rest.accounts("lookup", {}), "MISSING_ID_TOKEN")
    bad_request(rest.accounts("lookup", {"idToken": "garbage"}), "INVALID_ID_TOKEN")


# --------------------------------------------------------------------------------------------
# accounts:update


def test_update_profile_then_delete_attribute(rest, unique_email):
    created = rest.sign_up(unique_email("profile"))
    response = rest.accounts(
        "update",
        {
            "idToken": created["idToken"],
            "displayName": "New Name",
            "photoUrl": "https://example.com/me.png",
            "returnSecureToken": True,
        },
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["kind"] == "identitytoolkit#SetAccountInfoResponse"
    assert body["localId"] == created["localId"]
    assert body["displayName"] == "New Name"
    assert body["photoUrl"] == "https://example.com/me.png"
    assert "idToken" not in body, "a profile-only update issues no new tokens"
    user = rest.accounts("lookup", {"idToken": created["idToken"]}).json()["users"][0]
    assert user["displayName"] == "New Name" and user["photoUrl"] == "https://example.com/me.png"

    response = rest.accounts("update", {"idToken": created["idToken"], "deleteAttribute": ["DISPLAY_NAME"]})
    assert response.status_code == 200, response.text
    user = rest.accounts("lookup", {"idToken": created["idToken"]}).json()["users"][0]
    assert "displayName" not in user
    assert user["photoUrl"] == "https://example.com/me.png"


def test_update_password_issues_new_tokens_and_expires_old_ones(rest, project_id, unique_email):
    email = unique_email("changepw")
    created = rest.sign_up(email)
    time.sleep(1.1)  # validSince has second resolution: the old token must be strictly older
    response = rest.accounts(
        "update", {"idToken": created["idToken"], "password": "newpass99", "returnSecureToken": True}
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["localId"] == created["localId"]
    assert_tokens(body)
    assert_id_token(body["idToken"], project_id, created["localId"], "password")
    bad_request(rest.accounts("lookup", {"idToken": created["idToken"]}), "TOKEN_EXPIRED")
    assert rest.accounts("lookup", {"idToken": body["idToken"]}).status_code == 200
    assert rest.sign_in(email, "newpass99")["localId"] == created["localId"]
    bad_request(rest.accounts("signInWithPassword", {"email": email, "password": "secret12"}), "INVALID_PASSWORD")


def test_update_email(rest, unique_email):
    created = rest.sign_up(unique_email("oldmail"))
    new_email = unique_email("newmail")
    response = rest.accounts("update", {"idToken": created["idToken"], "email": new_email.upper()})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["email"] == new_email
    assert body["emailVerified"] is False
    assert rest.sign_in(new_email)["localId"] == created["localId"]


def test_update_errors(rest, unique_email):
    created = rest.sign_up(unique_email("upderr"))
    other = unique_email("taken")
    rest.sign_up(other)
    bad_request(rest.accounts("update", {"displayName": "x"}), "INVALID_REQ_TYPE : Unsupported request parameters.")
    bad_request(
        rest.accounts("update", {"idToken": created["idToken"], "customAttributes": '{"admin":true}'}),
        "INSUFFICIENT_PERMISSION",
    )
    bad_request(rest.accounts("update", {"idToken": created["idToken"], "email": other}), "EMAIL_EXISTS")
    bad_request(
        rest.accounts("update", {"idToken": created["idToken"], "password": "123"}),
        "WEAK_PASSWORD : Password should be at least 6 characters",
    )


# --------------------------------------------------------------------------------------------
# Out-of-band codes: password reset, email verification, email-link sign-in


def test_password_reset_through_the_oob_codes_listing(rest, suite, unique_email):
    email = unique_email("reset")
    created = rest.sign_up(email)
    response = rest.accounts("sendOobCode", {"requestType": "PASSWORD_RESET", "email": email})
    assert response.status_code == 200, response.text
    assert response.json() == {"kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": email}

    code = rest.latest_oob(email, "PASSWORD_RESET")
    assert OOB_CODE.match(code["oobCode"]), code
    assert code["oobLink"].startswith(f"http://{suite.auth_host}/emulator/action?"), code
    assert "mode=resetPassword" in code["oobLink"] and f"oobCode={code['oobCode']}" in code["oobLink"]
    assert "apiKey=fake-api-key" in code["oobLink"] and "lang=en" in code["oobLink"]

    # Without newPassword the code is only inspected, not used up.
    response = rest.accounts("resetPassword", {"oobCode": code["oobCode"]})
    assert response.status_code == 200, response.text
    assert response.json() == {
        "kind": "identitytoolkit#ResetPasswordResponse", "requestType": "PASSWORD_RESET", "email": email,
    }

    response = rest.accounts("resetPassword", {"oobCode": code["oobCode"], "newPassword": "reset-pw-1"})
    assert response.status_code == 200, response.text
    assert response.json()["email"] == email
    assert response.json()["requestType"] == "PASSWORD_RESET"
    assert all(c["oobCode"] != code["oobCode"] for c in rest.oob_codes()), "a used code leaves the listing"
    bad_request(rest.accounts("resetPassword", {"oobCode": code["oobCode"], "newPassword": "again-pw-2"}), "INVALID_OOB_CODE")

    assert rest.sign_in(email, "reset-pw-1")["localId"] == created["localId"]
    bad_request(rest.accounts("signInWithPassword", {"email": email, "password": "secret12"}), "INVALID_PASSWORD")
    lookup = rest.admin("POST", "accounts:lookup", {"localId": [created["localId"]]}).json()
    assert lookup["users"][0]["emailVerified"] is True, "a password reset proves the email"


def test_password_reset_by_following_the_oob_link(rest, unique_email):
    """What a developer does by hand: open the logged link with &newPassword=… appended."""
    email = unique_email("resetlink")
    created = rest.sign_up(email)
    rest.accounts("sendOobCode", {"requestType": "PASSWORD_RESET", "email": email})
    link = rest.latest_oob(email, "PASSWORD_RESET")["oobLink"]
    response = rest.http.get(link + "&newPassword=clicked-pw-1", timeout=10)
    assert response.status_code == 200, response.text
    assert response.json() == {
        "authEmulator": {"success": "The password has been successfully updated.", "email": email}
    }
    assert rest.sign_in(email, "clicked-pw-1")["localId"] == created["localId"]


def test_password_reset_errors(rest, unique_email):
    bad_request(rest.accounts("sendOobCode", {"email": unique_email()}), "MISSING_REQ_TYPE")
    bad_request(rest.accounts("sendOobCode", {"requestType": "PASSWORD_RESET"}), "MISSING_EMAIL")
    bad_request(
        rest.accounts("sendOobCode", {"requestType": "PASSWORD_RESET", "email": unique_email("ghost")}),
        "EMAIL_NOT_FOUND",
    )
    bad_request(rest.accounts("resetPassword", {}), "MISSING_OOB_CODE")
    bad_request(rest.accounts("resetPassword", {"oobCode": "x" * 54, "newPassword": "whatever1"}), "INVALID_OOB_CODE")
    email = unique_email("weakreset")
    rest.sign_up(email)
    rest.accounts("sendOobCode", {"requestType": "PASSWORD_RESET", "email": email})
    code = rest.latest_oob(email, "PASSWORD_RESET")
    bad_request(
        rest.accounts("resetPassword", {"oobCode": code["oobCode"], "newPassword": "123"}),
        "WEAK_PASSWORD : Password should be at least 6 characters",
    )


def test_verify_email_flow(rest, unique_email):
    email = unique_email("verify")
    created = rest.sign_up(email)
    response = rest.accounts("sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": created["idToken"]})
    assert response.status_code == 200, response.text
    assert response.json() == {"kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": email}
    code = rest.latest_oob(email, "VERIFY_EMAIL")
    assert "mode=verifyEmail" in code["oobLink"]

    response = rest.accounts("update", {"oobCode": code["oobCode"]})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["kind"] == "identitytoolkit#SetAccountInfoResponse"
    assert body["email"] == email
    assert body["emailVerified"] is True
    user = rest.accounts("lookup", {"idToken": created["idToken"]}).json()["users"][0]
    assert user["emailVerified"] is True
    bad_request(rest.accounts("update", {"oobCode": code["oobCode"]}), "INVALID_OOB_CODE")
    # A fresh token now says the email is verified.
    payload = decode_jwt(rest.sign_in(email)["idToken"])[1]
    assert payload["email_verified"] is True


def test_verify_email_needs_an_id_token(rest, unique_email):
    bad_request(
        rest.accounts("sendOobCode", {"requestType": "VERIFY_EMAIL", "email": unique_email()}), "INVALID_ID_TOKEN"
    )


def test_email_link_sign_in(rest, project_id, unique_email):
    email = unique_email("emaillink")
    response = rest.accounts(
        "sendOobCode",
        {
            "requestType": "EMAIL_SIGNIN",
            "email": email,
            "continueUrl": "https://app.example.com/finish?x=1",
            "canHandleCodeInApp": True,
        },
    )
    assert response.status_code == 200, response.text
    assert response.json() == {"kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": email}
    code = rest.latest_oob(email, "EMAIL_SIGNIN")
    assert "mode=signIn" in code["oobLink"]
    assert "continueUrl=https%3A%2F%2Fapp.example.com%2Ffinish%3Fx%3D1" in code["oobLink"], code

    bad_request(
        rest.accounts("signInWithEmailLink", {"email": unique_email("other"), "oobCode": code["oobCode"]}),
        "INVALID_EMAIL : The email provided does not match the sign-in email address.",
    )
    # The email check comes before the code is used up, so the same code still works.
    response = rest.accounts("signInWithEmailLink", {"email": email, "oobCode": code["oobCode"]})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["kind"] == "identitytoolkit#EmailLinkSigninResponse"
    assert body["email"] == email
    assert body["isNewUser"] is True
    assert LOCAL_ID.match(body["localId"])
    assert_tokens(body)
    payload = assert_id_token(body["idToken"], project_id, body["localId"], "password")
    assert payload["email_verified"] is True

    bad_request(rest.accounts("signInWithEmailLink", {"email": email, "oobCode": code["oobCode"]}), "INVALID_OOB_CODE")
    methods = rest.accounts("createAuthUri", {"identifier": email, "continueUri": "http://localhost/"}).json()
    assert methods["signinMethods"] == ["emailLink"]

    # A second link signs the same user in again.
    rest.accounts("sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": email, "continueUrl": "http://localhost/"})
    again = rest.accounts(
        "signInWithEmailLink", {"email": email, "oobCode": rest.latest_oob(email, "EMAIL_SIGNIN")["oobCode"]}
    ).json()
    assert again["localId"] == body["localId"] and again["isNewUser"] is False


def test_email_link_errors(rest, unique_email):
    bad_request(rest.accounts("signInWithEmailLink", {"oobCode": "x"}), "MISSING_EMAIL")
    bad_request(rest.accounts("signInWithEmailLink", {"email": unique_email()}), "MISSING_OOB_CODE")
    bad_request(rest.accounts("signInWithEmailLink", {"email": unique_email(), "oobCode": "nope"}), "INVALID_OOB_CODE")
    bad_request(rest.accounts("sendOobCode", {"requestType": "EMAIL_SIGNIN"}), "MISSING_EMAIL")


# --------------------------------------------------------------------------------------------
# accounts:createAuthUri


def test_create_auth_uri(rest, unique_email):
    email = unique_email("authuri")
    rest.sign_up(email)
    response = rest.accounts("createAuthUri", {"identifier": email, "continueUri": "http://localhost/"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["kind"] == "identitytoolkit#CreateAuthUriResponse"
    assert body["registered"] is True
    assert body["allProviders"] == ["password"]
    assert body["signinMethods"] == ["password"]
    assert re.match(r"^[A-Za-z0-9]{27}$", body["sessionId"]), body

    body = rest.accounts("createAuthUri", {"identifier": unique_email("nobody"), "continueUri": "http://localhost/"}).json()
    assert body["registered"] is False
    assert body["allProviders"] == [] and body["signinMethods"] == []


def test_create_auth_uri_errors(rest, unique_email):
    bad_request(rest.accounts("createAuthUri", {"continueUri": "http://localhost/"}), "MISSING_IDENTIFIER")
    bad_request(rest.accounts("createAuthUri", {"identifier": unique_email()}), "MISSING_CONTINUE_URI")
    bad_request(
        rest.accounts("createAuthUri", {"identifier": "not-an-email", "continueUri": "http://localhost/"}),
        "INVALID_IDENTIFIER",
    )


# --------------------------------------------------------------------------------------------
# accounts:delete


def test_delete_account_with_id_token(rest, unique_email):
    email = unique_email("delete")
    created = rest.sign_up(email)
    response = rest.accounts("delete", {"idToken": created["idToken"]})
    assert response.status_code == 200, response.text
    assert response.json() == {"kind": "identitytoolkit#DeleteAccountResponse"}
    bad_request(rest.accounts("signInWithPassword", {"email": email, "password": "secret12"}), "EMAIL_NOT_FOUND")
    bad_request(rest.accounts("lookup", {"idToken": created["idToken"]}), "USER_NOT_FOUND")
    bad_request(rest.refresh(created["refreshToken"]), "INVALID_REFRESH_TOKEN")
    bad_request(rest.accounts("delete", {}), "MISSING_ID_TOKEN")


# --------------------------------------------------------------------------------------------
# Custom tokens and IdP sign-in over REST


def test_sign_in_with_plain_json_custom_token(rest, project_id, unique_uid):
    uid = unique_uid("jsoncustom")
    response = rest.accounts("signInWithCustomToken", {"token": json.dumps({"uid": uid}), "returnSecureToken": True})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["kind"] == "identitytoolkit#VerifyCustomTokenResponse"
    assert body["isNewUser"] is True
    assert_tokens(body)
    assert_id_token(body["idToken"], project_id, uid, "custom")
    again = rest.accounts("signInWithCustomToken", {"token": json.dumps({"uid": uid})}).json()
    assert again["isNewUser"] is False


def test_custom_token_errors(rest):
    bad_request(rest.accounts("signInWithCustomToken", {}), "MISSING_CUSTOM_TOKEN")
    bad_request(
        rest.accounts("signInWithCustomToken", {"token": "garbage"}), "INVALID_CUSTOM_TOKEN : Invalid assertion format"
    )

    def unsigned(payload: dict) -> str:
        segment = lambda obj: base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()
        return f"{segment({'alg': 'none', 'typ': 'JWT'})}.{segment(payload)}."

    bad_request(
        rest.accounts("signInWithCustomToken", {"token": unsigned({"aud": "wrong", "uid": "u1"})}),
        "INVALID_CUSTOM_TOKEN : ((Invalid aud (audience): wrong Note: Firebase ID Tokens / third-party tokens "
        "cannot be used with signInWithCustomToken.))",
    )
    bad_request(
        rest.accounts(
            "signInWithCustomToken", {"token": unsigned({"aud": CUSTOM_TOKEN_AUDIENCE, "uid": "u2", "claims": {"sub": "x"}})}
        ),
        "FORBIDDEN_CLAIM : sub",
    )


def test_sign_in_with_idp_google_fake_id_token(rest, project_id, unique_email):
    email = unique_email("google")
    sub = uuid.uuid4().hex
    id_token = json.dumps({"sub": sub, "email": email, "email_verified": True, "name": "Goo Gle"})
    response = rest.accounts(
        "signInWithIdp",
        {
            "requestUri": "http://localhost",
            "postBody": urlencode({"id_token": id_token, "providerId": "google.com"}),
            "returnSecureToken": True,
            "returnIdpCredential": True,
        },
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["kind"] == "identitytoolkit#VerifyAssertionResponse"
    assert body["providerId"] == "google.com"
    assert body["federatedId"] == f"https://accounts.google.com/{sub}"
    assert body["email"] == email and body["emailVerified"] is True
    assert body["displayName"] == "Goo Gle"
    assert body["isNewUser"] is True
    assert body["oauthIdToken"] == id_token
    assert body["oauthAccessToken"] == "FirebaseAuthEmulatorFakeAccessToken_google.com"
    assert_tokens(body)
    payload = assert_id_token(body["idToken"], project_id, body["localId"], "google.com")
    assert payload["firebase"]["identities"] == {"email": [email], "google.com": [sub]}


# --------------------------------------------------------------------------------------------
# Phone sign-in


def test_phone_sign_in_with_verification_code_listing(rest, project_id):
    phone = unique_phone()
    response = rest.accounts("sendVerificationCode", {"phoneNumber": phone, "recaptchaToken": "ignored"})
    assert response.status_code == 200, response.text
    session_info = response.json()["sessionInfo"]
    assert re.match(r"^[A-Za-z0-9_-]{226}$", session_info), session_info

    listing = rest.emulator("GET", "verificationCodes")
    assert listing.status_code == 200, listing.text
    entries = [c for c in listing.json()["verificationCodes"] if c["sessionInfo"] == session_info]
    assert len(entries) == 1
    entry = entries[0]
    assert entry["phoneNumber"] == phone
    assert re.match(r"^\d{6}$", entry["code"]), entry

    wrong = "000000" if entry["code"] != "000000" else "111111"
    bad_request(rest.accounts("signInWithPhoneNumber", {"sessionInfo": session_info, "code": wrong}), "INVALID_CODE")
    response = rest.accounts("signInWithPhoneNumber", {"sessionInfo": session_info, "code": entry["code"]})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["isNewUser"] is True
    assert body["phoneNumber"] == phone
    assert_tokens(body)
    payload = assert_id_token(body["idToken"], project_id, body["localId"], "phone")
    assert payload["phone_number"] == phone
    assert payload["firebase"]["identities"] == {"phone": [phone]}
    remaining = rest.emulator("GET", "verificationCodes").json()["verificationCodes"]
    assert all(c["sessionInfo"] != session_info for c in remaining), "a used code leaves the listing"


def test_phone_errors(rest):
    bad_request(rest.accounts("sendVerificationCode", {"phoneNumber": "5555550100"}), "INVALID_PHONE_NUMBER : Invalid format.")
    bad_request(rest.accounts("signInWithPhoneNumber", {"code": "123456"}), "MISSING_SESSION_INFO")
    bad_request(rest.accounts("signInWithPhoneNumber", {"sessionInfo": "abc"}), "MISSING_CODE")
    bad_request(rest.accounts("signInWithPhoneNumber", {"sessionInfo": "abc", "code": "123456"}), "INVALID_SESSION_INFO")


# --------------------------------------------------------------------------------------------
# Emulator-only endpoints


def test_delete_all_accounts_of_one_project_only(rest, suite, unique_email):
    other = f"demo-wipe-{uuid.uuid4().hex[:8]}"
    base = f"/identitytoolkit.googleapis.com/v1/projects/{other}"
    owner = {"Authorization": "Bearer owner"}
    email = unique_email("wipe")
    created = rest.http.post(rest.url(f"{base}/accounts"), json={"email": email, "password": "secret12"}, headers=owner)
    assert created.status_code == 200, created.text
    kept = rest.sign_up(unique_email("kept"))

    response = rest.http.delete(rest.url(f"/emulator/v1/projects/{other}/accounts"))
    assert response.status_code == 200, response.text
    assert response.json() == {}
    lookup = rest.http.post(rest.url(f"{base}/accounts:lookup"), json={"localId": [created.json()["localId"]]}, headers=owner)
    assert lookup.status_code == 200, lookup.text
    assert "users" not in lookup.json(), "users is omitted when nothing is found"
    assert rest.accounts("lookup", {"idToken": kept["idToken"]}).status_code == 200, "other projects keep their users"


def test_projects_are_isolated(rest, unique_email):
    email = unique_email("isolated")
    owner = {"Authorization": "Bearer owner"}
    ids = {}
    for project in (f"demo-iso-a-{uuid.uuid4().hex[:6]}", f"demo-iso-b-{uuid.uuid4().hex[:6]}"):
        url = rest.url(f"/identitytoolkit.googleapis.com/v1/projects/{project}/accounts")
        response = rest.http.post(url, json={"email": email, "password": "secret12"}, headers=owner)
        assert response.status_code == 200, response.text  # the same email in two projects is fine
        ids[project] = response.json()["localId"]
    (a, a_id), (b, b_id) = ids.items()
    url = rest.url(f"/identitytoolkit.googleapis.com/v1/projects/{a}/accounts:lookup")
    users = rest.http.post(url, json={"email": [email]}, headers=owner).json()["users"]
    assert [u["localId"] for u in users] == [a_id]


def test_emulator_config_get_and_patch(rest):
    project = f"demo-config-{uuid.uuid4().hex[:8]}"
    url = rest.url(f"/emulator/v1/projects/{project}/config")
    response = rest.http.get(url)
    assert response.status_code == 200, response.text
    assert response.json() == {
        "signIn": {"allowDuplicateEmails": False},
        "emailPrivacyConfig": {"enableImprovedEmailPrivacy": False},
    }
    response = rest.http.patch(url, json={"signIn": {"allowDuplicateEmails": True}})
    assert response.status_code == 200, response.text
    assert response.json() == {
        "signIn": {"allowDuplicateEmails": True},
        "emailPrivacyConfig": {"enableImprovedEmailPrivacy": False},
    }
    assert rest.http.get(url).json()["signIn"]["allowDuplicateEmails"] is True


def test_improved_email_privacy_hides_which_part_was_wrong(rest, unique_email):
    email = unique_email("privacy")
    rest.sign_up(email)
    try:
        response = rest.emulator("PATCH", "config", {"emailPrivacyConfig": {"enableImprovedEmailPrivacy": True}})
        assert response.status_code == 200, response.text
        assert response.json()["emailPrivacyConfig"] == {"enableImprovedEmailPrivacy": True}
        bad_request(
            rest.accounts("signInWithPassword", {"email": unique_email("nobody"), "password": "secret12"}),
            "INVALID_LOGIN_CREDENTIALS",
        )
        bad_request(rest.accounts("signInWithPassword", {"email": email, "password": "wrong-pw"}), "INVALID_LOGIN_CREDENTIALS")
        body = rest.accounts("createAuthUri", {"identifier": email, "continueUri": "http://localhost/"}).json()
        assert set(body) == {"kind", "sessionId"}, body
    finally:
        rest.emulator("PATCH", "config", {"emailPrivacyConfig": {"enableImprovedEmailPrivacy": False}})
    assert rest.sign_in(email)["email"] == email


def test_get_projects_config(rest):
    response = rest.http.get(rest.url("/identitytoolkit.googleapis.com/v1/projects"), params={"key": API_KEY})
    assert response.status_code == 200, response.text
    assert response.json()["projectId"] == "12345"
    assert response.json()["authorizedDomains"] == ["localhost"]


def test_root_says_ready(rest):
    response = rest.http.get(rest.url("/"))
    assert response.status_code == 200, response.text
    assert response.json() == {
        "authEmulator": {
            "ready": True,
            "docs": "https://firebase.google.com/docs/emulator-suite",
            "apiSpec": "/emulator/openapi.json",
        }
    }


# --------------------------------------------------------------------------------------------
# CORS and bad input


def test_cors_preflight_reflects_origin_and_headers(rest):
    origin = "http://localhost:5173"
    response = rest.http.options(
        rest.url("/identitytoolkit.googleapis.com/v1/accounts:signUp"),
        params={"key": API_KEY},
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type,x-client-version,x-firebase-gmpid",
        },
    )
    assert response.status_code == 204, response.text
    assert response.headers["Access-Control-Allow-Origin"] == origin
    allowed = {h.strip().lower() for h in response.headers["Access-Control-Allow-Headers"].split(",")}
    assert {"content-type", "x-client-version", "x-firebase-gmpid"} <= allowed
    methods = {m.strip().upper() for m in response.headers["Access-Control-Allow-Methods"].split(",")}
    assert {"GET", "POST", "PATCH", "DELETE"} <= methods


def test_cors_on_actual_request(rest, unique_email):
    origin = "http://127.0.0.1:3000"
    response = rest.accounts(
        "signUp", {"email": unique_email("cors"), "password": "secret12"}, headers={"Origin": origin}
    )
    assert response.status_code == 200, response.text
    assert response.headers["Access-Control-Allow-Origin"] == origin


def test_malformed_json_is_invalid_argument(rest):
    response = rest.http.post(
        rest.url("/identitytoolkit.googleapis.com/v1/accounts:signUp"),
        params={"key": API_KEY},
        data=b'{"email": ',
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == 400
    assert error["status"] == "INVALID_ARGUMENT"
    assert error["message"].startswith("Invalid JSON payload received."), error
    assert error["errors"][0]["reason"] == "parseError", error
    assert error["errors"][0]["domain"] == "global", error


def test_wrong_field_type_is_invalid_argument(rest):
    response = rest.accounts("signUp", {"email": True, "password": "secret12"})
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["status"] == "INVALID_ARGUMENT"
    assert error["message"] == "Invalid JSON payload received. /email must be string", error


def test_unknown_path_is_404_json(rest):
    response = rest.http.post(rest.url("/identitytoolkit.googleapis.com/v1/accounts:noSuchThing"), params={"key": API_KEY}, json={})
    assert response.status_code == 404, response.text
    assert response.json() == {
        "error": {
            "code": 404,
            "message": "Not Found",
            "errors": [{"message": "Not Found", "reason": "notFound"}],
            "status": "NOT_FOUND",
        }
    }


def test_missing_api_key_is_403(rest, unique_email):
    response = rest.accounts("signUp", {"email": unique_email(), "password": "secret12"}, key=None)
    message = "The request is missing a valid API key."
    assert response.status_code == 403, response.text
    assert response.json() == {
        "error": {
            "code": 403,
            "message": message,
            "errors": [{"message": message, "reason": "forbidden", "domain": "global"}],
            "status": "PERMISSION_DENIED",
        }
    }


def test_api_key_in_header_works(rest, unique_email):
    response = rest.accounts(
        "signUp", {"email": unique_email("hdrkey"), "password": "secret12"}, key=None, headers={"x-goog-api-key": "k"}
    )
    assert response.status_code == 200, response.text


def test_bad_bearer_is_401(rest):
    response = rest.post(
        "/identitytoolkit.googleapis.com/v1/accounts:lookup", {"localId": ["x"]}, headers={"Authorization": "Bearer not-owner"}
    )
    message = (
        "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid "
        "authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."
    )
    assert response.status_code == 401, response.text
    assert response.json() == {
        "error": {
            "code": 401,
            "message": message,
            "errors": [
                {
                    "message": "Invalid Credentials",
                    "domain": "global",
                    "reason": "authError",
                    "location": "Authorization",
                    "locationType": "header",
                }
            ],
            "status": "UNAUTHENTICATED",
        }
    }
