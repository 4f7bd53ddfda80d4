"""Storage security rules on the Firebase v0 API, as production evaluates them, and the chat app's rules.

What each group encodes, and where it comes from:
- Methods: a download or a metadata read is `get`, a listing `list` (evaluated at the listed folder's path,
  rules_version '2' only), an upload `create` — also when it replaces an existing object, with `resource` the
  object it replaces — a metadata update `update`, a delete `delete`; `read` = get + list, `write` = create +
  update + delete. Sources: the Firebase rules reference ("allow create: Applies to writes to file contents";
  "allow update: Applies to updates to (pre-existing) file metadata"), firebase-tools storage/files.ts
  (uploadObject -> CREATE, updateObjectMetadata -> UPDATE), and the official JS SDK conformance tests that
  run against production: "should upload replace existing file" passes under `allow read, create`, "should
  return a 403 on rules deny when overwriting existing file" under `allow create: if resource == null`, and
  "should not delete file when security rule on resource object disallows it".
- `request.resource` on create is the object as it would be stored (name, bucket, size, contentType,
  metadata, md5Hash, generation, metageneration, timeCreated, updated, crc32c, etag); on update it is the
  stored object with the patch merged; on delete it is null. `resource` is the stored object or null.
- `request.auth` is `{uid, token}` from the (unverified) ID token, null without one; `Firebase owner` and
  `Bearer owner` are admin and bypass the rules (rules/utils.ts).
- `firestore.get()` / `firestore.exists()` read the Firestore emulator's documents of the same project.
- Denials are 403 `{"error":{"code":403,"message":"Permission denied. No READ|WRITE|LIST permission."}}`
  (apis/firebase.ts).
- Emulator-only `PUT /internal/setRules` (what @firebase/rules-unit-testing sends): one file for every
  bucket, or one file per bucket with `resource`; the exact 400 messages are firebase-tools server.ts's.
- The chat app's rules (fixtures/storage/chat.rules, shared/design.md §1 scenario 2): a participant uploads
  and reads PDFs under 10 MiB, an 11 MiB file or a text/plain file is refused, a non-participant is refused
  on read and write; images under 2 MiB; profile pictures are images written by their user.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from storage_support import (
    DENY_ALL_RULES,
    KIB,
    MIB,
    NO_LIST,
    NO_READ,
    NO_WRITE,
    FirebaseStorage,
    bucket,  # noqa: F401 (fixture)
    denied,
    firebase_error,
    load_rules,
    md5_b64,
    metadata_of,
    new_bucket,
    not_found,
    random_bytes,
    seed_document,
    set_rules,
    storage_host,  # noqa: F401 (fixture)
    storage_target,  # noqa: F401 (fixture)
    upload_refused,
    user_token,
)

pytestmark = pytest.mark.timeout(60)

CHAT_RULES = (Path(__file__).resolve().parent / "fixtures" / "storage" / "chat.rules").read_text()
HELLO_MD5 = md5_b64(b"hello")


def as_user(target, bucket_name: str, uid: str | None, **claims) -> FirebaseStorage:
    token = user_token(target, uid, **claims) if uid is not None else None
    return FirebaseStorage(target, bucket_name, token)


def owner_of(target, bucket_name: str) -> FirebaseStorage:
    return FirebaseStorage(target, bucket_name, "owner")


def put_as_owner(target, bucket_name: str, name: str, data: bytes = b"x", content_type: str = "text/plain",
                 metadata: dict | None = None) -> dict:
    return metadata_of(owner_of(target, bucket_name).upload(name, data, content_type, metadata))


# --------------------------------------------------------------------------------------------
# request.resource and resource


RESOURCE_RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /fields/{name} {
      allow create: if request.resource.name == 'fields/' + name
                    && request.resource.bucket == bucket
                    && request.resource.size == 5
                    && request.resource.size is int
                    && request.resource.contentType == 'text/plain'
                    && request.resource.metadata.owner == request.auth.uid
                    && request.resource.md5Hash == '%s'
                    && request.resource.generation is int
                    && request.resource.metageneration == 1
                    && request.resource.timeCreated is timestamp
                    && request.resource.updated is timestamp
                    && request.resource.crc32c is string
                    && request.resource.etag is string
                    && resource == null;
      allow get: if true;
    }

    match /docs/{name} {
      allow create: if request.auth != null;
      allow get: if resource.metadata.visibility == 'public'
                 || resource.metadata.owner == request.auth.uid;
      allow update: if resource.metadata.owner == request.auth.uid
                    && request.resource.metadata.owner == resource.metadata.owner
                    && request.resource.metadata.visibility in ['public', 'private']
                    && request.resource.contentType == resource.contentType
                    && request.resource.size == resource.size
                    && request.resource.md5Hash == resource.md5Hash;
      allow delete: if resource.metadata.owner == request.auth.uid
                    && request.resource == null;
    }
  }
}
""" % HELLO_MD5


@pytest.fixture
def resource_rules(storage_target):
    load_rules(storage_target, RESOURCE_RULES)


def test_request_resource_describes_the_object_being_created(storage_target, bucket, resource_rules):
    alice = as_user(storage_target, bucket, "alice")
    md = metadata_of(alice.multipart_upload("fields/a.txt", b"hello", "text/plain", {"metadata": {"owner": "alice"}}))
    assert md["name"] == "fields/a.txt" and md["size"] == "5"


def test_request_resource_is_bound_for_resumable_uploads_too(storage_target, bucket, resource_rules):
    alice = as_user(storage_target, bucket, "alice")
    session = alice.start_resumable("fields/b.txt", 5, "text/plain", {"metadata": {"owner": "alice"}})
    final = alice.resumable_command(session.url, "upload, finalize", b"hello", offset=0)
    assert final.status_code == 200, final.text
    assert final.headers["X-Goog-Upload-Status"] == "final"


@pytest.mark.parametrize("data, content_type, custom", [
    (b"hello!", "text/plain", {"owner": "alice"}),  # size (and md5Hash)
    (b"HELLO", "text/plain", {"owner": "alice"}),  # md5Hash only
    (b"hello", "application/octet-stream", {"owner": "alice"}),  # contentType
    (b"hello", "text/plain", {"owner": "bob"}),  # metadata against request.auth.uid
    (b"hello", "text/plain", None),  # metadata missing
])
def test_request_resource_violations_are_denied(storage_target, bucket, resource_rules, data, content_type, custom):
    alice = as_user(storage_target, bucket, "alice")
    metadata = {"metadata": custom} if custom is not None else None
    denied(alice.multipart_upload("fields/a.txt", data, content_type, metadata), NO_WRITE)
    not_found(owner_of(storage_target, bucket).get_metadata("fields/a.txt"))


def test_resource_is_the_replaced_object_on_an_overwriting_upload(storage_target, bucket, resource_rules):
    """`resource == null` holds for the first upload only: replacing is a `create` that sees the old object."""
    alice = as_user(storage_target, bucket, "alice")
    metadata_of(alice.multipart_upload("fields/a.txt", b"hello", "text/plain", {"metadata": {"owner": "alice"}}))
    denied(alice.multipart_upload("fields/a.txt", b"hello", "text/plain", {"metadata": {"owner": "alice"}}), NO_WRITE)


def test_resource_decides_get(storage_target, bucket, resource_rules):
    put_as_owner(storage_target, bucket, "docs/public.txt", b"pub", metadata={"metadata": {"owner": "alice", "visibility": "public"}})
    put_as_owner(storage_target, bucket, "docs/private.txt", b"priv", metadata={"metadata": {"owner": "alice", "visibility": "private"}})
    alice, bob = as_user(storage_target, bucket, "alice"), as_user(storage_target, bucket, "bob")
    assert bob.download("docs/public.txt").content == b"pub"
    assert metadata_of(bob.get_metadata("docs/public.txt"))["name"] == "docs/public.txt"
    assert alice.download("docs/private.txt").content == b"priv"
    denied(bob.download("docs/private.txt"), NO_READ)
    denied(bob.get_metadata("docs/private.txt"), NO_READ)


def test_request_resource_on_update_is_the_stored_object_with_the_patch_merged(storage_target, bucket, resource_rules):
    put_as_owner(storage_target, bucket, "docs/d.txt", b"data", metadata={"metadata": {"owner": "alice", "visibility": "public"}})
    alice, bob = as_user(storage_target, bucket, "alice"), as_user(storage_target, bucket, "bob")
    # Only `visibility` is sent: owner, contentType, size and md5Hash come from the stored object.
    md = metadata_of(alice.update_metadata("docs/d.txt", {"metadata": {"visibility": "private"}}))
    assert md["metadata"] == {"owner": "alice", "visibility": "private"}
    denied(bob.update_metadata("docs/d.txt", {"metadata": {"visibility": "public"}}), NO_WRITE)
    denied(alice.update_metadata("docs/d.txt", {"metadata": {"visibility": "secret"}}), NO_WRITE)
    denied(alice.update_metadata("docs/d.txt", {"metadata": {"owner": "bob"}}), NO_WRITE)
    denied(alice.update_metadata("docs/d.txt", {"contentType": "text/html"}), NO_WRITE)
    assert metadata_of(alice.get_metadata("docs/d.txt"))["metadata"] == {"owner": "alice", "visibility": "private"}


def test_resource_decides_delete_and_request_resource_is_null(storage_target, bucket, resource_rules):
    put_as_owner(storage_target, bucket, "docs/d.txt", b"data", metadata={"metadata": {"owner": "alice", "visibility": "public"}})
    alice, bob = as_user(storage_target, bucket, "alice"), as_user(storage_target, bucket, "bob")
    denied(bob.delete("docs/d.txt"), NO_WRITE)
    assert alice.delete("docs/d.txt").status_code == 204
    not_found(owner_of(storage_target, bucket).get_metadata("docs/d.txt"))
    # Rules come before existence: with no object, `resource` is null and the get rule fails on it.
    denied(alice.get_metadata("docs/d.txt"), NO_READ)


def test_delete_refused_on_the_stored_content_type(storage_target, bucket):
    """Official JS SDK test "should not delete file when security rule on resource object disallows it"."""
    load_rules(storage_target, """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /delete/disallowIfContentTypeText {
      allow create;
      allow delete: if resource.contentType != 'text/plain';
    }
  }
}
""")
    anyone = as_user(storage_target, bucket, None)
    metadata_of(anyone.multipart_upload("delete/disallowIfContentTypeText", b"some-content", "text/plain"))
    denied(anyone.delete("delete/disallowIfContentTypeText"), NO_WRITE)
    metadata_of(anyone.multipart_upload("delete/disallowIfContentTypeText", b"%PDF", "application/pdf"))
    assert anyone.delete("delete/disallowIfContentTypeText").status_code == 204


# --------------------------------------------------------------------------------------------
# Methods


METHOD_RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /gets/{p=**} { allow get; }
    match /lists/{p=**} { allow list; }
    match /reads/{p=**} { allow read; }
    match /createonly/{name} { allow create; allow read; }
    match /updates/{name} { allow update; allow read; }
    match /deletes/{name} { allow delete; allow read; }
    match /writes/{name} { allow write; allow read; }
  }
}
"""


@pytest.fixture
def method_rules(storage_target):
    load_rules(storage_target, METHOD_RULES)


def test_get_allows_reads_of_one_object_not_listing(storage_target, bucket, method_rules):
    put_as_owner(storage_target, bucket, "gets/a.txt", b"abc")
    client = as_user(storage_target, bucket, "alice")
    assert client.download("gets/a.txt").content == b"abc"
    assert metadata_of(client.get_metadata("gets/a.txt"))["size"] == "3"
    denied(client.list("gets/"), NO_LIST)


def test_list_allows_listing_not_reading(storage_target, bucket, method_rules):
    """The listing `prefix=lists/` is evaluated at the folder path `lists`, which `/lists/{p=**}` matches (a
    `{name=**}` wildcard matches zero or more segments in rules_version 2)."""
    put_as_owner(storage_target, bucket, "lists/a.txt", b"abc")
    client = as_user(storage_target, bucket, "alice")
    listing = client.list("lists/")
    assert listing.status_code == 200, listing.text
    assert listing.json()["items"] == [{"name": "lists/a.txt", "bucket": bucket}]
    denied(client.download("lists/a.txt"), NO_READ)
    denied(client.get_metadata("lists/a.txt"), NO_READ)


def test_read_is_get_and_list(storage_target, bucket, method_rules):
    put_as_owner(storage_target, bucket, "reads/sub/a.txt", b"abc")
    client = as_user(storage_target, bucket, "alice")
    assert client.download("reads/sub/a.txt").content == b"abc"
    assert client.list("reads/").json() == {"prefixes": ["reads/sub/"], "items": []}
    assert client.list("reads/sub/").json()["items"] == [{"name": "reads/sub/a.txt", "bucket": bucket}]


def test_create_covers_new_and_replaced_contents_not_metadata_or_delete(storage_target, bucket, method_rules):
    client = as_user(storage_target, bucket, "alice")
    metadata_of(client.multipart_upload("createonly/a.txt", b"some-content", "text/plain"))
    metadata_of(client.multipart_upload("createonly/a.txt", b"some-other-content", "text/plain"))
    assert client.download("createonly/a.txt").content == b"some-other-content"
    denied(client.update_metadata("createonly/a.txt", {"contentLanguage": "en"}), NO_WRITE)
    denied(client.delete("createonly/a.txt"), NO_WRITE)


def test_update_covers_metadata_changes_only(storage_target, bucket, method_rules):
    put_as_owner(storage_target, bucket, "updates/a.txt", b"abc")
    client = as_user(storage_target, bucket, "alice")
    assert metadata_of(client.update_metadata("updates/a.txt", {"contentLanguage": "en"}))["contentLanguage"] == "en"
    assert metadata_of(client.update_metadata("updates/a.txt", {"cacheControl": "no-store"}, method_override=True))["cacheControl"] == "no-store"
    denied(client.multipart_upload("updates/a.txt", b"new", "text/plain"), NO_WRITE)
    denied(client.delete("updates/a.txt"), NO_WRITE)
    assert client.download("updates/a.txt").content == b"abc"


def test_delete_covers_deletes_only(storage_target, bucket, method_rules):
    put_as_owner(storage_target, bucket, "deletes/a.txt", b"abc")
    client = as_user(storage_target, bucket, "alice")
    denied(client.update_metadata("deletes/a.txt", {"contentLanguage": "en"}), NO_WRITE)
    denied(client.multipart_upload("deletes/b.txt", b"new", "text/plain"), NO_WRITE)
    assert client.delete("deletes/a.txt").status_code == 204


def test_write_is_create_update_and_delete(storage_target, bucket, method_rules):
    client = as_user(storage_target, bucket, "alice")
    metadata_of(client.upload("writes/a.bin", random_bytes(300 * KIB)))  # resumable
    metadata_of(client.update_metadata("writes/a.bin", {"metadata": {"k": "v"}}))
    assert client.delete("writes/a.bin").status_code == 204


def test_no_matching_rule_denies(storage_target, bucket, method_rules):
    client = as_user(storage_target, bucket, "alice")
    denied(client.multipart_upload("elsewhere/a.txt", b"abc", "text/plain"), NO_WRITE)
    denied(client.list(""), NO_LIST)
    put_as_owner(storage_target, bucket, "elsewhere/b.txt", b"abc")
    denied(client.download("elsewhere/b.txt"), NO_READ)


def test_listing_needs_rules_version_2(storage_target, bucket):
    """rules_version '1' (the default) has no `list`: listings are refused even under `allow read` (the
    emulator's runtime.ts: "List operations are only allowed for rules_version='2'")."""
    load_rules(storage_target, """service firebase.storage {
  match /b/{bucket}/o {
    match /{allPaths=**} {
      allow read, write: if true;
    }
  }
}
""")
    client = as_user(storage_target, bucket, "alice")
    metadata_of(client.multipart_upload("v1/a.txt", b"abc", "text/plain"))
    assert client.download("v1/a.txt").content == b"abc"
    denied(client.list("v1/"), NO_LIST)


# --------------------------------------------------------------------------------------------
# request.auth and admin


AUTH_RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /users/{uid}/{file} {
      allow read, write: if request.auth.uid == uid;
    }
    match /admins/{file} {
      allow read, write: if request.auth.token.admin == true;
    }
    match /staff/{file} {
      allow read, write: if request.auth.token.email_verified == true
                         && request.auth.token.email.matches('.*@example[.]com$');
    }
    match /anonymous/{file} {
      allow read, write: if request.auth == null;
    }
    match /custom/{file} {
      allow write: if request.auth.token.firebase.sign_in_provider == 'custom';
    }
  }
}
"""


@pytest.fixture
def auth_rules(storage_target):
    load_rules(storage_target, AUTH_RULES)


def test_request_auth_uid(storage_target, bucket, auth_rules):
    alice, bob = as_user(storage_target, bucket, "alice"), as_user(storage_target, bucket, "bob")
    metadata_of(alice.multipart_upload("users/alice/a.txt", b"mine", "text/plain"))
    assert alice.download("users/alice/a.txt").content == b"mine"
    denied(bob.multipart_upload("users/alice/b.txt", b"theirs", "text/plain"), NO_WRITE)
    denied(bob.download("users/alice/a.txt"), NO_READ)
    denied(as_user(storage_target, bucket, None).download("users/alice/a.txt"), NO_READ)
    bearer = alice.as_token(alice.token, scheme="Bearer")
    assert bearer.download("users/alice/a.txt").content == b"mine"


def test_request_auth_token_claims(storage_target, bucket, auth_rules):
    admin = as_user(storage_target, bucket, "carol", admin=True)
    metadata_of(admin.multipart_upload("admins/a.txt", b"x", "text/plain"))
    denied(as_user(storage_target, bucket, "dave", admin=False).multipart_upload("admins/b.txt", b"x", "text/plain"), NO_WRITE)
    staff = as_user(storage_target, bucket, "erin", email="erin@example.com", email_verified=True)
    metadata_of(staff.multipart_upload("staff/a.txt", b"x", "text/plain"))
    unverified = as_user(storage_target, bucket, "frank", email="frank@example.com", email_verified=False)
    denied(unverified.multipart_upload("staff/b.txt", b"x", "text/plain"), NO_WRITE)
    outsider = as_user(storage_target, bucket, "gina", email="gina@example.org", email_verified=True)
    denied(outsider.multipart_upload("staff/c.txt", b"x", "text/plain"), NO_WRITE)
    metadata_of(admin.multipart_upload("custom/a.txt", b"x", "text/plain"))  # firebase.sign_in_provider


def test_request_auth_is_null_without_a_token(storage_target, bucket, auth_rules):
    signed_out = as_user(storage_target, bucket, None)
    metadata_of(signed_out.multipart_upload("anonymous/a.txt", b"x", "text/plain"))
    assert signed_out.download("anonymous/a.txt").content == b"x"
    denied(as_user(storage_target, bucket, "alice").download("anonymous/a.txt"), NO_READ)


@pytest.mark.parametrize("scheme", ["Firebase", "Bearer"])
def test_owner_bypasses_rules(storage_target, bucket, scheme):
    load_rules(storage_target, DENY_ALL_RULES)
    admin = FirebaseStorage(storage_target, bucket, "owner", scheme=scheme)
    data = random_bytes(300 * KIB)
    metadata_of(admin.upload("any/where.bin", data))
    assert admin.download("any/where.bin").content == data
    assert admin.list("any/").json()["items"] == [{"name": "any/where.bin", "bucket": bucket}]
    metadata_of(admin.update_metadata("any/where.bin", {"contentLanguage": "de"}))
    assert admin.delete("any/where.bin").status_code == 204
    denied(as_user(storage_target, bucket, "alice").multipart_upload("any/x", b"x"), NO_WRITE)


# --------------------------------------------------------------------------------------------
# firestore.get() / firestore.exists()


FIRESTORE_RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /gated/{file} {
      allow read, write: if firestore.exists(/databases/(default)/documents/storageAccess/$(request.auth.uid));
    }
    match /projects/{projectId}/{file} {
      allow read: if firestore.get(/databases/(default)/documents/projects/$(projectId)).data.members[request.auth.uid] in ['viewer', 'editor'];
      allow write: if firestore.get(/databases/(default)/documents/projects/$(projectId)).data.members[request.auth.uid] == 'editor';
    }
  }
}
"""


def test_firestore_exists(storage_target, bucket):
    load_rules(storage_target, FIRESTORE_RULES)
    allowed, refused = f"allowed-{uuid.uuid4().hex[:8]}", f"refused-{uuid.uuid4().hex[:8]}"
    seed_document(storage_target, f"storageAccess/{allowed}", {"since": 1})
    metadata_of(as_user(storage_target, bucket, allowed).multipart_upload("gated/a.txt", b"x", "text/plain"))
    denied(as_user(storage_target, bucket, refused).multipart_upload("gated/b.txt", b"x", "text/plain"), NO_WRITE)
    denied(as_user(storage_target, bucket, refused).download("gated/a.txt"), NO_READ)
    seed_document(storage_target, f"storageAccess/{refused}", {"since": 2})  # read live, no caching
    assert as_user(storage_target, bucket, refused).download("gated/a.txt").content == b"x"


def test_firestore_get(storage_target, bucket):
    load_rules(storage_target, FIRESTORE_RULES)
    project = f"p-{uuid.uuid4().hex[:8]}"
    seed_document(storage_target, f"projects/{project}", {"members": {"ed": "editor", "vi": "viewer"}})
    editor, viewer, stranger = (as_user(storage_target, bucket, uid) for uid in ("ed", "vi", "st"))
    metadata_of(editor.multipart_upload(f"projects/{project}/plan.pdf", b"%PDF", "application/pdf"))
    assert viewer.download(f"projects/{project}/plan.pdf").content == b"%PDF"
    denied(viewer.multipart_upload(f"projects/{project}/x.pdf", b"%PDF", "application/pdf"), NO_WRITE)
    denied(stranger.download(f"projects/{project}/plan.pdf"), NO_READ)
    missing = f"p-{uuid.uuid4().hex[:8]}"  # no such document: get() fails, the rule denies
    denied(editor.multipart_upload(f"projects/{missing}/plan.pdf", b"%PDF", "application/pdf"), NO_WRITE)


# --------------------------------------------------------------------------------------------
# PUT /internal/setRules (emulator-only)


def test_set_rules_per_bucket(storage_target):
    open_bucket, closed_bucket, other_bucket = new_bucket(), new_bucket(), new_bucket()
    response = set_rules(storage_target, files=[
        {"name": "open.rules", "resource": open_bucket,
         "content": "rules_version = '2';\nservice firebase.storage { match /b/{bucket}/o { match /{p=**} { allow read, write: if true; } } }"},
        {"name": "closed.rules", "resource": closed_bucket, "content": DENY_ALL_RULES},
    ])
    assert response.status_code == 200, response.text
    assert response.json() == {"message": "Rules updated successfully"}
    metadata_of(as_user(storage_target, open_bucket, "alice").multipart_upload("a.txt", b"x", "text/plain"))
    denied(as_user(storage_target, closed_bucket, "alice").multipart_upload("a.txt", b"x", "text/plain"), NO_WRITE)
    firebase_error(as_user(storage_target, other_bucket, "alice").multipart_upload("a.txt", b"x", "text/plain"),
                   403, "Permission denied. Storage Emulator has no loaded ruleset.")


@pytest.mark.parametrize("body, message", [
    ({"rules": {}}, "Request body must include 'rules.files' array"),
    ({"rules": {"files": []}}, "Request body must include 'rules.files' array"),
    ({"rules": {"files": [{"content": DENY_ALL_RULES}]}}, "Each member of 'rules.files' array must contain 'name' and 'content'"),
    ({"rules": {"files": [{"name": "storage.rules"}]}}, "Each member of 'rules.files' array must contain 'name' and 'content'"),
    ({"rules": {"files": [{"name": "a.rules", "content": DENY_ALL_RULES, "resource": "bucket_0"},
                          {"name": "b.rules", "content": DENY_ALL_RULES}]}},
     "Each member of 'rules.files' array must contain 'name', 'content', and 'resource'"),
    ({"rules": {"files": [{"name": "storage.rules", "content": "foo"}]}},
     "There was an error updating rules, see logs for more details"),
    ({"rules": {"files": [{"name": "storage.rules", "content": "rules_version = '2';\nservice firebase.storage {\n  match /b/{bucket}/o {\n    allow read: if request.auth.uid ==;\n  }\n}\n"}]}},
     "There was an error updating rules, see logs for more details"),
])
def test_set_rules_rejects_bad_input(storage_target, body, message):
    """The official emulator answers exactly `{"message": …}`; more keys (diagnostics) break no client."""
    response = set_rules(storage_target, body=body)
    assert response.status_code == 400, response.text
    assert response.json()["message"] == message, response.text


# --------------------------------------------------------------------------------------------
# The chat app


@pytest.fixture
def chat(storage_target, bucket):
    """The chat rules loaded and a conversation between alice and bob in Firestore; returns its id."""
    load_rules(storage_target, CHAT_RULES)
    conversation = f"c-{uuid.uuid4().hex[:10]}"
    seed_document(storage_target, f"conversations/{conversation}", {"participantIds": ["alice", "bob"]})
    return conversation


def pdf(size: int) -> bytes:
    body = random_bytes(size)
    return b"%PDF-1.7\n" + body[9:] if size >= 9 else body


def test_participant_uploads_a_pdf_and_the_other_participant_downloads_it(storage_target, bucket, chat):
    """Scenario 1/2: the web SDK uploads 1 MiB resumably; bob reads the metadata, the bytes, and the bytes
    again through the download URL (token, no Authorization header)."""
    alice, bob = as_user(storage_target, bucket, "alice"), as_user(storage_target, bucket, "bob")
    path = f"documents/{chat}/m1/document.pdf"
    data = pdf(1 * MIB)
    md = metadata_of(alice.upload(path, data, "application/pdf"))
    assert (md["size"], md["contentType"]) == (str(len(data)), "application/pdf")
    assert metadata_of(bob.get_metadata(path))["md5Hash"] == md5_b64(data)
    assert bob.download(path).content == data
    token = md["downloadTokens"].split(",")[0]
    assert as_user(storage_target, bucket, None).download(path, token=token, auth=False).content == data


def test_participant_uploads_a_small_pdf_multipart(storage_target, bucket, chat):
    alice = as_user(storage_target, bucket, "alice")
    path = f"documents/{chat}/m2/document.pdf"
    metadata_of(alice.multipart_upload(path, pdf(100 * KIB), "application/pdf"))


def test_ios_upload_is_judged_with_the_start_request_credentials(storage_target, bucket, chat):
    """The iOS SDK's chunks carry no Authorization header: the rules see the user of the start request."""
    alice = as_user(storage_target, bucket, "alice")
    path = f"documents/{chat}/m3/document.pdf"
    data = pdf(2 * MIB)
    start = alice.ios_start(path, len(data), "application/pdf")
    assert start.status_code == 200, start.text
    final = alice.ios_chunk(start.headers["X-Goog-Upload-URL"], "upload, finalize", data, offset=0)
    assert final.status_code == 200, final.text
    assert final.headers["X-Goog-Upload-Status"] == "final"
    mallory = as_user(storage_target, bucket, "mallory")
    start = mallory.ios_start(f"documents/{chat}/m4/document.pdf", len(data), "application/pdf")
    if start.status_code != 200:
        upload_refused(start)
    else:
        upload_refused(mallory.ios_chunk(start.headers["X-Goog-Upload-URL"], "upload, finalize", data, offset=0))
    not_found(owner_of(storage_target, bucket).get_metadata(f"documents/{chat}/m4/document.pdf"))


def test_non_participant_can_neither_read_nor_write(storage_target, bucket, chat):
    path = f"documents/{chat}/m1/document.pdf"
    metadata_of(as_user(storage_target, bucket, "alice").upload(path, pdf(10 * KIB), "application/pdf"))
    mallory = as_user(storage_target, bucket, "mallory")
    denied(mallory.get_metadata(path), NO_READ)
    denied(mallory.download(path), NO_READ)
    denied(mallory.multipart_upload(f"documents/{chat}/m9/document.pdf", pdf(10 * KIB), "application/pdf"), NO_WRITE)
    denied(mallory.update_metadata(path, {"metadata": {"x": "y"}}), NO_WRITE)
    signed_out = as_user(storage_target, bucket, None)
    denied(signed_out.download(path), NO_READ)
    denied(signed_out.multipart_upload(f"documents/{chat}/m9/document.pdf", pdf(10 * KIB), "application/pdf"), NO_WRITE)


def test_11_mib_pdf_is_refused(storage_target, bucket, chat):
    """Scenario 2: uploaded resumably as the web SDK does; the finalizing chunk answers 403 with upload
    status final, and no object exists."""
    alice = as_user(storage_target, bucket, "alice")
    path = f"documents/{chat}/m1/big.pdf"
    final, sent = alice.resumable_upload(path, pdf(11 * MIB), "application/pdf")
    upload_refused(final)
    not_found(owner_of(storage_target, bucket).get_metadata(path))


def test_size_limit_is_strict(storage_target, bucket, chat):
    """`request.resource.size < 10 * 1024 * 1024`: one byte under passes, exactly 10 MiB does not."""
    alice = as_user(storage_target, bucket, "alice")
    metadata_of(alice.upload(f"documents/{chat}/m1/under.pdf", pdf(10 * MIB - 1), "application/pdf"))
    upload_refused(alice.upload(f"documents/{chat}/m1/exact.pdf", pdf(10 * MIB), "application/pdf"))


def test_text_plain_document_is_refused(storage_target, bucket, chat):
    alice = as_user(storage_target, bucket, "alice")
    denied(alice.multipart_upload(f"documents/{chat}/m1/notes.txt", b"just text", "text/plain"), NO_WRITE)
    upload_refused(alice.upload(f"documents/{chat}/m1/notes.txt", random_bytes(400 * KIB), "text/plain"))


def test_participants_update_metadata_of_documents(storage_target, bucket, chat):
    """`write` covers update: the merged object keeps its size and type, so the participant may patch it."""
    path = f"documents/{chat}/m1/document.pdf"
    metadata_of(as_user(storage_target, bucket, "alice").upload(path, pdf(10 * KIB), "application/pdf"))
    md = metadata_of(as_user(storage_target, bucket, "bob").update_metadata(path, {"metadata": {"seen": "true"}}))
    assert md["metadata"] == {"seen": "true"}
    denied(as_user(storage_target, bucket, "bob").update_metadata(path, {"contentType": "text/plain"}), NO_WRITE)


def test_documents_cannot_be_deleted_under_the_chat_rules(storage_target, bucket, chat):
    """As written: the `write` rule reads request.resource.size, and request.resource is null on delete, so
    the rule errors and the delete is refused, even for a participant; an admin still deletes."""
    path = f"documents/{chat}/m1/document.pdf"
    metadata_of(as_user(storage_target, bucket, "alice").upload(path, pdf(10 * KIB), "application/pdf"))
    denied(as_user(storage_target, bucket, "alice").delete(path), NO_WRITE)
    assert owner_of(storage_target, bucket).delete(path).status_code == 204


def test_listing_a_message_folder_is_refused_under_the_chat_rules(storage_target, bucket, chat):
    """As written: a listing of `documents/<c>/m1/` is judged at the path `documents/<c>/m1`, which no rule
    matches (they match files one level deeper), so even participants cannot list."""
    path = f"documents/{chat}/m1/document.pdf"
    metadata_of(as_user(storage_target, bucket, "alice").upload(path, pdf(10 * KIB), "application/pdf"))
    denied(as_user(storage_target, bucket, "bob").list(f"documents/{chat}/m1/"), NO_LIST)


def test_missing_conversation_or_removed_participant_is_refused(storage_target, bucket, chat):
    alice, bob = as_user(storage_target, bucket, "alice"), as_user(storage_target, bucket, "bob")
    denied(alice.multipart_upload(f"documents/c-missing-{uuid.uuid4().hex[:6]}/m1/document.pdf", pdf(KIB),
                                  "application/pdf"), NO_WRITE)
    path = f"documents/{chat}/m1/document.pdf"
    metadata_of(alice.upload(path, pdf(10 * KIB), "application/pdf"))
    assert bob.download(path).status_code == 200
    seed_document(storage_target, f"conversations/{chat}", {"participantIds": ["alice"]})
    denied(bob.download(path), NO_READ)


def test_images_under_2_mib(storage_target, bucket, chat):
    alice, bob = as_user(storage_target, bucket, "alice"), as_user(storage_target, bucket, "bob")
    photo = random_bytes(1 * MIB)
    metadata_of(alice.upload(f"images/{chat}/m1/photo.jpg", photo, "image/jpeg"))
    assert bob.download(f"images/{chat}/m1/photo.jpg").content == photo
    upload_refused(alice.upload(f"images/{chat}/m1/exact.jpg", random_bytes(2 * MIB), "image/jpeg"))
    upload_refused(alice.upload(f"images/{chat}/m1/big.jpg", random_bytes(3 * MIB), "image/jpeg"))
    denied(as_user(storage_target, bucket, "mallory").download(f"images/{chat}/m1/photo.jpg"), NO_READ)
    denied(as_user(storage_target, bucket, "mallory").multipart_upload(f"images/{chat}/m1/x.jpg", b"\xff\xd8", "image/jpeg"), NO_WRITE)


def test_profile_pictures(storage_target, bucket):
    load_rules(storage_target, CHAT_RULES)
    alice, bob = as_user(storage_target, bucket, "alice"), as_user(storage_target, bucket, "bob")
    avatar = random_bytes(50 * KIB)
    metadata_of(alice.multipart_upload("profile_pictures/alice/avatar.png", avatar, "image/png"))
    metadata_of(alice.multipart_upload("profile_pictures/alice/avatar.webp", avatar, "image/webp"))
    denied(alice.multipart_upload("profile_pictures/alice/avatar.txt", b"text", "text/plain"), NO_WRITE)
    denied(bob.multipart_upload("profile_pictures/alice/avatar.png", avatar, "image/png"), NO_WRITE)
    assert bob.download("profile_pictures/alice/avatar.png").content == avatar
    denied(as_user(storage_target, bucket, None).download("profile_pictures/alice/avatar.png"), NO_READ)
