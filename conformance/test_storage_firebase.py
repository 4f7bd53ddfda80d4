"""The Firebase Storage v0 API (`/v0`), spoken exactly as the web SDK and the iOS SDK speak it.

What each group encodes, and where it comes from:
- Uploads: media (raw body), multipart/related (the web SDK for blobs <= 256 KiB, body built as
  firebase-js-sdk `requests.ts` multipartUpload builds it), resumable (the web SDK above 256 KiB: `start`, then
  `upload` / `upload, finalize` / `finalize` with `X-Goog-Upload-Offset`, `query`, `cancel`; the iOS SDK's
  GTMSessionUploadFetcher: PUT chunks without an Authorization header). Statuses and `X-Goog-Upload-Status`
  values are the ones the official conformance suite asserts against production
  (firebase-tools `scripts/storage-emulator-integration/conformance/firebase.endpoints.test.ts`, not marked
  emulator-only): start -> 200 active; cancel -> 200 and the object never exists; cancel again -> 200;
  finalize after cancel -> 400 (twice); cancel after final -> 400; unknown upload id -> 404; finalize again
  after success -> 200; a denied finalize -> 403 with `X-Goog-Upload-Status: final`, again on a repeat;
  query -> `active` / `cancelled` / `final`.
- Metadata: the v0 resource (OutgoingFirebaseMetadata in firebase-tools `metadata.ts`; key list and values
  from the official test "should set default metadata"): size/generation/metageneration as strings,
  contentEncoding "identity" when unset, downloadTokens comma-joined. PATCH (and PUT with
  `X-HTTP-Method-Override: PATCH`) merges; `null` deletes a field or a custom key; metageneration + 1.
- Downloads: `alt=media` with the Authorization header or with `token=<download token>` (which skips rules),
  Range -> 206 + Content-Range, gzip objects decompressed unless the client accepts gzip (Range then ignored:
  GCS "decompressive transcoding" docs; the official gzip tests run against production too).
- List: `prefix` must be empty or end in "/" (production's 400 message, apis/firebase.ts), delimiter,
  pageToken/maxResults, items reduced to `{name, bucket}`, invalid paths (empty segments) left out (official
  JS SDK conformance tests "should not include show invalid prefixes and items" / "folder placeholder").
- Download tokens: created on upload, on first v0 read of an object that has none (metageneration -> "2",
  official JS SDK test "should return file metadata"), `create_token=true` / `delete_token=` for admins only
  (403 "Missing admin credentials."), the last token deleted is replaced.
- Names are arbitrary UTF-8: `..`, `#`, `?`, `%`, spaces, non-ASCII travel percent-encoded and come back
  unchanged.
- Bad input never half-writes: a refused or broken upload leaves any existing object as it was.
- Emulator-only: `GET /v0/` probe, `POST /internal/reset`, `POST /internal/export` (firebase-tools server.ts).

Errors are `{"error":{"code","message"}}` with the official emulator's messages ("Permission denied. No WRITE
permission." …); a missing object is production's `{"error":{"code":404,"message":"Not Found."}}`.
"""

from __future__ import annotations

import gzip
import json
import urllib.parse
from pathlib import Path

import pytest
import requests

from storage_support import (
    DIGITS,
    KIB,
    MISSING_ADMIN,
    NO_READ,
    NO_WRITE,
    PREFIX_ERROR,
    RESUMABLE_UPLOAD_CHUNK_SIZE,
    SIGNED_IN_RULES,
    UUID,
    FirebaseStorage,
    GcsJson,
    bucket,  # noqa: F401 (fixture)
    check_firebase_metadata,
    crc32c_b64,
    denied,
    firebase_error,
    load_rules,
    md5_b64,
    metadata_of,
    multipart_body,
    not_found,
    random_bytes,
    raw_body,
    send,
    storage_host,  # noqa: F401 (fixture)
    storage_target,  # noqa: F401 (fixture)
    upload_refused,
    v0,  # noqa: F401 (fixture)
)

pytestmark = pytest.mark.timeout(90)


@pytest.fixture(autouse=True)
def signed_in_rules(storage_target):
    """Every test here runs under `allow read, write: if request.auth != null` (rules are per emulator, so
    each test loads its own)."""
    load_rules(storage_target, SIGNED_IN_RULES)


@pytest.fixture
def owner(v0) -> FirebaseStorage:
    return v0.as_owner()


@pytest.fixture
def signed_out(v0) -> FirebaseStorage:
    return v0.as_token(None)


def put(client: FirebaseStorage, name: str, data: bytes = b"x", content_type: str = "application/octet-stream",
        metadata: dict | None = None) -> dict:
    return metadata_of(client.upload(name, data, content_type, metadata))


def assert_unchanged(client: FirebaseStorage, name: str, before: dict, data: bytes) -> None:
    """The object is exactly as it was: same generation and metageneration, same bytes."""
    after = metadata_of(client.get_metadata(name))
    assert (after["generation"], after["metageneration"], after["md5Hash"], after["size"]) == (
        before["generation"], before["metageneration"], before["md5Hash"], before["size"]), (before, after)
    download = client.download(name)
    assert download.status_code == 200 and download.content == data


# --------------------------------------------------------------------------------------------
# Probe


def test_v0_probe_answers_emulator_storage(storage_target):
    """Emulator-only: `GET /v0/` -> {"emulator":"storage"} (apis/firebase.ts), what tools probe."""
    response = requests.get(f"{storage_target.url}/v0/", timeout=10)
    assert response.status_code == 200
    assert response.json() == {"emulator": "storage"}


# --------------------------------------------------------------------------------------------
# Uploads


def test_multipart_upload_as_the_web_sdk_sends_it(v0):
    data = random_bytes(3000)
    response = v0.multipart_upload("photos/cat.png", data, "image/png",
                                   {"cacheControl": "public, max-age=60", "metadata": {"owner": "alice", "kind": "pet"}})
    md = metadata_of(response)
    check_firebase_metadata(md, bucket=v0.bucket, name="photos/cat.png", data=data, content_type="image/png",
                            custom={"owner": "alice", "kind": "pet"})
    assert md["cacheControl"] == "public, max-age=60"
    assert md["timeCreated"] == md["updated"]
    download = v0.download("photos/cat.png")
    assert download.status_code == 200 and download.content == data


def test_multipart_upload_of_an_empty_blob(v0):
    md = metadata_of(v0.multipart_upload("empty.txt", b"", "text/plain"))
    check_firebase_metadata(md, bucket=v0.bucket, name="empty.txt", data=b"", content_type="text/plain")
    download = v0.download("empty.txt")
    assert download.status_code == 200 and download.content == b""


def test_media_upload_takes_the_content_type_header(v0):
    """Official test "should default to media upload if upload type is not provided" (runs on production)."""
    md = metadata_of(v0.media_upload("notes/hello.txt", b"hello world", "text/plain"))
    check_firebase_metadata(md, bucket=v0.bucket, name="notes/hello.txt", data=b"hello world", content_type="text/plain")
    assert v0.download("notes/hello.txt").content == b"hello world"


def test_media_upload_without_content_type_is_octet_stream(v0):
    data = random_bytes(100)
    md = metadata_of(v0.media_upload("raw.bin", data))
    check_firebase_metadata(md, bucket=v0.bucket, name="raw.bin", data=data, content_type="application/octet-stream")


def test_resumable_upload_as_the_web_sdk_drives_it(v0):
    """700 KiB: one 256 KiB `upload` chunk, then the multiplier doubles to 512 KiB, which covers the rest:
    `upload, finalize`. Every response carries X-Goog-Upload-Status (the SDK fails without it)."""
    data = random_bytes(700 * KIB)
    final, sent = v0.resumable_upload("videos/clip.mp4", data, "video/mp4", {"metadata": {"take": "3"}})
    assert [(command, offset) for command, offset, _ in sent] == [
        ("upload", 0), ("upload, finalize", RESUMABLE_UPLOAD_CHUNK_SIZE)]
    first = sent[0][2]
    assert first.status_code == 200 and first.headers["X-Goog-Upload-Status"] == "active"
    assert final.status_code == 200, final.text
    assert final.headers["X-Goog-Upload-Status"] == "final"
    md = metadata_of(final)
    check_firebase_metadata(md, bucket=v0.bucket, name="videos/clip.mp4", data=data, content_type="video/mp4",
                            custom={"take": "3"})
    assert v0.download("videos/clip.mp4").content == data


def test_resumable_upload_of_many_chunks(v0):
    """3 MiB + 5 bytes: chunks of 256 KiB, 512 KiB, 1 MiB, then `upload, finalize` of the rest."""
    data = random_bytes(3 * 1024 * KIB + 5)
    final, sent = v0.resumable_upload("big/blob.bin", data)
    assert [offset for _, offset, _ in sent] == [0, 256 * KIB, 768 * KIB, 1792 * KIB]
    assert [command for command, _, _ in sent] == ["upload", "upload", "upload", "upload, finalize"]
    assert all(r.headers.get("X-Goog-Upload-Status") == "active" for _, _, r in sent[:-1])
    md = metadata_of(final)
    assert md["size"] == str(len(data)) and md["md5Hash"] == md5_b64(data)
    assert v0.download("big/blob.bin").content == data


def test_resumable_start_response(v0, storage_target):
    """The start answer the SDKs read: X-Goog-Upload-Status active and X-Goog-Upload-URL (an absolute URL on
    this server: /v0/b/{b}/o?name=…&upload_id=…&upload_protocol=resumable), plus the upload id and the chunk
    granularity (the emulator's is 10000; production's is not documented, so only "a positive integer")."""
    session = v0.start_resumable("a dir/b c.pdf", 1000, "application/pdf")
    headers = session.start.headers
    assert headers["X-Goog-Upload-Status"] == "active"
    url = urllib.parse.urlsplit(session.url)
    assert (url.scheme, url.netloc) == ("http", storage_target.host), session.url
    assert url.path == f"/v0/b/{v0.bucket}/o", session.url
    query = urllib.parse.parse_qs(url.query)
    assert query["name"] == ["a dir/b c.pdf"] and query["upload_protocol"] == ["resumable"], query
    assert query["upload_id"][0], query
    assert headers["X-GUpload-UploadID"] == query["upload_id"][0]
    assert DIGITS.match(headers["X-Goog-Upload-Chunk-Granularity"]), headers


def test_resumable_query_reports_the_bytes_received_and_the_upload_resumes_from_there(v0):
    """What the web SDK does after a failed chunk: `query`, then continue at X-Goog-Upload-Size-Received."""
    data = random_bytes(600 * KIB)
    session = v0.start_resumable("docs/a.pdf", len(data), "application/pdf")
    query = v0.resumable_command(session.url, "query")
    assert query.status_code == 200
    assert (query.headers["X-Goog-Upload-Status"], query.headers["X-Goog-Upload-Size-Received"]) == ("active", "0")
    chunk = v0.resumable_command(session.url, "upload", data[:256 * KIB], offset=0)
    assert chunk.status_code == 200 and chunk.headers["X-Goog-Upload-Status"] == "active"
    query = v0.resumable_command(session.url, "query")
    assert query.headers["X-Goog-Upload-Size-Received"] == str(256 * KIB)
    assert query.headers["X-Goog-Upload-Status"] == "active"
    final = v0.resumable_command(session.url, "upload, finalize", data[256 * KIB:], offset=256 * KIB)
    assert final.status_code == 200 and final.headers["X-Goog-Upload-Status"] == "final"
    assert metadata_of(final)["md5Hash"] == md5_b64(data)
    query = v0.resumable_command(session.url, "query")
    assert query.status_code == 200
    assert (query.headers["X-Goog-Upload-Status"], query.headers["X-Goog-Upload-Size-Received"]) == ("final", str(len(data)))
    assert v0.download("docs/a.pdf").content == data


def test_resumable_upload_then_a_separate_finalize(v0):
    """`finalize` with an empty body (what the SDK sends when the last chunk went out as `upload`)."""
    data = random_bytes(300 * KIB)
    session = v0.start_resumable("split.bin", len(data))
    upload = v0.resumable_command(session.url, "upload", data, offset=0)
    assert upload.status_code == 200 and upload.headers["X-Goog-Upload-Status"] == "active"
    not_found(v0.get_metadata("split.bin"))  # nothing visible before finalize
    final = v0.resumable_command(session.url, "finalize", offset=len(data))
    assert final.status_code == 200 and final.headers["X-Goog-Upload-Status"] == "final"
    check_firebase_metadata(metadata_of(final), bucket=v0.bucket, name="split.bin", data=data)


def test_resumable_upload_of_nothing(v0):
    """Official test "should handle resumable uploads with an empty buffer" (runs on production)."""
    session = v0.start_resumable("empty.bin", 0)
    final = v0.resumable_command(session.url, "finalize")
    assert final.status_code == 200 and final.headers["X-Goog-Upload-Status"] == "final"
    assert metadata_of(final)["size"] == "0"


def test_finalize_again_after_success_answers_200_final(v0):
    """Official test "should return 200 when resumable upload succeeds and finalize is called again"."""
    session = v0.start_resumable("twice.bin", 3)
    assert v0.resumable_command(session.url, "upload, finalize", b"abc", offset=0).status_code == 200
    again = v0.resumable_command(session.url, "finalize")
    assert again.status_code == 200 and again.headers["X-Goog-Upload-Status"] == "final"
    assert v0.download("twice.bin").content == b"abc"


def test_resumable_upload_as_the_ios_sdk_sends_it(v0):
    """GTMSessionUploadFetcher: start with X-Goog-Upload-Content-Type/-Length and the user's Authorization;
    the chunk and the query are PUTs with no Authorization header: the start request's credentials apply
    (official test "should accept subsequent resumable upload commands without an auth header")."""
    data = random_bytes(400 * KIB)
    start = v0.ios_start("ios/photo.jpg", len(data), "image/jpeg", {"metadata": {"device": "iPhone"}})
    assert start.status_code == 200, start.text
    assert start.headers["X-Goog-Upload-Status"] == "active"
    url = start.headers["X-Goog-Upload-URL"]
    final = v0.ios_chunk(url, "upload, finalize", data, offset=0)
    assert final.status_code == 200, final.text
    assert final.headers["X-Goog-Upload-Status"] == "final"
    check_firebase_metadata(metadata_of(final), bucket=v0.bucket, name="ios/photo.jpg", data=data,
                            content_type="image/jpeg", custom={"device": "iPhone"})
    query = v0.ios_chunk(url, "query")
    assert query.status_code == 200
    assert (query.headers["X-Goog-Upload-Status"], query.headers["X-Goog-Upload-Size-Received"]) == ("final", str(len(data)))
    assert v0.download("ios/photo.jpg").content == data


def test_resumable_upload_without_the_protocol_header(v0):
    """Official test "should handle resumable uploads with without upload protocol set": X-Goog-Upload-Command
    alone marks a resumable request."""
    session = v0.start_resumable("noproto.bin", 5)
    upload = send("PUT", session.url, headers={"X-Goog-Upload-Command": "upload", "X-Goog-Upload-Offset": "0"},
                  data=b"hello")
    assert upload.status_code == 200 and upload.headers["X-Goog-Upload-Status"] == "active"
    final = send("PUT", session.url, headers={"X-Goog-Upload-Command": "finalize"})
    assert final.status_code == 200 and final.headers["X-Goog-Upload-Status"] == "final"
    assert v0.download("noproto.bin").content == b"hello"


def test_cancelled_upload_leaves_no_object(v0):
    """Official tests (production): cancel -> 200, the object does not exist, query says `cancelled`, a second
    cancel -> 200, finalize afterwards -> 400 both times. An `upload` after cancel is refused too (400, the
    official emulator; production's status for this was not found)."""
    session = v0.start_resumable("cancel/me.bin", 600 * KIB)
    assert v0.resumable_command(session.url, "upload", random_bytes(256 * KIB), offset=0).status_code == 200
    cancel = v0.resumable_command(session.url, "cancel")
    assert cancel.status_code == 200
    not_found(v0.get_metadata("cancel/me.bin"))
    query = v0.resumable_command(session.url, "query")
    assert query.status_code == 200 and query.headers["X-Goog-Upload-Status"] == "cancelled"
    assert v0.resumable_command(session.url, "cancel").status_code == 200
    assert v0.resumable_command(session.url, "finalize").status_code == 400
    assert v0.resumable_command(session.url, "finalize").status_code == 400
    assert v0.resumable_command(session.url, "upload, finalize", b"more", offset=256 * KIB).status_code == 400
    not_found(v0.get_metadata("cancel/me.bin"))


def test_cancelling_a_finalized_upload_is_400(v0):
    session = v0.start_resumable("final.bin", 3)
    assert v0.resumable_command(session.url, "upload, finalize", b"abc", offset=0).status_code == 200
    assert v0.resumable_command(session.url, "cancel").status_code == 400
    assert v0.download("final.bin").content == b"abc"


@pytest.mark.parametrize("command", ["cancel", "query", "upload", "upload, finalize", "finalize"])
def test_unknown_upload_id_is_404(v0, command):
    """Official test "should return 404 when cancelling non-existent upload" (production) for cancel; the
    official emulator answers 404 for every command on an unknown id."""
    session = v0.start_resumable("known.bin", 3)
    url = session.url.replace(f"upload_id={session.upload_id}", "upload_id=foo")
    response = v0.resumable_command(url, command, b"abc" if "upload" in command else b"", offset=0)
    assert response.status_code == 404, response.text
    not_found(v0.get_metadata("known.bin"))


def test_resumable_protocol_without_a_command_is_400(v0):
    response = v0.request("POST", v0.bucket_url + "?name=x.bin", headers={"X-Goog-Upload-Protocol": "resumable"},
                          data=b"{}")
    assert response.status_code == 400, response.text
    not_found(v0.get_metadata("x.bin"))


def test_unknown_upload_command_is_refused_and_changes_nothing(v0):
    """Production's exact status for an unknown X-Goog-Upload-Command was not found: a 4xx is certain, and
    that the session and the bucket are untouched."""
    session = v0.start_resumable("cmd.bin", 6)
    assert v0.resumable_command(session.url, "upload", b"abc", offset=0).status_code == 200
    response = v0.resumable_command(session.url, "bogus", b"zzz", offset=3)
    assert 400 <= response.status_code < 500, response.text
    not_found(v0.get_metadata("cmd.bin"))
    query = v0.resumable_command(session.url, "query")
    assert (query.headers["X-Goog-Upload-Status"], query.headers["X-Goog-Upload-Size-Received"]) == ("active", "3")
    assert v0.resumable_command(session.url, "upload, finalize", b"def", offset=3).status_code == 200
    assert v0.download("cmd.bin").content == b"abcdef"


def test_chunk_at_a_wrong_offset_is_refused_and_the_upload_stays_consistent(v0):
    """A chunk whose X-Goog-Upload-Offset leaves a gap after the bytes received cannot be appended. Production's
    exact status was not found: a 4xx is certain, and that the received size does not move, so the client
    can query and resume."""
    session = v0.start_resumable("offset.bin", 9)
    assert v0.resumable_command(session.url, "upload", b"abc", offset=0).status_code == 200
    response = v0.resumable_command(session.url, "upload", b"XYZ", offset=6)
    assert 400 <= response.status_code < 500, response.text
    query = v0.resumable_command(session.url, "query")
    assert query.headers["X-Goog-Upload-Size-Received"] == "3"
    assert v0.resumable_command(session.url, "upload, finalize", b"defghi", offset=3).status_code == 200
    assert v0.download("offset.bin").content == b"abcdefghi"


DISALLOW_SIZE_0 = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /disallowSize0 {
      allow create: if request.resource.size != 0;
    }
  }
}
"""


def test_denied_resumable_upload_reports_final_and_leaves_no_object(v0, storage_target, signed_out):
    """Official tests "should return 403 when resumable upload is unauthenticated" and "... and finalize is
    called again" (production), with the official rule `allow create: if request.resource.size != 0`: the
    start is accepted, the finalizing request answers 403 with X-Goog-Upload-Status: final (the web SDK reads
    it), and so does a repeated finalize."""
    load_rules(storage_target, DISALLOW_SIZE_0)
    session = signed_out.start_resumable("disallowSize0", 0)
    assert session.start.headers["X-Goog-Upload-Status"] == "active"
    response = signed_out.resumable_command(session.url, "upload, finalize", b"", offset=0)
    denied(response, NO_WRITE)
    assert response.headers["X-Goog-Upload-Status"] == "final"
    again = signed_out.resumable_command(session.url, "finalize")
    assert again.status_code == 403 and again.headers["X-Goog-Upload-Status"] == "final"
    not_found(v0.as_owner().get_metadata("disallowSize0"))
    session = v0.start_resumable("disallowSize0", 3)  # the same rule lets a non-empty upload through
    assert v0.resumable_command(session.url, "upload, finalize", b"abc", offset=0).status_code == 200


def test_refused_and_cancelled_uploads_leave_an_existing_object_intact(v0, signed_out):
    original = random_bytes(800)
    before = put(v0, "keep.bin", original)
    upload_refused(signed_out.resumable_upload("keep.bin", random_bytes(300 * KIB, seed=2))[0])
    denied(signed_out.multipart_upload("keep.bin", b"abc"), NO_WRITE)
    session = v0.start_resumable("keep.bin", 600 * KIB)
    assert v0.resumable_command(session.url, "upload", random_bytes(256 * KIB, seed=3), offset=0).status_code == 200
    assert v0.resumable_command(session.url, "cancel").status_code == 200
    session = v0.start_resumable("keep.bin", 600 * KIB)  # started, never finished
    assert v0.resumable_command(session.url, "upload", random_bytes(256 * KIB, seed=4), offset=0).status_code == 200
    assert_unchanged(v0, "keep.bin", before, original)


def test_denied_multipart_and_media_uploads(v0, signed_out):
    denied(signed_out.multipart_upload("nope.txt", b"abc", "text/plain"), NO_WRITE)
    denied(signed_out.media_upload("nope.txt", b"abc", "text/plain"), NO_WRITE)
    not_found(v0.get_metadata("nope.txt"))


def test_bearer_scheme_is_accepted_for_user_tokens(v0):
    """The Admin/REST clients send `Bearer <token>`; the web SDK `Firebase <token>`: both identify the user."""
    bearer = v0.as_token(v0.token, scheme="Bearer")
    put(bearer, "bearer.txt", b"hi")
    assert bearer.download("bearer.txt").content == b"hi"


def test_uploading_again_replaces_the_object(v0):
    """Official JS SDK test "should upload replace existing file" (production): a new generation, the new bytes."""
    first = put(v0, "replace.txt", b"some-content", "text/plain")
    second = put(v0, "replace.txt", b"some-other-content", "text/plain")
    assert second["metageneration"] == "1"
    assert int(second["generation"]) >= int(first["generation"])
    assert v0.download("replace.txt").content == b"some-other-content"


# --------------------------------------------------------------------------------------------
# Broken uploads change nothing


TRUNCATED_BODIES = {
    "missing closing boundary": lambda b, meta, data: multipart_body(b, meta, "text/plain", data)[:-len(f"\r\n--{b}--")],
    "only the metadata part": lambda b, meta, data: (
        f"--{b}\r\nContent-Type: application/json; charset=utf-8\r\n\r\n{meta}\r\n--{b}--").encode(),
    "cut inside the data": lambda b, meta, data: multipart_body(b, meta, "text/plain", data)[:-60],
    "metadata is not JSON": lambda b, meta, data: multipart_body(b, "{not json", "text/plain", data),
    "part without content type": lambda b, meta, data: (
        f"--{b}\r\n\r\n{meta}\r\n--{b}\r\nContent-Type: text/plain\r\n\r\n").encode() + data + f"\r\n--{b}--".encode(),
    "empty body": lambda b, meta, data: b"",
}


@pytest.mark.parametrize("case", list(TRUNCATED_BODIES))
def test_broken_multipart_body_is_400_and_the_old_object_survives(v0, case):
    original = random_bytes(500)
    before = put(v0, "keep.txt", original, "text/plain")
    boundary = "b1d5b2e3-1845-4338-9400-6ac07ce53c1e"
    body = TRUNCATED_BODIES[case](boundary, json.dumps({"name": "keep.txt", "contentType": "text/plain"}),
                                  random_bytes(100, seed=7))
    response = v0.request("POST", v0.bucket_url + "?name=keep.txt",
                          headers={"X-Goog-Upload-Protocol": "multipart",
                                   "Content-Type": f"multipart/related; boundary={boundary}"}, data=body)
    assert response.status_code == 400, response.text
    assert_unchanged(v0, "keep.txt", before, original)


@pytest.mark.parametrize("content_type", ["foo", "multipart/related", "application/json"])
def test_multipart_with_a_bad_content_type_is_400(v0, content_type):
    """Official test "should return an error message when uploading a file with invalid content type"
    (production): 400 whose text includes "Bad content type."."""
    response = v0.request("POST", v0.bucket_url + "?name=bad.txt",
                          headers={"X-Goog-Upload-Protocol": "multipart", "Content-Type": content_type},
                          data=b"--x\r\n")
    assert response.status_code == 400, response.text
    assert "Bad content type." in response.text, response.text
    not_found(v0.get_metadata("bad.txt"))


def test_upload_without_a_name_is_400(v0):
    for response in (
        v0.request("POST", v0.bucket_url, headers={"Content-Type": "text/plain"}, data=b"abc"),
        v0.request("POST", v0.bucket_url, headers={"X-Goog-Upload-Protocol": "resumable",
                                                   "X-Goog-Upload-Command": "start",
                                                   "Content-Type": "application/json"}, data=b"{}"),
    ):
        assert response.status_code == 400, response.text


@pytest.mark.parametrize("name", [".", "..", "x" * 1025, "line\nbreak", "carriage\rreturn"])
def test_invalid_object_names_are_400(v0, name):
    """GCS object naming (cloud.google.com/storage/docs/objects#naming), which Firebase Storage objects obey:
    not "." or "..", at most 1024 bytes of UTF-8, no CR or LF. The exact v0 message was not found; the status
    is 400 and nothing is stored."""
    response = v0.multipart_upload(name, b"abc", "text/plain")
    assert response.status_code == 400, response.text
    listing = v0.as_owner().list("", delimiter=None)
    assert listing.status_code == 200 and listing.json()["items"] == [], listing.text


# --------------------------------------------------------------------------------------------
# Metadata


def test_get_metadata_returns_the_uploaded_resource(v0):
    data = random_bytes(1234)
    uploaded = put(v0, "docs/a.pdf", data, "application/pdf", {"contentLanguage": "fr", "metadata": {"k": "v"}})
    md = metadata_of(v0.get_metadata("docs/a.pdf"))
    assert md == uploaded  # an object with a download token is read without a metadata change
    assert md["contentLanguage"] == "fr"


def test_update_metadata_merges_and_bumps_metageneration(v0):
    before = put(v0, "doc.txt", b"hello", "text/plain", {"metadata": {"a": "1", "b": "2"}})
    response = v0.update_metadata("doc.txt", {
        "cacheControl": "no-cache", "contentDisposition": "attachment", "contentLanguage": "en",
        "contentType": "text/markdown", "metadata": {"b": "3", "c": "4"}})
    md = metadata_of(response)
    assert md["metageneration"] == "2"
    assert (md["generation"], md["timeCreated"], md["md5Hash"], md["size"], md["downloadTokens"]) == (
        before["generation"], before["timeCreated"], before["md5Hash"], before["size"], before["downloadTokens"])
    assert md["updated"] >= md["timeCreated"]
    assert (md["cacheControl"], md["contentDisposition"], md["contentLanguage"], md["contentType"]) == (
        "no-cache", "attachment", "en", "text/markdown")
    assert md["metadata"] == {"a": "1", "b": "3", "c": "4"}
    assert metadata_of(v0.get_metadata("doc.txt")) == md
    download = v0.download("doc.txt")
    assert download.headers["Content-Type"] == "text/markdown" and download.content == b"hello"


def test_update_metadata_through_put_with_method_override(v0):
    """Clients that cannot send PATCH: `PUT` + `X-HTTP-Method-Override: PATCH` (apis/firebase.ts)."""
    put(v0, "doc.txt", b"hello", "text/plain")
    md = metadata_of(v0.update_metadata("doc.txt", {"contentType": "text/html", "metadata": {"x": "y"}},
                                        method_override=True))
    assert (md["contentType"], md["metadata"], md["metageneration"]) == ("text/html", {"x": "y"}, "2")
    assert v0.download("doc.txt").content == b"hello"


def test_null_deletes_metadata_fields(v0):
    """Official JS SDK test "shoud allow deletion of settable metadata fields by setting to null":
    contentEncoding falls back to "identity"."""
    put(v0, "doc.txt", b"hello", "text/plain",
        {"cacheControl": "max-age=1", "contentLanguage": "en", "contentEncoding": "identity", "metadata": {"k": "v"}})
    md = metadata_of(v0.update_metadata("doc.txt", {"cacheControl": None, "contentLanguage": None,
                                                    "contentEncoding": None, "metadata": None}))
    assert "cacheControl" not in md and "contentLanguage" not in md, md
    assert md["contentEncoding"] == "identity"
    assert "metadata" not in md, md


def test_null_deletes_one_custom_key(v0):
    """Official JS SDK test "should allow deletion of custom metadata by setting to null": the last key gone,
    no `metadata` at all."""
    put(v0, "doc.txt", b"hello", "text/plain")
    md = metadata_of(v0.update_metadata("doc.txt", {"contentType": "text/plain", "metadata": {"removeMe": "please", "keep": "me"}}))
    assert md["metadata"] == {"removeMe": "please", "keep": "me"}
    md = metadata_of(v0.update_metadata("doc.txt", {"metadata": {"removeMe": None}}))
    assert md["metadata"] == {"keep": "me"}
    md = metadata_of(v0.update_metadata("doc.txt", {"metadata": {"keep": None}}))
    assert "metadata" not in md, md


def test_update_metadata_of_a_missing_object_is_404(v0):
    not_found(v0.update_metadata("missing.txt", {"contentType": "text/plain"}))


# --------------------------------------------------------------------------------------------
# Downloads


def test_download_response_headers(v0):
    data = random_bytes(2000)
    md = put(v0, "docs/report final.pdf", data, "application/pdf")
    response = v0.download("docs/report final.pdf")
    assert response.status_code == 200 and response.content == data
    headers = response.headers
    assert headers["Content-Type"] == "application/pdf"
    assert headers["Accept-Ranges"] == "bytes"
    # Emulator: "<disposition>; filename*=<RFC 5987 name>"; production may spell it "…=utf-8''<name>".
    disposition = headers["Content-Disposition"]
    assert disposition.startswith("inline;") and disposition.endswith("report%20final.pdf"), disposition
    assert headers["x-goog-generation"] == md["generation"]
    assert headers["x-goog-storage-class"] == "STANDARD"
    hashes = dict(part.strip().split("=", 1) for part in headers["x-goog-hash"].split(","))
    assert hashes == {"crc32c": crc32c_b64(data), "md5": md5_b64(data)}, headers["x-goog-hash"]
    assert headers["ETag"]


def test_download_of_an_object_without_disposition_is_attachment(v0, storage_target):
    """Official test "serves the right content" (production): an object uploaded through GCS, fetched through
    its v0 download URL: `Content-Disposition: attachment; filename*=testFile`."""
    gcs = GcsJson(storage_target)
    assert gcs.media_upload(v0.bucket, "testing/storage_ref/testFile", b"hello world").status_code == 200
    response = v0.download("testing/storage_ref/testFile")
    assert response.status_code == 200 and response.content == b"hello world"
    assert response.headers["Content-Disposition"] == "attachment; filename*=testFile"


def test_download_url_token_skips_rules(v0, signed_out):
    """The download URL getDownloadURL() builds carries `token=`; a valid token opens the object without any
    Authorization header (storage/files.ts getObject); no token or a wrong one goes through the rules."""
    data = random_bytes(100)
    md = put(v0, "shared/pic.png", data, "image/png")
    token = md["downloadTokens"].split(",")[0]
    assert UUID.match(token)
    response = signed_out.download("shared/pic.png", token=token, auth=False)
    assert response.status_code == 200 and response.content == data
    denied(signed_out.download("shared/pic.png", auth=False), NO_READ)
    denied(signed_out.download("shared/pic.png", token="00000000-0000-0000-0000-000000000000", auth=False), NO_READ)
    denied(signed_out.get_metadata("shared/pic.png"), NO_READ)


@pytest.mark.parametrize("range_header, start, end", [
    ("bytes=10-19", 10, 19),
    ("bytes=990-", 990, 999),
    ("bytes=-5", 995, 999),
    ("bytes=0-100", 0, 100),  # getBytes(ref, 100) sends `bytes=0-<maxDownloadSizeBytes>`
    ("bytes=900-5000", 900, 999),
])
def test_download_range_is_206(v0, range_header, start, end):
    data = random_bytes(1000)
    put(v0, "range.bin", data)
    response = v0.download("range.bin", headers={"Range": range_header})
    assert response.status_code == 206, response.text
    assert response.headers["Content-Range"] == f"bytes {start}-{end}/1000"
    assert response.content == data[start:end + 1]


def test_gzip_object_is_decompressed_unless_the_client_accepts_gzip(v0):
    """Official gzip tests (production) and GCS decompressive transcoding: stored gzip bytes are served as is
    with Content-Encoding: gzip to a client that accepts gzip, decompressed without Content-Encoding
    otherwise, and a Range is then ignored."""
    original = b"hello world " * 200
    compressed = gzip.compress(original)
    put(v0, "logs/app.log", compressed, "text/plain", {"contentEncoding": "gzip"})
    md = metadata_of(v0.get_metadata("logs/app.log"))
    assert (md["contentEncoding"], md["size"]) == ("gzip", str(len(compressed)))

    accepted = v0.download("logs/app.log", headers={"Accept-Encoding": "gzip"}, stream=True)
    assert accepted.status_code == 200
    assert accepted.headers["Content-Encoding"] == "gzip"
    assert accepted.headers["Content-Type"] == "text/plain"
    assert raw_body(accepted) == compressed

    plain = v0.download("logs/app.log", headers={"Accept-Encoding": "identity"}, stream=True)
    assert plain.status_code == 200
    assert "Content-Encoding" not in plain.headers or plain.headers["Content-Encoding"] in ("", "identity"), plain.headers
    assert plain.headers["Content-Type"] == "text/plain"
    assert raw_body(plain) == original

    ranged = v0.download("logs/app.log", headers={"Accept-Encoding": "identity", "Range": "bytes=0-9"}, stream=True)
    assert ranged.status_code == 200
    assert raw_body(ranged) == original


def test_download_of_a_missing_object_is_404(v0):
    response = v0.download("missing.bin")
    assert response.status_code == 404
    not_found(v0.get_metadata("missing.bin"))


# --------------------------------------------------------------------------------------------
# Delete


def test_delete_is_204_and_the_object_is_gone(v0):
    put(v0, "tmp/a.txt", b"abc")
    response = v0.delete("tmp/a.txt")
    assert response.status_code == 204, response.text
    assert response.content == b""
    not_found(v0.get_metadata("tmp/a.txt"))
    assert v0.download("tmp/a.txt").status_code == 404
    not_found(v0.delete("tmp/a.txt"))


# --------------------------------------------------------------------------------------------
# List


def test_list_returns_items_and_prefixes_at_a_path(v0):
    """Official JS SDK test "should list all files and prefixes at path" (production), on the wire: prefixes
    are full paths ending in "/", items only `{name, bucket}`."""
    for name in ["listAll/some/deeply/nested/directory/item1", "listAll/item1", "listAll/item2", "other/x"]:
        put(v0, name)
    body = v0.list("listAll/").json()
    assert body == {
        "prefixes": ["listAll/some/"],
        "items": [{"name": "listAll/item1", "bucket": v0.bucket}, {"name": "listAll/item2", "bucket": v0.bucket}],
    }
    root = v0.list("")
    assert root.status_code == 200
    assert root.json() == {"prefixes": ["listAll/", "other/"], "items": []}


def test_list_without_delimiter_is_flat(v0):
    for name in ["a/2", "a/b/1", "a/1", "b/1"]:
        put(v0, name)
    body = v0.list("a/", delimiter=None).json()
    assert [item["name"] for item in body["items"]] == ["a/1", "a/2", "a/b/1"]
    assert body.get("prefixes", []) == []


def test_list_paginates_with_max_results_and_page_token(v0):
    """Official JS SDK tests "should list only maxResults items with nextPageToken" and "should paginate when
    nextPageToken is provided" (production): 10 items, pages of 4 -> 3 pages."""
    names = [f"listAll/item#{i}" for i in range(10)]
    for name in names:
        put(v0, name)
    seen, token, pages = [], None, 0
    while True:
        response = v0.list("listAll/", max_results=4, page_token=token)
        assert response.status_code == 200, response.text
        body = response.json()
        pages += 1
        page = [item["name"] for item in body["items"]]
        assert page == sorted(page) and len(page) <= 4
        seen += page
        token = body.get("nextPageToken")
        if not token:
            break
        assert len(page) == 4
    assert pages == 3
    assert seen == sorted(names)


def test_list_prefix_must_end_with_a_slash(v0):
    """Production's 400 (apis/firebase.ts): the SDKs always send "" or "<path>/"."""
    firebase_error(v0.list("listAll"), 400, PREFIX_ERROR)


def test_list_of_an_empty_folder(v0):
    """Official JS SDK test "zero element list array should still be present in response"."""
    response = v0.list("nothing/")
    assert response.status_code == 200
    assert response.json() == {"prefixes": [], "items": []}


def test_list_leaves_out_invalid_paths_and_folder_placeholders(v0, storage_target):
    """Official JS SDK tests "should not include show invalid prefixes and items" and "folder placeholder
    should not be listed under itself" (production): names with empty segments are not items."""
    gcs = GcsJson(storage_target)
    for name in ["listAll//foo", "listAll/bar//", "listAll/baz//qux", "listAll/abc/"]:
        assert gcs.media_upload(v0.bucket, name, b"").status_code == 200
    assert v0.list("listAll/").json() == {
        "prefixes": ["listAll/abc/", "listAll/bar/", "listAll/baz/"], "items": []}
    assert v0.list("listAll/abc/").json() == {"prefixes": [], "items": []}


# --------------------------------------------------------------------------------------------
# Download tokens


def test_first_v0_read_of_a_gcs_object_creates_a_token(v0, storage_target):
    """Official JS SDK test "should return file metadata" (production): an object uploaded through GCS has no
    token; the first v0 metadata read adds one, so metageneration is "2"."""
    gcs = GcsJson(storage_target)
    uploaded = gcs.media_upload(v0.bucket, "testing/storage_ref/testFile", b"")
    assert uploaded.status_code == 200
    assert "firebaseStorageDownloadTokens" not in uploaded.json().get("metadata", {})
    md = metadata_of(v0.get_metadata("testing/storage_ref/testFile"))
    assert md["metageneration"] == "2"
    assert UUID.match(md["downloadTokens"]), md
    assert md["contentEncoding"] == "identity" and md["contentType"] == "application/octet-stream"
    again = metadata_of(v0.get_metadata("testing/storage_ref/testFile"))
    assert (again["metageneration"], again["downloadTokens"]) == ("2", md["downloadTokens"])


def test_create_and_delete_tokens_as_admin(v0, owner):
    """Official tests "should generate new token on create_token", "should delete a download token", "should
    regenerate a new token if the last remaining one is deleted" (production)."""
    first = put(v0, "tokens/f.txt", b"abc")["downloadTokens"]
    created = metadata_of(owner.create_token("tokens/f.txt"))
    tokens = created["downloadTokens"].split(",")
    assert len(tokens) == 2 and tokens[0] == first and UUID.match(tokens[1]), created
    assert created["metageneration"] == "2"

    remaining = metadata_of(owner.delete_token("tokens/f.txt", tokens[0]))["downloadTokens"]
    assert remaining == tokens[1]
    denied(v0.as_token(None).download("tokens/f.txt", token=tokens[0], auth=False), NO_READ)
    assert v0.as_token(None).download("tokens/f.txt", token=tokens[1], auth=False).content == b"abc"

    regenerated = metadata_of(owner.delete_token("tokens/f.txt", tokens[1]))["downloadTokens"]
    assert UUID.match(regenerated) and regenerated != tokens[1], regenerated


def test_token_changes_need_admin_credentials(v0):
    """Official tests "should return a 403 for create_token/delete_token if auth header is invalid"
    (production) and "should return a 400 if create_token value is invalid"."""
    token = put(v0, "tokens/f.txt", b"abc")["downloadTokens"]
    firebase_error(v0.create_token("tokens/f.txt"), 403, MISSING_ADMIN)
    firebase_error(v0.delete_token("tokens/f.txt", token), 403, MISSING_ADMIN)
    firebase_error(v0.as_token("somethingElse", scheme="Bearer").create_token("tokens/f.txt"), 403, MISSING_ADMIN)
    assert v0.as_owner().create_token("tokens/f.txt", value="someNonTrueParam").status_code == 400
    assert metadata_of(v0.get_metadata("tokens/f.txt"))["downloadTokens"] == token


def test_bearer_owner_and_firebase_owner_are_admin(v0):
    put(v0, "adm.txt", b"abc")
    for scheme in ("Bearer", "Firebase"):
        admin = v0.as_token("owner", scheme=scheme)
        assert len(metadata_of(admin.create_token("adm.txt"))["downloadTokens"].split(",")) >= 2


def test_token_request_on_a_missing_object_is_404(owner):
    assert owner.create_token("missing.txt").status_code == 404


# --------------------------------------------------------------------------------------------
# Names


NAMES = [
    "dir/../secret.txt",
    "a#b c.txt",
    "spaces in/file name.pdf",
    "naïve/日本語 ファイル.txt",
    "emoji/😀.png",
    "percent%2Fliteral%20.txt",
    "query?x=1&y=2",
    "plus+sign=equals",
    "semi;colon,comma'quote\"",
    "trailing dot.",
    "..hidden/..",
]


@pytest.mark.parametrize("name", NAMES)
def test_object_names_are_arbitrary_utf8(v0, name):
    data = name.encode() * 3
    md = put(v0, name, data, "text/plain")
    assert md["name"] == name
    assert metadata_of(v0.get_metadata(name))["name"] == name
    download = v0.download(name)
    assert download.status_code == 200 and download.content == data
    parent = name[:name.rfind("/") + 1] if "/" in name else ""
    items = v0.list(parent).json()["items"]
    assert {"name": name, "bucket": v0.bucket} in items, items
    assert v0.delete(name).status_code == 204
    not_found(v0.get_metadata(name))


def test_names_with_dot_segments_are_not_resolved(v0):
    """`a/../b` is its own object, never `b`: the path is data, not a file-system path."""
    put(v0, "b", b"plain b")
    put(v0, "a/../b", b"dotted")
    assert v0.download("b").content == b"plain b"
    assert v0.download("a/../b").content == b"dotted"
    not_found(v0.get_metadata("a/b"))


# --------------------------------------------------------------------------------------------
# CORS (browsers)


def test_cors_exposes_the_upload_headers_to_browsers(v0):
    """A browser SDK can only read the resumable headers if they are exposed (firebase-tools server.ts cors
    setup: origin reflected, X-Goog-Upload-* exposed); preflights reflect the requested headers."""
    origin = "http://localhost:5173"
    preflight = send("OPTIONS", v0.bucket_url + "?name=x", headers={
        "Origin": origin, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization,x-goog-upload-protocol,x-goog-upload-command,content-type"})
    assert preflight.status_code in (200, 204), preflight.text
    assert preflight.headers["Access-Control-Allow-Origin"] == origin
    allowed_headers = preflight.headers["Access-Control-Allow-Headers"].lower()
    for header in ("authorization", "x-goog-upload-protocol", "x-goog-upload-command", "content-type"):
        assert header in allowed_headers, allowed_headers
    assert "POST" in preflight.headers["Access-Control-Allow-Methods"].upper()

    session_start = v0.request("POST", v0.bucket_url + "?name=cors.bin", headers={
        "Origin": origin, "X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start",
        "Content-Type": "application/json; charset=utf-8"}, data=b'{"name":"cors.bin"}')
    assert session_start.status_code == 200
    assert session_start.headers["Access-Control-Allow-Origin"] == origin
    exposed = {h.strip().lower() for h in session_start.headers["Access-Control-Expose-Headers"].split(",")}
    assert {"x-goog-upload-url", "x-goog-upload-status", "x-goog-upload-size-received"} <= exposed, exposed


# --------------------------------------------------------------------------------------------
# Emulator-only endpoints


def test_reset_deletes_every_object_and_upload(v0, storage_target):
    """Emulator-only `POST /internal/reset` (firebase-tools server.ts): objects and upload sessions gone,
    rules kept."""
    put(v0, "reset/me.txt", b"abc")
    session = v0.start_resumable("reset/pending.bin", 10)
    response = requests.post(f"{storage_target.url}/internal/reset", timeout=10)
    assert response.status_code == 200
    not_found(v0.get_metadata("reset/me.txt"))
    assert v0.resumable_command(session.url, "query").status_code == 404
    put(v0, "reset/after.txt", b"def")  # the rules are still loaded
    assert v0.download("reset/after.txt").content == b"def"


def test_export_writes_the_official_layout(v0, storage_target, tmp_path):
    """Emulator-only `POST /internal/export {"path"}` (firebase-tools storage/files.ts export): buckets.json
    with every bucket id, blobs/<file> with the bytes and metadata/<file>.json with the object's metadata."""
    data = random_bytes(321)
    put(v0, "export/me.bin", data, "application/pdf")
    target = tmp_path / "storage_export"
    target.mkdir()
    response = requests.post(f"{storage_target.url}/internal/export",
                             json={"path": str(target), "initiatedBy": "conformance"}, timeout=30)
    assert response.status_code == 200, response.text
    buckets = json.loads((target / "buckets.json").read_text())
    assert {"id": v0.bucket} in buckets["buckets"], buckets
    found = []
    for meta_file in (target / "metadata").rglob("*.json"):
        stored = json.loads(meta_file.read_text())
        if stored.get("bucket") == v0.bucket and stored.get("name") == "export/me.bin":
            found.append((meta_file, stored))
    assert len(found) == 1, list((target / "metadata").rglob("*"))
    meta_file, stored = found[0]
    assert stored["contentType"] == "application/pdf" and int(stored["size"]) == len(data)
    blob = target / "blobs" / meta_file.relative_to(target / "metadata").with_suffix("")
    assert Path(blob).read_bytes() == data


def test_export_without_a_path_is_400(storage_target):
    response = requests.post(f"{storage_target.url}/internal/export", json={"initiatedBy": "conformance"}, timeout=10)
    assert response.status_code == 400
