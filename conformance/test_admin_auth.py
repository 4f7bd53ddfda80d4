"""firebase-admin (Python, 7.7.0) against hearth's Auth emulator.

The SDK is used exactly as the Firebase docs tell emulator users to: FIREBASE_AUTH_EMULATOR_HOST plus a
project id, no credentials. Wire facts the expectations rest on: /work/notes/admin-python-auth.md.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time

import pytest
from firebase_admin import auth

from support import CUSTOM_TOKEN_AUDIENCE, bad_request, decode_jwt

pytestmark = pytest.mark.usefixtures("admin_app")


def phone_for(uid_hint: str) -> str:
    digits = str(int(hashlib.sha256(uid_hint.encode()).hexdigest(), 16))[:7]
    return "+1555" + digits


# --------------------------------------------------------------------------------------------
# create_user / get_user / get_user_by_email / get_user_by_phone_number


def test_create_user_and_get_it_three_ways(unique_email):
    email = unique_email("create")
    phone = phone_for(email)
    before_ms = int(time.time() * 1000) - 5000
    user = auth.create_user(
        email=email,
        password="secret12",
        display_name="Ada Lovelace",
        phone_number=phone,
        photo_url="https://example.com/ada.png",
        email_verified=True,
        disabled=False,
    )
    assert len(user.uid) == 28 and user.uid.isalnum()
    assert user.email == email
    assert user.display_name == "Ada Lovelace"
    assert user.phone_number == phone
    assert user.photo_url == "https://example.com/ada.png"
    assert user.email_verified is True
    assert user.disabled is False
    assert user.custom_claims is None
    assert user.user_metadata.creation_timestamp >= before_ms
    assert {p.provider_id for p in user.provider_data} == {"password", "phone"}

    assert auth.get_user(user.uid).email == email
    assert auth.get_user_by_email(email).uid == user.uid
    assert auth.get_user_by_phone_number(phone).uid == user.uid


def test_create_user_with_chosen_uid(unique_uid):
    uid = unique_uid("chosen")
    user = auth.create_user(uid=uid)
    assert user.uid == uid
    assert user.email is None and user.provider_data == []


def test_create_user_conflicts_map_to_sdk_errors(unique_email, unique_uid):
    email = unique_email("conflict")
    uid = unique_uid("conflict")
    phone = phone_for(uid)
    auth.create_user(uid=uid, email=email, phone_number=phone)
    with pytest.raises(auth.EmailAlreadyExistsError):
        auth.create_user(email=email)
    with pytest.raises(auth.UidAlreadyExistsError):
        auth.create_user(uid=uid)
    with pytest.raises(auth.PhoneNumberAlreadyExistsError):
        auth.create_user(phone_number=phone)


def test_unknown_user_is_user_not_found(unique_email, unique_uid):
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user(unique_uid("missing"))
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user_by_email(unique_email("missing"))
    with pytest.raises(auth.UserNotFoundError):
        auth.update_user(unique_uid("missing"), display_name="x")
    with pytest.raises(auth.UserNotFoundError):
        auth.delete_user(unique_uid("missing"))


def test_get_users_batch(unique_email, unique_uid):
    a = auth.create_user(email=unique_email("batch-a"))
    b = auth.create_user(uid=unique_uid("batch-b"))
    missing = auth.UidIdentifier(unique_uid("batch-missing"))
    result = auth.get_users([auth.EmailIdentifier(a.email), auth.UidIdentifier(b.uid), missing])
    assert {u.uid for u in result.users} == {a.uid, b.uid}
    assert [i.uid for i in result.not_found] == [missing.uid]


# --------------------------------------------------------------------------------------------
# update_user


def test_update_user_fields(rest, unique_email):
    user = auth.create_user(email=unique_email("upd"), password="secret12", display_name="Before")
    new_email = unique_email("upd-new")
    phone = phone_for(new_email)
    updated = auth.update_user(
        user.uid,
        email=new_email,
        display_name="After",
        phone_number=phone,
        photo_url="https://example.com/after.png",
        email_verified=True,
        password="changed99",
    )
    assert updated.email == new_email
    assert updated.display_name == "After"
    assert updated.phone_number == phone
    assert updated.photo_url == "https://example.com/after.png"
    assert updated.email_verified is True
    # The new password works over REST, the old one does not.
    assert rest.sign_in(new_email, "changed99")["localId"] == user.uid
    bad_request(rest.accounts("signInWithPassword", {"email": new_email, "password": "secret12"}), "INVALID_PASSWORD")


def test_update_user_delete_attribute(unique_email):
    email = unique_email("delattr")
    user = auth.create_user(
        email=email, display_name="Name", photo_url="https://example.com/p.png", phone_number=phone_for(email)
    )
    updated = auth.update_user(
        user.uid,
        display_name=auth.DELETE_ATTRIBUTE,
        photo_url=auth.DELETE_ATTRIBUTE,
        phone_number=auth.DELETE_ATTRIBUTE,
    )
    assert updated.display_name is None
    assert updated.photo_url is None
    assert updated.phone_number is None
    assert "phone" not in {p.provider_id for p in updated.provider_data}
    assert updated.email == email, "untouched fields stay"
    # None means "leave unchanged" in 7.7.0.
    again = auth.update_user(user.uid, display_name=None)
    assert again.email == email


def test_disable_user_blocks_sign_in(rest, unique_email):
    email = unique_email("disable")
    user = auth.create_user(email=email, password="secret12")
    assert auth.update_user(user.uid, disabled=True).disabled is True
    bad_request(rest.accounts("signInWithPassword", {"email": email, "password": "secret12"}), "USER_DISABLED")
    assert auth.update_user(user.uid, disabled=False).disabled is False
    assert rest.sign_in(email)["localId"] == user.uid


def test_update_user_email_conflict(unique_email):
    taken = unique_email("taken")
    auth.create_user(email=taken)
    user = auth.create_user(email=unique_email("mover"))
    with pytest.raises(auth.EmailAlreadyExistsError):
        auth.update_user(user.uid, email=taken)


# --------------------------------------------------------------------------------------------
# Custom claims and tokens


def test_custom_claims_reach_id_tokens(rest, project_id, unique_email):
    email = unique_email("claims")
    user = auth.create_user(email=email, password="secret12")
    auth.set_custom_user_claims(user.uid, {"admin": True, "level": 3, "groups": ["a", "b"]})
    assert auth.get_user(user.uid).custom_claims == {"admin": True, "level": 3, "groups": ["a", "b"]}

    id_token = rest.sign_in(email)["idToken"]
    payload = decode_jwt(id_token)[1]
    assert payload["admin"] is True and payload["level"] == 3 and payload["groups"] == ["a", "b"]

    decoded = auth.verify_id_token(id_token)
    assert decoded["uid"] == user.uid
    assert decoded["admin"] is True and decoded["level"] == 3
    assert decoded["iss"] == f"https://securetoken.google.com/{project_id}"
    assert decoded["firebase"]["sign_in_provider"] == "password"

    # Refreshed tokens carry the claims too.
    refreshed = rest.refresh(rest.sign_in(email)["refreshToken"]).json()["id_token"]
    assert auth.verify_id_token(refreshed)["admin"] is True

    auth.set_custom_user_claims(user.uid, None)
    assert auth.get_user(user.uid).custom_claims is None
    assert "admin" not in decode_jwt(rest.sign_in(email)["idToken"])[1]


def test_custom_token_exchange_then_verify(rest, project_id, unique_uid):
    uid = unique_uid("custom")
    token = auth.create_custom_token(uid, {"premium": True, "tier": "gold"})
    header, payload, signature = decode_jwt(token)
    assert header["alg"] == "none" and signature == ""
    assert payload["aud"] == CUSTOM_TOKEN_AUDIENCE and payload["uid"] == uid

    response = rest.accounts("signInWithCustomToken", {"token": token.decode(), "returnSecureToken": True})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["isNewUser"] is True

    decoded = auth.verify_id_token(body["idToken"])
    assert decoded["uid"] == uid and decoded["sub"] == uid
    assert decoded["aud"] == project_id
    assert decoded["premium"] is True and decoded["tier"] == "gold"
    assert decoded["firebase"]["sign_in_provider"] == "custom"
    assert auth.get_user(uid).uid == uid
    assert auth.get_user(uid).custom_claims is None, "custom-token claims live in tokens, not on the account"

    again = rest.accounts("signInWithCustomToken", {"token": auth.create_custom_token(uid).decode()}).json()
    assert again["isNewUser"] is False


def test_verify_id_token_rejects_a_custom_token(unique_uid):
    with pytest.raises(auth.InvalidIdTokenError):
        auth.verify_id_token(auth.create_custom_token(unique_uid("wrongkind")))


def test_revoke_refresh_tokens_revokes_older_id_tokens(rest, unique_email):
    email = unique_email("revoke")
    user = auth.create_user(email=email, password="secret12")
    old_token = rest.sign_in(email)["idToken"]
    assert auth.verify_id_token(old_token, check_revoked=True)["uid"] == user.uid

    time.sleep(1.1)  # validSince has second resolution; the old token's iat must be strictly older
    before = int(time.time())
    auth.revoke_refresh_tokens(user.uid)
    record = auth.get_user(user.uid)
    assert record.tokens_valid_after_timestamp >= before * 1000

    with pytest.raises(auth.RevokedIdTokenError):
        auth.verify_id_token(old_token, check_revoked=True)
    assert auth.verify_id_token(old_token)["uid"] == user.uid, "without check_revoked no lookup happens"
    bad_request(rest.accounts("lookup", {"idToken": old_token}), "TOKEN_EXPIRED")

    fresh = rest.sign_in(email)["idToken"]
    assert auth.verify_id_token(fresh, check_revoked=True)["uid"] == user.uid


def test_check_revoked_on_a_disabled_user(rest, unique_email):
    email = unique_email("disabledcheck")
    user = auth.create_user(email=email, password="secret12")
    token = rest.sign_in(email)["idToken"]
    auth.update_user(user.uid, disabled=True)
    with pytest.raises(auth.UserDisabledError):
        auth.verify_id_token(token, check_revoked=True)


def test_session_cookie(rest, project_id, unique_email):
    email = unique_email("cookie")
    user = auth.create_user(email=email, password="secret12")
    cookie = auth.create_session_cookie(rest.sign_in(email)["idToken"], expires_in=3600)
    payload = decode_jwt(cookie)[1]
    assert payload["iss"] == f"https://session.firebase.google.com/{project_id}"
    assert payload["exp"] - payload["iat"] == 3600
    assert auth.verify_session_cookie(cookie, check_revoked=True)["uid"] == user.uid


# --------------------------------------------------------------------------------------------
# list_users, delete_user(s)


def test_list_users_pages(unique_email):
    created = {auth.create_user(email=unique_email("page")).uid for _ in range(5)}
    seen: list[str] = []
    page = auth.list_users(max_results=2)
    pages = 0
    while page:
        assert len(page.users) <= 2
        seen.extend(u.uid for u in page.users)
        pages += 1
        assert pages < 10_000, "paging must end"
        page = page.get_next_page()
    assert len(seen) == len(set(seen)), "no user appears twice across pages"
    assert created <= set(seen)
    assert pages >= 3
    assert created <= {u.uid for u in auth.list_users(max_results=1000).iterate_all()}


def test_listed_users_carry_password_hash_and_salt(unique_email):
    email = unique_email("exported")
    user = auth.create_user(email=email, password="secret12")
    listed = {u.uid: u for u in auth.list_users().iterate_all()}[user.uid]
    assert listed.email == email
    assert listed.password_hash and listed.password_salt


def test_delete_user(unique_email):
    user = auth.create_user(email=unique_email("del"))
    auth.delete_user(user.uid)
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user(user.uid)
    with pytest.raises(auth.UserNotFoundError):
        auth.delete_user(user.uid)


def test_delete_users(unique_email, unique_uid):
    uids = [auth.create_user(email=unique_email("bulk")).uid for _ in range(3)]
    result = auth.delete_users(uids + [unique_uid("never-existed")])
    assert result.success_count == 4
    assert result.failure_count == 0
    assert result.errors == []
    found = auth.get_users([auth.UidIdentifier(uid) for uid in uids])
    assert found.users == []


# --------------------------------------------------------------------------------------------
# import_users


def test_import_users_profile_claims_and_providers(unique_email, unique_uid):
    uid = unique_uid("imp")
    email = unique_email("imp")
    record = auth.ImportUserRecord(
        uid=uid,
        email=email,
        display_name="Imported",
        email_verified=True,
        custom_claims={"role": "editor"},
        user_metadata=auth.UserMetadata(creation_timestamp=1_700_000_000_000, last_sign_in_timestamp=1_700_000_001_000),
        provider_data=[auth.UserProvider(uid="google-raw-" + uid, provider_id="google.com", email=email)],
    )
    plain = auth.ImportUserRecord(uid=unique_uid("imp-bare"))
    result = auth.import_users([record, plain])
    assert result.success_count == 2 and result.failure_count == 0, [e.reason for e in result.errors]

    user = auth.get_user(uid)
    assert user.email == email
    assert user.display_name == "Imported"
    assert user.email_verified is True
    assert user.custom_claims == {"role": "editor"}
    assert user.user_metadata.creation_timestamp == 1_700_000_000_000
    assert {(p.provider_id, p.uid) for p in user.provider_data} >= {("google.com", "google-raw-" + uid)}
    assert auth.get_user(plain.uid).uid == plain.uid


def test_import_with_raw_password_then_sign_in(rest, unique_email, unique_uid):
    """How the official emulator takes plain passwords on import: `rawPassword` in accounts:batchCreate
    (the REST shape firebase-tools' auth:import uses; firebase-admin has no such field)."""
    uid = unique_uid("rawpw")
    email = unique_email("rawpw")
    response = rest.admin("POST", "accounts:batchCreate", {"users": [{"localId": uid, "email": email, "rawPassword": "plain-pw-1"}]})
    assert response.status_code == 200, response.text
    assert response.json().get("error", []) == []
    assert rest.sign_in(email, "plain-pw-1")["localId"] == uid
    bad_request(rest.accounts("signInWithPassword", {"email": email, "password": "wrong-pw-1"}), "INVALID_PASSWORD")


def test_import_with_hmac_sha256_hash_then_sign_in(rest, unique_email, unique_uid):
    """Users imported through the SDK with a production HMAC_SHA256 hash (UserImportHash.hmac_sha256) can
    sign in with their original password.

    Hearth goes beyond the official emulator here: that one stores imported hashes but never checks them,
    so its sign-in answers INVALID_PASSWORD for such users. No salt, so the hash does not depend on the
    salt/password order (see the next test for salted hashes)."""
    key = b"hmac-signer-key"
    password = "hashed-pw-1"
    uid = unique_uid("hmac")
    email = unique_email("hmac")
    digest = hmac.new(key, password.encode(), hashlib.sha256).digest()
    result = auth.import_users(
        [auth.ImportUserRecord(uid=uid, email=email, password_hash=digest)],
        hash_alg=auth.UserImportHash.hmac_sha256(key=key),
    )
    assert result.success_count == 1 and result.failure_count == 0, [e.reason for e in result.errors]
    assert auth.get_user(uid).email == email
    assert rest.sign_in(email, password)["localId"] == uid
    bad_request(rest.accounts("signInWithPassword", {"email": email, "password": "not-the-pw"}), "INVALID_PASSWORD")


@pytest.mark.parametrize("order", ["SALT_AND_PASSWORD", "PASSWORD_AND_SALT"])
def test_import_salted_hmac_sha256_with_explicit_order_then_sign_in(rest, unique_email, unique_uid, order):
    """A salted HMAC_SHA256 import over REST (`passwordHashOrder` is what firebase-tools' auth:import
    --hash-input-order sends; the Python SDK cannot set it). Hearth extension, as above."""
    key, salt, password = b"hmac-signer-key", b"NaCl-salt", "salted-pw-1"
    message = salt + password.encode() if order == "SALT_AND_PASSWORD" else password.encode() + salt
    digest = hmac.new(key, message, hashlib.sha256).digest()
    b64 = lambda raw: base64.urlsafe_b64encode(raw).decode()
    uid = unique_uid("salted")
    email = unique_email("salted")
    response = rest.admin(
        "POST",
        "accounts:batchCreate",
        {
            "hashAlgorithm": "HMAC_SHA256",
            "signerKey": b64(key),
            "passwordHashOrder": order,
            "users": [{"localId": uid, "email": email, "passwordHash": b64(digest), "salt": b64(salt)}],
        },
    )
    assert response.status_code == 200, response.text
    assert response.json().get("error", []) == []
    assert rest.sign_in(email, password)["localId"] == uid
    bad_request(rest.accounts("signInWithPassword", {"email": email, "password": "salted-pw-2"}), "INVALID_PASSWORD")


def test_import_errors_are_reported_per_user(rest, unique_uid):
    """Per-user failures come back as `error: [{index, message}]` next to the successes."""
    good = unique_uid("impgood")
    response = rest.admin(
        "POST",
        "accounts:batchCreate",
        {"users": [{"localId": good}, {"email": "no-local-id@example.com"}, {"localId": unique_uid(), "email": "bad"}]},
    )
    assert response.status_code == 200, response.text
    errors = response.json()["error"]
    assert [(e["index"], e["message"]) for e in errors] == [(1, "localId is missing"), (2, "email is invalid")]
    assert auth.get_user(good).uid == good


# --------------------------------------------------------------------------------------------
# Email action links


def test_generate_password_reset_link_and_use_it(rest, suite, unique_email):
    email = unique_email("resetlink")
    user = auth.create_user(email=email, password="secret12")
    link = auth.generate_password_reset_link(email)
    assert link.startswith(f"http://{suite.auth_host}/emulator/action?"), link
    assert "mode=resetPassword" in link
    code = rest.latest_oob(email, "PASSWORD_RESET")
    assert code["oobLink"] == link
    response = rest.accounts("resetPassword", {"oobCode": code["oobCode"], "newPassword": "from-link-1"})
    assert response.status_code == 200, response.text
    assert rest.sign_in(email, "from-link-1")["localId"] == user.uid


def test_generate_verification_and_sign_in_links(rest, unique_email):
    email = unique_email("links")
    user = auth.create_user(email=email)
    settings = auth.ActionCodeSettings(url="https://app.example.com/done", handle_code_in_app=True)
    verify = auth.generate_email_verification_link(email, action_code_settings=settings)
    assert "mode=verifyEmail" in verify and "continueUrl=https%3A%2F%2Fapp.example.com%2Fdone" in verify
    sign_in = auth.generate_sign_in_with_email_link(email, settings)
    assert "mode=signIn" in sign_in
    code = rest.latest_oob(email, "VERIFY_EMAIL")
    response = rest.accounts("update", {"oobCode": code["oobCode"]})
    assert response.status_code == 200, response.text
    assert auth.get_user(user.uid).email_verified is True


def test_password_reset_link_for_unknown_email(unique_email):
    with pytest.raises(auth.EmailNotFoundError):
        auth.generate_password_reset_link(unique_email("ghost"))


# --------------------------------------------------------------------------------------------
# Tenants


@pytest.mark.skip(
    reason="firebase-admin 7.7.0's tenant_mgt ignores FIREBASE_AUTH_EMULATOR_HOST and calls production "
    "(firebase-admin-python#910); tenant management is covered by the Swift tests"
)
def test_tenant_management():
    pass
