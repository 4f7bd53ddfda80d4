"""Helpers for the Cloud Storage for Firebase conformance tests: where the Storage emulator listens, a v0
client that speaks exactly as the Firebase JS SDK does (and, where they differ, as the iOS SDK's
GTMSessionUploadFetcher does), raw GCS JSON API calls, rules loading, Firestore seeding for rules that call
`firestore.get()`, and the error shapes.

The wire facts come from:
- firebase-js-sdk `packages/storage/src/implementation/{requests,request,metadata,list,url}.ts` and
  `src/task.ts`: `/v0/b/{encodeURIComponent(bucket)}/o/{encodeURIComponent(path)}`, `Authorization:
  Firebase <ID token>`, `X-Firebase-Storage-Version: webjs/<version>`; multipart for blobs <= 256 KiB
  (`--B\\r\\nContent-Type: application/json; charset=utf-8\\r\\n\\r\\n<metadata>\\r\\n--B\\r\\nContent-Type:
  <type>\\r\\n\\r\\n<bytes>\\r\\n--B--`), resumable above (start with `X-Goog-Upload-Protocol: resumable`,
  `X-Goog-Upload-Command: start`, `X-Goog-Upload-Header-Content-Length/-Type`; then `upload` / `upload,
  finalize` / `finalize` with `X-Goog-Upload-Offset`; chunks of 256 KiB x a multiplier that doubles after each
  chunk while the chunk stays under 32 MiB);
- GTMSessionUploadFetcher (the iOS SDK's uploader): start with `X-Goog-Upload-Content-Type/-Length`, chunk,
  query and cancel requests sent with PUT to the upload URL and without an Authorization header;
- firebase-tools `src/emulator/storage/` (server.ts, apis/firebase.ts, apis/gcloud.ts, apis/shared.ts,
  metadata.ts, upload.ts, multipart.ts) for the emulator-only endpoints and the exact error strings;
- firebase-tools `scripts/storage-emulator-integration/conformance/*.test.ts`, the official suite that also
  runs against production (`TEST_ENV.useProductionServers`): what it asserts outside `emulatorOnly` is
  production behaviour.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import random
import re
import urllib.parse
import uuid
from dataclasses import dataclass
from typing import Any

import pytest
import requests

from firestore_support import Firestore, id_token, ok
from support import RunningHearth

KIB = 1024
MIB = 1024 * 1024
OWNER = "owner"  # `Authorization: Firebase owner` / `Bearer owner` = admin, bypasses rules
WEB_SDK_VERSION = "webjs/11.10.0"
IOS_SDK_VERSION = "ios/11.10.0"
RESUMABLE_UPLOAD_CHUNK_SIZE = 256 * KIB  # requests.ts RESUMABLE_UPLOAD_CHUNK_SIZE
MULTIPART_MAX = 256 * KIB  # task.ts _shouldDoResumable: size > 256 KiB goes resumable
MAX_CHUNK = 32 * MIB  # task.ts _increaseMultiplier
TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
DIGITS = re.compile(r"^[1-9]\d*$")

# A ruleset that lets any signed-in user do anything (what most v0 protocol tests run under).
SIGNED_IN_RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /{allPaths=**} {
      allow read, write: if request.auth != null;
    }
  }
}
"""

DENY_ALL_RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /{allPaths=**} {
      allow read, write: if false;
    }
  }
}
"""


# --------------------------------------------------------------------------------------------
# Where the emulator is


@dataclass(frozen=True)
class StorageTarget:
    """The Storage emulator under test, the Firestore emulator its rules read, and the project both run
    with (storage rules' `firestore.get()` reads that project's (default) database)."""

    host: str  # "127.0.0.1:9199", as in FIREBASE_STORAGE_EMULATOR_HOST
    firestore_host: str  # as in FIRESTORE_EMULATOR_HOST
    project: str

    @property
    def url(self) -> str:
        return f"http://{self.host}"


def _storage_host_from_environment() -> str | None:
    host = os.environ.get("FIREBASE_STORAGE_EMULATOR_HOST")
    if host:
        return host
    url = os.environ.get("STORAGE_EMULATOR_HOST")
    if url:
        return url.split("://", 1)[-1].rstrip("/")
    return None


@pytest.fixture(scope="session")
def storage_target():
    """The Storage emulator from the `hearth exec` environment (FIREBASE_STORAGE_EMULATOR_HOST,
    FIRESTORE_EMULATOR_HOST, GCLOUD_PROJECT), else a hearth started for this session with Storage and
    Firestore on free ports (stopped by PID at the end)."""
    host = _storage_host_from_environment()
    firestore = os.environ.get("FIRESTORE_EMULATOR_HOST")
    project = os.environ.get("GCLOUD_PROJECT")
    if host and firestore and project:
        yield StorageTarget(host, firestore, project)
        return
    project = "demo-hearth"
    hearth = RunningHearth(
        ["--only", "storage,firestore", "--port", "storage=0", "--port", "firestore=0", "--port", "hub=0",
         "--project", project]
    )
    try:
        hearth.wait_ready()
        addresses = hearth.addresses
        assert {"Storage", "Firestore"} <= set(addresses), hearth.output()
        yield StorageTarget(addresses["Storage"], addresses["Firestore"], project)
    finally:
        hearth.stop()


@pytest.fixture(scope="session")
def storage_host(storage_target) -> str:
    """"host:port" of the Storage emulator."""
    return storage_target.host


def new_bucket() -> str:
    """A bucket name no other test uses, shaped like a Firebase default bucket."""
    return f"demo-{uuid.uuid4().hex[:12]}.appspot.com"


@pytest.fixture
def bucket() -> str:
    return new_bucket()


# --------------------------------------------------------------------------------------------
# Rules and Firestore data


def set_rules(target: StorageTarget, content: str | None = None, *, files: list[dict] | None = None,
              body: Any = None) -> requests.Response:
    """`PUT /internal/setRules` (what @firebase/rules-unit-testing sends): one file for every bucket, or
    `files` with a `resource` (bucket) each, or a raw `body`."""
    if body is None:
        body = {"rules": {"files": files if files is not None else [{"name": "storage.rules", "content": content}]}}
    return requests.put(f"{target.url}/internal/setRules", json=body, timeout=30)


def load_rules(target: StorageTarget, content: str) -> None:
    response = set_rules(target, content)
    assert response.status_code == 200, response.text
    assert response.json() == {"message": "Rules updated successfully"}, response.text


def firestore_admin(target: StorageTarget) -> Firestore:
    """The Firestore REST client on the project the storage rules read, as admin (`Bearer owner`)."""
    return Firestore(target.firestore_host, target.project, token=OWNER)


def seed_document(target: StorageTarget, path: str, data: dict) -> dict:
    """Creates or replaces the Firestore document `path` (e.g. "conversations/c1") as admin."""
    return ok(firestore_admin(target).patch(path, data))


def user_token(target: StorageTarget, uid: str, **claims) -> str:
    """An unsigned ID token (alg none) for `uid`, as the Auth emulator issues."""
    return id_token(uid, target.project, **claims)


# --------------------------------------------------------------------------------------------
# Bytes


def random_bytes(size: int, seed: int | None = None) -> bytes:
    return random.Random(seed if seed is not None else size).randbytes(size)


def md5_b64(data: bytes) -> str:
    return base64.b64encode(hashlib.md5(data).digest()).decode()


def crc32c_of(data: bytes) -> int:
    import google_crc32c  # shipped with google-cloud-storage

    return int(google_crc32c.value(data))


def crc32c_b64(data: bytes) -> str:
    return base64.b64encode(crc32c_of(data).to_bytes(4, "big")).decode()


def encode_component(text: str) -> str:
    """JavaScript's encodeURIComponent (what the SDKs apply to the bucket, the object path and query
    values)."""
    return urllib.parse.quote(text, safe="-_.!~*'()")


def query_string(params: dict) -> str:
    """requests.ts makeQueryString: `?k=v&…` with encodeURIComponent on keys and values, in order."""
    if not params:
        return ""
    return "?" + "&".join(f"{encode_component(k)}={encode_component(str(v))}" for k, v in params.items())


# --------------------------------------------------------------------------------------------
# HTTP with exact URLs


_SESSION = requests.Session()


def send(method: str, url: str, *, headers: dict | None = None, data: bytes | str | None = None,
         stream: bool = False, timeout: float = 60) -> requests.Response:
    """Sends `url` byte for byte: requests would otherwise unescape %2E and drop `..` segments."""
    prepared = requests.Request(method, url, headers=headers or {}, data=data).prepare()
    prepared.url = url
    return _SESSION.send(prepared, stream=stream, timeout=timeout, allow_redirects=False)


def raw_body(response: requests.Response) -> bytes:
    """The body exactly as sent (no transparent gunzip); the response must be made with stream=True."""
    try:
        return response.raw.read(decode_content=False)
    finally:
        response.close()


# --------------------------------------------------------------------------------------------
# The Firebase v0 API, spoken as the JS SDK speaks it


def writable_metadata(name: str, content_type: str, metadata: dict | None) -> dict:
    """requests.ts metadataForUpload_ + metadata.ts toResourceString: the writable mappings in their order
    (name, md5Hash, cacheControl, contentDisposition, contentEncoding, contentLanguage, contentType,
    metadata), undefined ones dropped by JSON.stringify."""
    given = dict(metadata or {})
    resource: dict = {"name": name}
    for key in ("md5Hash", "cacheControl", "contentDisposition", "contentEncoding", "contentLanguage"):
        if key in given:
            resource[key] = given[key]
    resource["contentType"] = given.get("contentType") or content_type
    if "metadata" in given:
        resource["metadata"] = given["metadata"]
    return resource


def compact_json(value: Any) -> str:
    """JSON.stringify's output (no spaces)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@dataclass
class ResumableSession:
    """A started resumable upload: the start response and the upload URL it returned."""

    start: requests.Response
    url: str

    @property
    def upload_id(self) -> str:
        return urllib.parse.parse_qs(urllib.parse.urlsplit(self.url).query)["upload_id"][0]


class FirebaseStorage:
    """One user's (or admin's, token "owner") view of one bucket through `/v0`, sending what the web SDK
    sends. `token=None` is a signed-out client (no Authorization header)."""

    def __init__(self, target: StorageTarget, bucket: str, token: str | None = None, scheme: str = "Firebase"):
        self.target = target
        self.bucket = bucket
        self.token = token
        self.scheme = scheme

    def as_token(self, token: str | None, scheme: str = "Firebase") -> "FirebaseStorage":
        return FirebaseStorage(self.target, self.bucket, token, scheme)

    def as_user(self, uid: str, **claims) -> "FirebaseStorage":
        return self.as_token(user_token(self.target, uid, **claims))

    def as_owner(self) -> "FirebaseStorage":
        return self.as_token(OWNER)

    # URLs and headers -------------------------------------------------------------------------

    @property
    def bucket_url(self) -> str:
        """Location.bucketOnlyServerUrl: /v0/b/{bucket}/o"""
        return f"{self.target.url}/v0/b/{encode_component(self.bucket)}/o"

    def object_url(self, name: str) -> str:
        """Location.fullServerUrl: /v0/b/{bucket}/o/{encodeURIComponent(path)}"""
        return f"{self.bucket_url}/{encode_component(name)}"

    def headers(self, extra: dict | None = None, *, auth: bool = True) -> dict:
        headers = {"X-Firebase-Storage-Version": WEB_SDK_VERSION}
        if auth and self.token is not None:
            headers["Authorization"] = f"{self.scheme} {self.token}"
        headers.update(extra or {})
        return headers

    def request(self, method: str, url: str, *, headers: dict | None = None, data: bytes | str | None = None,
                auth: bool = True, stream: bool = False) -> requests.Response:
        return send(method, url, headers=self.headers(headers, auth=auth), data=data, stream=stream)

    # Reads -------------------------------------------------------------------------------------

    def get_metadata(self, name: str) -> requests.Response:
        """getMetadata(): GET /v0/b/{b}/o/{path}"""
        return self.request("GET", self.object_url(name))

    def download(self, name: str, *, token: str | None = None, headers: dict | None = None,
                 auth: bool = True, stream: bool = False) -> requests.Response:
        """getBytes()/getBlob(): GET …?alt=media (with the Authorization header), or the download URL
        `…?alt=media&token=<download token>` (what getDownloadURL() builds; a browser fetches it without
        any Authorization header: pass auth=False)."""
        params = {"alt": "media"}
        if token is not None:
            params["token"] = token
        return self.request("GET", self.object_url(name) + query_string(params), headers=headers, auth=auth,
                            stream=stream)

    def list(self, prefix: str = "", *, delimiter: str | None = "/", page_token: str | None = None,
             max_results: int | None = None) -> requests.Response:
        """list()/listAll(): GET /v0/b/{b}/o?prefix=<dir/>&delimiter=/&pageToken=&maxResults="""
        params: dict = {"prefix": prefix}
        if delimiter:
            params["delimiter"] = delimiter
        if page_token:
            params["pageToken"] = page_token
        if max_results:
            params["maxResults"] = max_results
        return self.request("GET", self.bucket_url + query_string(params))

    # Writes ------------------------------------------------------------------------------------

    def update_metadata(self, name: str, changes: dict, *, method_override: bool = False) -> requests.Response:
        """updateMetadata(): PATCH with the writable fields (null deletes); or, as clients that cannot send
        PATCH do, PUT with `X-HTTP-Method-Override: PATCH`."""
        headers = {"Content-Type": "application/json; charset=utf-8"}
        if method_override:
            headers["X-HTTP-Method-Override"] = "PATCH"
            return self.request("PUT", self.object_url(name), headers=headers, data=compact_json(changes).encode())
        return self.request("PATCH", self.object_url(name), headers=headers, data=compact_json(changes).encode())

    def delete(self, name: str) -> requests.Response:
        return self.request("DELETE", self.object_url(name))

    def media_upload(self, name: str, data: bytes, content_type: str | None = None) -> requests.Response:
        """POST /v0/b/{b}/o?name=<path> with the raw bytes (no upload protocol header)."""
        headers = {"Content-Type": content_type} if content_type else {}
        return self.request("POST", self.bucket_url + query_string({"name": name}), headers=headers, data=data)

    def multipart_upload(self, name: str, data: bytes, content_type: str = "application/octet-stream",
                         metadata: dict | None = None, *, boundary: str | None = None) -> requests.Response:
        """uploadBytes() of a blob <= 256 KiB: requests.ts multipartUpload, byte for byte."""
        boundary = boundary or multipart_boundary()
        resource = writable_metadata(name, content_type, metadata)
        body = multipart_body(boundary, compact_json(resource), resource["contentType"], data)
        headers = {"X-Goog-Upload-Protocol": "multipart", "Content-Type": f"multipart/related; boundary={boundary}"}
        return self.request("POST", self.bucket_url + query_string({"name": name}), headers=headers, data=body)

    def start_resumable(self, name: str, size: int, content_type: str = "application/octet-stream",
                        metadata: dict | None = None) -> ResumableSession:
        """requests.ts createResumableUpload; asserts the start succeeded and returns the session."""
        response = self.start_resumable_raw(name, size, content_type, metadata)
        assert response.status_code == 200, f"resumable start: {response.status_code} {response.text}"
        url = response.headers.get("X-Goog-Upload-URL")
        assert url, f"no X-Goog-Upload-URL in {dict(response.headers)}"
        return ResumableSession(response, url)

    def start_resumable_raw(self, name: str, size: int, content_type: str = "application/octet-stream",
                            metadata: dict | None = None) -> requests.Response:
        resource = writable_metadata(name, content_type, metadata)
        headers = {
            "X-Goog-Upload-Protocol": "resumable",
            "X-Goog-Upload-Command": "start",
            "X-Goog-Upload-Header-Content-Length": str(size),
            "X-Goog-Upload-Header-Content-Type": resource["contentType"],
            "Content-Type": "application/json; charset=utf-8",
        }
        return self.request("POST", self.bucket_url + query_string({"name": name}), headers=headers,
                            data=compact_json(resource).encode())

    def resumable_command(self, url: str, command: str, data: bytes = b"", *, offset: int | None = None,
                          method: str = "POST", auth: bool = True, extra: dict | None = None) -> requests.Response:
        """One request on an upload URL: `upload`, `upload, finalize`, `finalize`, `query` or `cancel`."""
        headers = {"X-Goog-Upload-Command": command}
        if offset is not None:
            headers["X-Goog-Upload-Offset"] = str(offset)
        headers.update(extra or {})
        return send(method, url, headers=self.headers(headers, auth=auth), data=data)

    def resumable_upload(self, name: str, data: bytes, content_type: str = "application/octet-stream",
                         metadata: dict | None = None) -> tuple[requests.Response, list[tuple[str, int, requests.Response]]]:
        """uploadBytesResumable() of a blob > 256 KiB, as task.ts drives it: start, then chunks of 256 KiB
        doubling after each success (kept under 32 MiB), the last one `upload, finalize`. Returns the last
        response and every (command, offset, response) sent; stops at the first non-200 (a refused start
        included)."""
        start = self.start_resumable_raw(name, len(data), content_type, metadata)
        if start.status_code != 200:
            return start, [("start", 0, start)]
        session = ResumableSession(start, start.headers["X-Goog-Upload-URL"])
        sent: list[tuple[str, int, requests.Response]] = []
        multiplier = 1
        offset = 0
        while True:
            chunk_size = RESUMABLE_UPLOAD_CHUNK_SIZE * multiplier
            left = len(data) - offset
            count = min(left, chunk_size)
            command = "finalize" if count == 0 else ("upload, finalize" if count == left else "upload")
            response = self.resumable_command(session.url, command, data[offset:offset + count], offset=offset)
            sent.append((command, offset, response))
            if response.status_code != 200 or "finalize" in command:
                return response, sent
            offset += count
            if chunk_size * 2 < MAX_CHUNK:
                multiplier *= 2

    def upload(self, name: str, data: bytes, content_type: str = "application/octet-stream",
               metadata: dict | None = None) -> requests.Response:
        """uploadBytes()/uploadBytesResumable(): multipart up to 256 KiB, resumable above, as the SDK picks."""
        if len(data) <= MULTIPART_MAX:
            return self.multipart_upload(name, data, content_type, metadata)
        return self.resumable_upload(name, data, content_type, metadata)[0]

    # iOS ---------------------------------------------------------------------------------------

    def ios_start(self, name: str, size: int, content_type: str, metadata: dict | None = None) -> requests.Response:
        """The iOS SDK's start request (StorageUploadTask + GTMSessionUploadFetcher): POST
        /v0/b/{b}/o?uploadType=resumable&name=…, JSON metadata, `X-Goog-Upload-Content-Type/-Length`."""
        body = {"name": name, "contentType": content_type, **(metadata or {})}
        headers = {
            "X-Firebase-Storage-Version": IOS_SDK_VERSION,
            "Content-Type": "application/json; charset=UTF-8",
            "X-Goog-Upload-Protocol": "resumable",
            "X-Goog-Upload-Command": "start",
            "X-Goog-Upload-Content-Type": content_type,
            "X-Goog-Upload-Content-Length": str(size),
            "User-Agent": "hearth-conformance (GTMSUF/1)",
        }
        return self.request("POST", self.bucket_url + query_string({"uploadType": "resumable", "name": name}),
                            headers=headers, data=compact_json(body).encode())

    def ios_chunk(self, url: str, command: str, data: bytes = b"", offset: int | None = None) -> requests.Response:
        """A GTMSessionUploadFetcher chunk/query/cancel request: PUT, no Authorization header."""
        headers = {"X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": command,
                   "User-Agent": "hearth-conformance (GTMSUF/1)"}
        if offset is not None:
            headers["X-Goog-Upload-Offset"] = str(offset)
        return send("PUT", url, headers=headers, data=data)

    # Download tokens (admin) -------------------------------------------------------------------

    def create_token(self, name: str, value: str = "true") -> requests.Response:
        return self.request("POST", self.object_url(name) + query_string({"create_token": value}))

    def delete_token(self, name: str, token: str) -> requests.Response:
        return self.request("POST", self.object_url(name) + query_string({"delete_token": token}))


def multipart_boundary() -> str:
    """requests.ts genBoundary: two Math.random() digit strings."""
    return "".join(str(random.random())[2:] for _ in range(2))


def multipart_body(boundary: str, metadata_json: str, content_type: str, data: bytes) -> bytes:
    return (
        f"--{boundary}\r\nContent-Type: application/json; charset=utf-8\r\n\r\n{metadata_json}\r\n"
        f"--{boundary}\r\nContent-Type: {content_type}\r\n\r\n"
    ).encode() + data + f"\r\n--{boundary}--".encode()


@pytest.fixture
def v0(storage_target, bucket) -> FirebaseStorage:
    """A signed-in web client (uid "alice") on a fresh bucket."""
    return FirebaseStorage(storage_target, bucket, user_token(storage_target, "alice"))


# --------------------------------------------------------------------------------------------
# The GCS JSON API, raw


class GcsJson:
    """Raw calls on the GCS JSON API the emulator serves at `/`, `/storage/v1`, `/upload/storage/v1` and
    `/download/storage/v1` (admin: no Authorization header needed, none sent)."""

    def __init__(self, target: StorageTarget):
        self.target = target

    def url(self, path: str, params: dict | None = None) -> str:
        return self.target.url + path + (("?" + urllib.parse.urlencode(params, quote_via=urllib.parse.quote))
                                         if params else "")

    def object_path(self, bucket: str, name: str, prefix: str = "/storage/v1") -> str:
        return f"{prefix}/b/{encode_component(bucket)}/o/{encode_component(name)}"

    def request(self, method: str, path: str, *, params: dict | None = None, headers: dict | None = None,
                data: bytes | str | None = None, json_body: Any = None, stream: bool = False) -> requests.Response:
        headers = dict(headers or {})
        if json_body is not None:
            data = json.dumps(json_body).encode()
            headers.setdefault("Content-Type", "application/json")
        return send(method, self.url(path, params), headers=headers, data=data, stream=stream)

    def media_upload(self, bucket: str, name: str, data: bytes, content_type: str | None = None) -> requests.Response:
        headers = {"Content-Type": content_type} if content_type else {}
        return self.request("POST", f"/upload/storage/v1/b/{encode_component(bucket)}/o",
                            params={"uploadType": "media", "name": name}, headers=headers, data=data)

    def get(self, bucket: str, name: str, prefix: str = "/storage/v1", **params) -> requests.Response:
        return self.request("GET", self.object_path(bucket, name, prefix), params=params or None)


def gcs_not_found(response: requests.Response, bucket: str, name: str) -> None:
    """The JSON API's object 404: `{"error":{"code":404,"message":"No such object: b/o","errors":[{…notFound}]}}`
    (production, quoted in firebase-tools PR #3647 and gcloud.ts sendObjectNotFound)."""
    message = f"No such object: {bucket}/{name}"
    assert response.status_code == 404, f"expected 404, got {response.status_code}: {response.text[:500]}"
    assert response.headers.get("Content-Type", "").startswith("application/json"), response.headers
    assert response.json() == {
        "error": {"code": 404, "message": message,
                  "errors": [{"message": message, "domain": "global", "reason": "notFound"}]}
    }, response.text


# --------------------------------------------------------------------------------------------
# Firebase v0 errors

NO_READ = "Permission denied. No READ permission."
NO_WRITE = "Permission denied. No WRITE permission."
NO_LIST = "Permission denied. No LIST permission."
MISSING_ADMIN = "Missing admin credentials."
PREFIX_ERROR = "The prefix parameter is required to be empty or ends with a single / character."


def firebase_error(response: requests.Response, code: int, message: str) -> None:
    """A v0 error: exactly `{"error":{"code":<code>,"message":<message>}}` as JSON (apis/firebase.ts)."""
    assert response.status_code == code, (
        f"expected {code} {message!r}, got {response.status_code}: {response.text[:1000]}"
    )
    assert response.headers.get("Content-Type", "").startswith("application/json"), response.headers
    assert response.json() == {"error": {"code": code, "message": message}}, response.text


def denied(response: requests.Response, message: str = NO_WRITE) -> None:
    firebase_error(response, 403, message)


def upload_refused(response: requests.Response, message: str = NO_WRITE) -> None:
    """An upload the rules refuse. Production judges a resumable upload's `create` when it is finalized (the
    official tests "should return 403 when resumable upload is unauthenticated…" see the start answer 200), and
    then the finalizing request answers 403 with `X-Goog-Upload-Status: final`, which the SDKs read; a refusal
    of the start request itself (403) is accepted too, as production's behaviour there is not documented."""
    denied(response, message)
    command = response.request.headers.get("X-Goog-Upload-Command", "")
    if command and command not in ("start", "query", "cancel"):
        assert response.headers.get("X-Goog-Upload-Status") == "final", dict(response.headers)


def not_found(response: requests.Response) -> None:
    """A v0 404 for a missing object. Production answers `{"error":{"code":404,"message":"Not Found."}}`
    (Android SDK logs of production responses, e.g. firebase/flutterfire#10843); the official emulator
    answers a bare `Not Found` text, which no SDK reads (they map the status to object-not-found)."""
    firebase_error(response, 404, "Not Found.")


def metadata_of(response: requests.Response) -> dict:
    assert response.status_code == 200, f"{response.request.method} {response.request.url}: {response.status_code} {response.text[:1000]}"
    assert response.headers.get("Content-Type", "").startswith("application/json"), response.headers
    return response.json()


def check_crc32c(value: Any, data: bytes) -> None:
    """v0 metadata's crc32c: SDKs treat it as opaque. The official emulator sends the decimal CRC32C,
    production GCS the base64 of its 4 big-endian bytes; either is accepted, nothing else."""
    assert value in (str(crc32c_of(data)), crc32c_b64(data)), (value, crc32c_of(data), crc32c_b64(data))


def check_firebase_metadata(md: dict, *, bucket: str, name: str, data: bytes,
                            content_type: str = "application/octet-stream", metageneration: str = "1",
                            custom: dict | None = None, content_encoding: str = "identity") -> None:
    """The v0 metadata resource of an object uploaded through v0 (OutgoingFirebaseMetadata; production keys
    per the official conformance test "should set default metadata"): strings for size, generation and
    metageneration, timestamps with milliseconds, md5Hash base64, contentEncoding "identity" when unset,
    downloadTokens a comma-joined list of UUIDs."""
    assert md["name"] == name, md
    assert md["bucket"] == bucket, md
    assert isinstance(md["generation"], str) and DIGITS.match(md["generation"]), md
    assert md["metageneration"] == metageneration, md
    assert md["contentType"] == content_type, md
    assert TIMESTAMP.match(md["timeCreated"]), md
    assert TIMESTAMP.match(md["updated"]), md
    assert md["storageClass"] == "STANDARD", md
    assert md["size"] == str(len(data)), md
    assert md["md5Hash"] == md5_b64(data), md
    assert md["contentEncoding"] == content_encoding, md
    # Production sets it (the official test's key list has it) and the emulator defaults it to "inline";
    # production may append a filename (`inline; filename*=…`), so only the disposition type is fixed.
    assert isinstance(md["contentDisposition"], str) and md["contentDisposition"].startswith("inline"), md
    check_crc32c(md["crc32c"], data)
    assert isinstance(md["etag"], str) and md["etag"], md
    assert isinstance(md["downloadTokens"], str), md
    assert all(UUID.match(t) for t in md["downloadTokens"].split(",")), md
    if custom is None:
        assert "metadata" not in md or md["metadata"] in ({}, None), md
    else:
        assert md["metadata"] == custom, md
