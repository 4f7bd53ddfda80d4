"""The GCS JSON API subset the Storage emulator serves (admin, no rules), through google-cloud-storage 3.17.1
in emulator mode (STORAGE_EMULATOR_HOST=http://host:port: anonymous credentials, every call to that
endpoint) and raw requests where the library hides the wire.

What each group encodes, and where it comes from:
- Objects: insert by media, multipart and resumable upload, including the chunked resumable protocol
  google-resumable-media speaks with a small chunk_size (`PUT` with `Content-Range: bytes a-b/*` answered
  by 308 + `Range: bytes=0-b`, the last chunk `bytes a-b/total` answered 200 with the object resource; an
  empty `PUT` with `Content-Range: bytes */*` asks for the status): the GCS JSON API reference, "Perform
  resumable uploads" guide. The object resource (`kind` storage#object, `id` bucket/name/generation,
  selfLink, mediaLink on this host with `alt=media`, string sizes and generations, base64 md5Hash and
  crc32c): the JSON API reference and the official conformance test "should set default metadata" (runs on
  production). get (metadata and `alt=media`) under `/`, `/storage/v1` and `/download/storage/v1`; patch
  (metadata merged, null deletes); delete (204); list with prefix, delimiter and pagination; copy, rewrite
  (`storage#rewriteResponse`), compose.
- Buckets: insert, get, list (the JSON API reference); a bucket used before it was created exists, as in the
  official emulator (the Firebase default bucket is never created by apps).
- Errors: 404 `{"error":{"code":404,"message":"No such object: b/o","errors":[{…"reason":"notFound"}]}}`, and
  the bare text for `alt=media` (production responses quoted in firebase-tools PR #3647).
- V4 signed URLs (XML-API style `/{bucket}/{object}?X-Goog-Signature=…`) for GET and PUT, signed locally with
  a generated service-account key; the emulator does not check the signature against Google.
- Uploads are not capped at the official emulator's 130 MB.
- The GCS and Firebase APIs share one store: download tokens appear as `metadata.firebaseStorageDownloadTokens`
  and setting that key adds tokens (firebase-tools metadata.ts).
"""

from __future__ import annotations

import datetime
import hashlib
import io
import json
import urllib.parse
from collections.abc import Mapping

import pytest
import requests
from google.api_core import exceptions
from google.cloud import storage

from storage_support import (
    DIGITS,
    KIB,
    MIB,
    SIGNED_IN_RULES,
    TIMESTAMP,
    UUID,
    FirebaseStorage,
    GcsJson,
    bucket,  # noqa: F401 (fixture)
    crc32c_b64,
    encode_component,
    gcs_not_found,
    load_rules,
    md5_b64,
    metadata_of,
    new_bucket,
    random_bytes,
    send,
    storage_host,  # noqa: F401 (fixture)
    storage_target,  # noqa: F401 (fixture)
    user_token,
)

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def client(storage_target, monkeypatch) -> storage.Client:
    """google-cloud-storage in emulator mode, exactly as the docs tell emulator users to set it up."""
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", storage_target.url)
    monkeypatch.delenv("API_ENDPOINT_OVERRIDE", raising=False)
    gcs = storage.Client(project=storage_target.project)
    assert gcs.api_endpoint == storage_target.url
    yield gcs
    gcs.close()


@pytest.fixture
def gcs_bucket(client, bucket) -> storage.Bucket:
    """A fresh bucket, created through the API as a GCS app would."""
    return client.create_bucket(bucket)


@pytest.fixture
def raw(storage_target) -> GcsJson:
    return GcsJson(storage_target)


class Recorder:
    """Records the library's HTTP exchanges (method, URL, request headers, status, response headers)."""

    def __init__(self, gcs: storage.Client):
        self.exchanges: list[tuple[str, str, Mapping[str, str], int, Mapping[str, str]]] = []
        gcs._http.hooks["response"].append(self._record)

    def _record(self, response: requests.Response, *args, **kwargs):
        request = response.request
        self.exchanges.append((request.method, request.url, request.headers, response.status_code,
                               response.headers))


# --------------------------------------------------------------------------------------------
# Objects: upload and download


def test_upload_from_string_and_download(gcs_bucket):
    data = random_bytes(5000)
    blob = gcs_bucket.blob("notes/a.txt")
    blob.upload_from_string(data, content_type="text/plain")
    assert (blob.size, blob.md5_hash, blob.crc32c, blob.content_type) == (
        len(data), md5_b64(data), crc32c_b64(data), "text/plain")
    assert blob.generation > 0 and blob.metageneration == 1
    fetched = gcs_bucket.get_blob("notes/a.txt")
    assert (fetched.size, fetched.md5_hash, fetched.generation) == (len(data), md5_b64(data), blob.generation)
    assert fetched.download_as_bytes() == data  # the library checks x-goog-hash's crc32c


def test_upload_from_filename_and_download_to_filename(gcs_bucket, tmp_path):
    source = tmp_path / "report.pdf"
    source.write_bytes(b"%PDF-1.7\n" + random_bytes(20000))
    blob = gcs_bucket.blob("reports/report.pdf")
    blob.upload_from_filename(str(source))
    assert blob.content_type == "application/pdf"  # guessed from the file name by the library
    target = tmp_path / "copy.pdf"
    gcs_bucket.blob("reports/report.pdf").download_to_filename(str(target))
    assert target.read_bytes() == source.read_bytes()


def test_upload_from_file_object(gcs_bucket, tmp_path):
    source = tmp_path / "data.bin"
    source.write_bytes(random_bytes(70000))
    with source.open("rb") as stream:
        gcs_bucket.blob("data.bin").upload_from_file(stream, content_type="application/octet-stream")
    assert gcs_bucket.blob("data.bin").download_as_bytes() == source.read_bytes()


def test_resumable_upload_with_a_small_chunk_size_speaks_308(client, gcs_bucket):
    """A stream of unknown size with chunk_size 256 KiB: the library starts a session (POST
    uploadType=resumable -> 200 + Location), sends PUTs with `Content-Range: bytes a-b/*` and expects 308 +
    `Range: bytes=0-b` until the last chunk (`bytes a-b/<total>`) answers 200 with the object."""
    data = random_bytes(4 * 256 * KIB + 123)
    recorder = Recorder(client)
    blob = gcs_bucket.blob("big/chunked.bin", chunk_size=256 * KIB)
    blob.upload_from_file(io.BytesIO(data), content_type="application/zip")
    posts = [e for e in recorder.exchanges if e[0] == "POST"]
    puts = [e for e in recorder.exchanges if e[0] == "PUT"]
    assert len(posts) == 1 and "uploadType=resumable" in posts[0][1] and posts[0][3] == 200, posts
    location = posts[0][4]["Location"]
    assert location.startswith(client.api_endpoint + "/upload/storage/v1/b/"), location
    assert [e[3] for e in puts] == [308, 308, 308, 308, 200], [(e[2].get("Content-Range"), e[3]) for e in puts]
    for index, (_, url, headers, status, response_headers) in enumerate(puts[:-1]):
        start, end = index * 256 * KIB, (index + 1) * 256 * KIB - 1
        assert headers["Content-Range"] in (f"bytes {start}-{end}/*", f"bytes {start}-{end}/{len(data)}"), headers
        assert response_headers["Range"] == f"bytes=0-{end}"
    assert puts[-1][2]["Content-Range"] == f"bytes {4 * 256 * KIB}-{len(data) - 1}/{len(data)}"
    assert (blob.size, blob.md5_hash, blob.content_type) == (len(data), md5_b64(data), "application/zip")
    assert gcs_bucket.blob("big/chunked.bin").download_as_bytes() == data


def test_default_resumable_upload_above_8_mib(gcs_bucket):
    """Above 8 MiB the library always uses a resumable session (one PUT with the default 100 MiB chunk)."""
    data = random_bytes(9 * MIB)
    blob = gcs_bucket.blob("big/nine.bin")
    blob.upload_from_string(data)
    assert blob.size == len(data)
    assert gcs_bucket.blob("big/nine.bin").download_as_bytes() == data


def test_download_a_range(gcs_bucket):
    data = random_bytes(10000)
    gcs_bucket.blob("r.bin").upload_from_string(data)
    assert gcs_bucket.blob("r.bin").download_as_bytes(start=100, end=199) == data[100:200]
    assert gcs_bucket.blob("r.bin").download_as_bytes(start=9990) == data[9990:]


def test_uploads_are_not_capped_at_130_mb(raw, bucket, client):
    """The official emulator refuses bodies over 130 MB; GCS takes objects of terabytes."""
    client.create_bucket(bucket)
    data = random_bytes(131 * MIB + 7)
    response = raw.media_upload(bucket, "huge.bin", data, "application/octet-stream")
    assert response.status_code == 200, response.text[:500]
    resource = response.json()
    assert (resource["size"], resource["md5Hash"]) == (str(len(data)), md5_b64(data))
    download = raw.get(bucket, "huge.bin", alt="media")
    assert download.status_code == 200
    assert hashlib.md5(download.content).digest() == hashlib.md5(data).digest()


# --------------------------------------------------------------------------------------------
# Objects: the resource and where it is served


def test_object_resource(raw, gcs_bucket, storage_target):
    name = "dir/some file#1.txt"
    data = b"hello world"
    gcs_bucket.blob(name).upload_from_string(data, content_type="text/plain")
    response = raw.get(gcs_bucket.name, name)
    assert response.status_code == 200
    resource = response.json()
    assert resource["kind"] == "storage#object"
    assert (resource["name"], resource["bucket"]) == (name, gcs_bucket.name)
    assert DIGITS.match(resource["generation"]) and resource["metageneration"] == "1"
    assert resource["id"] == f"{gcs_bucket.name}/{name}/{resource['generation']}"
    encoded = encode_component(name)
    assert resource["selfLink"].endswith(f"/storage/v1/b/{gcs_bucket.name}/o/{encoded}"), resource["selfLink"]
    media = urllib.parse.urlsplit(resource["mediaLink"])
    assert f"{media.scheme}://{media.netloc}" == storage_target.url, resource["mediaLink"]
    assert media.path == f"/download/storage/v1/b/{gcs_bucket.name}/o/{encoded}", resource["mediaLink"]
    query = urllib.parse.parse_qs(media.query)
    assert query["alt"] == ["media"] and query["generation"] == [resource["generation"]], resource["mediaLink"]
    assert (resource["size"], resource["md5Hash"], resource["crc32c"], resource["contentType"]) == (
        "11", md5_b64(data), crc32c_b64(data), "text/plain")
    assert resource["storageClass"] == "STANDARD"
    assert isinstance(resource["etag"], str) and resource["etag"]
    for key in ("timeCreated", "updated", "timeStorageClassUpdated"):
        assert TIMESTAMP.match(resource[key]), resource
    assert send("GET", resource["mediaLink"]).content == data


@pytest.mark.parametrize("prefix", ["", "/storage/v1", "/download/storage/v1"])
def test_get_under_every_prefix(raw, gcs_bucket, prefix):
    """Metadata under `/` and `/storage/v1` (the official emulator also answers it under
    `/download/storage/v1`; what production does there without `alt=media` was not found, so only the
    media download is checked under that prefix)."""
    data = random_bytes(300)
    gcs_bucket.blob("p/q.bin").upload_from_string(data, content_type="application/octet-stream")
    if prefix != "/download/storage/v1":
        resource = raw.get(gcs_bucket.name, "p/q.bin", prefix=prefix)
        assert resource.status_code == 200 and resource.json()["md5Hash"] == md5_b64(data)
    media = raw.get(gcs_bucket.name, "p/q.bin", prefix=prefix, alt="media")
    assert media.status_code == 200 and media.content == data
    assert media.headers["Content-Type"] == "application/octet-stream"
    # Official test "should set default response headers on object download" (production).
    assert media.headers["Content-Disposition"] == "attachment; filename*=q.bin"


def test_missing_object_errors(raw, gcs_bucket):
    gcs_not_found(raw.get(gcs_bucket.name, "no/such.txt"), gcs_bucket.name, "no/such.txt")
    media = raw.get(gcs_bucket.name, "no/such.txt", alt="media")
    assert media.status_code == 404
    assert media.text == f"No such object: {gcs_bucket.name}/no/such.txt"
    gcs_not_found(raw.request("DELETE", raw.object_path(gcs_bucket.name, "no/such.txt")), gcs_bucket.name, "no/such.txt")
    gcs_not_found(raw.request("PATCH", raw.object_path(gcs_bucket.name, "no/such.txt"), json_body={"contentType": "a/b"}),
                  gcs_bucket.name, "no/such.txt")
    with pytest.raises(exceptions.NotFound):
        gcs_bucket.blob("no/such.txt").download_as_bytes()
    assert gcs_bucket.get_blob("no/such.txt") is None


# --------------------------------------------------------------------------------------------
# Objects: raw uploads


def test_raw_chunked_resumable_upload(raw, gcs_bucket, storage_target):
    """The resumable protocol on the wire: session (200 + Location), status check with nothing received (308,
    no Range), a chunk (308 + Range), a status check (same Range), the last chunk (200 + resource), and a
    status check of the finished upload (200 + resource)."""
    data = random_bytes(300001)
    start = raw.request("POST", f"/upload/storage/v1/b/{gcs_bucket.name}/o",
                        params={"uploadType": "resumable", "name": "raw/resumable.pdf"},
                        headers={"X-Upload-Content-Type": "application/pdf", "X-Upload-Content-Length": str(len(data))},
                        json_body={"metadata": {"k": "v"}, "cacheControl": "no-cache"})
    assert start.status_code == 200, start.text
    session = start.headers["Location"]
    parsed = urllib.parse.urlsplit(session)
    assert f"{parsed.scheme}://{parsed.netloc}" == storage_target.url, session
    assert parsed.path == f"/upload/storage/v1/b/{gcs_bucket.name}/o", session
    assert urllib.parse.parse_qs(parsed.query)["upload_id"][0]

    status = send("PUT", session, headers={"Content-Range": "bytes */*"})
    assert status.status_code == 308, status.text
    assert "Range" not in status.headers

    chunk = send("PUT", session, headers={"Content-Range": "bytes 0-262143/*"}, data=data[:262144])
    assert chunk.status_code == 308, chunk.text
    assert chunk.headers["Range"] == "bytes=0-262143"

    status = send("PUT", session, headers={"Content-Range": f"bytes */{len(data)}"})
    assert status.status_code == 308 and status.headers["Range"] == "bytes=0-262143"

    final = send("PUT", session, headers={"Content-Range": f"bytes 262144-{len(data) - 1}/{len(data)}"},
                 data=data[262144:])
    assert final.status_code == 200, final.text
    resource = final.json()
    assert (resource["kind"], resource["name"], resource["size"], resource["md5Hash"]) == (
        "storage#object", "raw/resumable.pdf", str(len(data)), md5_b64(data))
    assert (resource["contentType"], resource["cacheControl"], resource["metadata"]) == (
        "application/pdf", "no-cache", {"k": "v"})

    done = send("PUT", session, headers={"Content-Range": f"bytes */{len(data)}"})
    assert done.status_code in (200, 201) and done.json()["md5Hash"] == md5_b64(data)
    assert raw.get(gcs_bucket.name, "raw/resumable.pdf", alt="media").content == data


def test_raw_resumable_upload_in_one_put(raw, gcs_bucket):
    """What the Admin SDKs and the official emulator's tests do: the whole body in one PUT, no Content-Range.
    Official test "should upload content type properly from x-upload-content-type headers" (production)."""
    start = raw.request("POST", f"/upload/storage/v1/b/{gcs_bucket.name}/o",
                        params={"uploadType": "resumable", "name": "one.png"},
                        headers={"X-Upload-Content-Type": "image/png"})
    assert start.status_code == 200, start.text
    final = send("PUT", start.headers["Location"], data=b"\x89PNG....")
    assert final.status_code == 200, final.text
    assert (final.json()["contentType"], final.json()["size"]) == ("image/png", "8")


def test_raw_resumable_name_from_metadata(raw, gcs_bucket):
    """Official test "should handle resumable upload with name only in metadata" (production)."""
    start = raw.request("POST", f"/upload/storage/v1/b/{gcs_bucket.name}/o", params={"uploadType": "resumable"},
                        json_body={"name": "named/in-body.txt", "contentType": "text/plain"})
    assert start.status_code == 200, start.text
    final = send("PUT", start.headers["Location"], data=b"body")
    assert final.status_code == 200 and final.json()["name"] == "named/in-body.txt"


def test_cancelled_resumable_upload_leaves_no_object(raw, gcs_bucket):
    """GCS "Perform resumable uploads", cancel an upload: DELETE on the session URI answers 499; the session
    then takes no more data (a 4xx) and the object never exists."""
    start = raw.request("POST", f"/upload/storage/v1/b/{gcs_bucket.name}/o",
                        params={"uploadType": "resumable", "name": "cancelled.bin"})
    session = start.headers["Location"]
    assert send("PUT", session, headers={"Content-Range": "bytes 0-262143/*"}, data=random_bytes(262144)).status_code == 308
    cancel = send("DELETE", session)
    assert cancel.status_code == 499, cancel.text
    after = send("PUT", session, headers={"Content-Range": "bytes 262144-262150/262151"}, data=b"1234567")
    assert 400 <= after.status_code < 500, after.text
    gcs_not_found(raw.get(gcs_bucket.name, "cancelled.bin"), gcs_bucket.name, "cancelled.bin")


def test_resumable_chunk_with_a_gap_is_refused(raw, gcs_bucket):
    """A chunk that starts past the bytes persisted cannot be appended. Production's exact answer was not
    found: a 4xx, or a 308 whose Range still shows only the persisted bytes (so the client resends from
    there), are both accepted; the persisted range must not move and the upload must still complete with the
    right bytes."""
    data = random_bytes(2 * 262144 + 10)
    start = raw.request("POST", f"/upload/storage/v1/b/{gcs_bucket.name}/o",
                        params={"uploadType": "resumable", "name": "gap.bin"})
    session = start.headers["Location"]
    assert send("PUT", session, headers={"Content-Range": "bytes 0-262143/*"}, data=data[:262144]).status_code == 308
    gap = send("PUT", session, headers={"Content-Range": f"bytes 524288-{len(data) - 1}/{len(data)}"},
               data=data[524288:])
    assert 400 <= gap.status_code < 500 or (gap.status_code == 308 and gap.headers["Range"] == "bytes=0-262143"), (
        gap.status_code, dict(gap.headers), gap.text)
    status = send("PUT", session, headers={"Content-Range": "bytes */*"})
    assert status.status_code == 308 and status.headers["Range"] == "bytes=0-262143"
    final = send("PUT", session, headers={"Content-Range": f"bytes 262144-{len(data) - 1}/{len(data)}"},
                 data=data[262144:])
    assert final.status_code == 200, final.text
    assert raw.get(gcs_bucket.name, "gap.bin", alt="media").content == data


def test_raw_multipart_upload(raw, gcs_bucket):
    """Official tests "should handle multipart upload with name only in metadata" and "should respect
    X-Goog-Upload-Protocol header" (production); the body as google-cloud-storage builds it (quoted
    boundary)."""
    boundary = "===============7330845974216740156=="
    metadata = {"name": "mp/file.txt", "contentType": "text/plain", "metadata": {"a": "b"}}
    body = (f"--{boundary}\r\ncontent-type: application/json; charset=UTF-8\r\n\r\n{json.dumps(metadata)}\r\n"
            f"--{boundary}\r\ncontent-type: text/plain\r\n\r\nhello multipart\r\n--{boundary}--\r\n").encode()
    headers = {"Content-Type": f'multipart/related; boundary="{boundary}"'}
    response = raw.request("POST", f"/upload/storage/v1/b/{gcs_bucket.name}/o", params={"uploadType": "multipart"},
                           headers=headers, data=body)
    assert response.status_code == 200, response.text
    resource = response.json()
    assert (resource["name"], resource["contentType"], resource["metadata"], resource["size"]) == (
        "mp/file.txt", "text/plain", {"a": "b"}, "15")
    by_header = raw.request("POST", f"/upload/storage/v1/b/{gcs_bucket.name}/o",
                            headers={**headers, "X-Goog-Upload-Protocol": "multipart"},
                            data=body.replace(b"mp/file.txt", b"mp/other.txt"))
    assert by_header.status_code == 200 and by_header.json()["name"] == "mp/other.txt"
    assert raw.get(gcs_bucket.name, "mp/file.txt", alt="media").content == b"hello multipart"


def test_raw_media_upload_defaults(raw, gcs_bucket):
    """Official test "should set default metadata" (production): media upload without a content type."""
    response = raw.media_upload(gcs_bucket.name, "plain", b"hello world")
    assert response.status_code == 200
    resource = response.json()
    assert (resource["size"], resource["metageneration"], resource["contentType"]) == (
        "11", "1", "application/octet-stream")


@pytest.mark.parametrize("case", ["truncated", "no boundary", "not json", "one part"])
def test_broken_multipart_uploads_are_400_and_store_nothing(raw, gcs_bucket, case):
    boundary = "xyz"
    meta = json.dumps({"name": "broken.txt"})
    good = (f"--{boundary}\r\nContent-Type: application/json\r\n\r\n{meta}\r\n"
            f"--{boundary}\r\nContent-Type: text/plain\r\n\r\ndata\r\n--{boundary}--").encode()
    content_type = f"multipart/related; boundary={boundary}"
    body = {
        "truncated": good[:-12],
        "no boundary": good,
        "not json": good.replace(meta.encode(), b"{oops"),
        "one part": f"--{boundary}\r\nContent-Type: application/json\r\n\r\n{meta}\r\n--{boundary}--".encode(),
    }[case]
    if case == "no boundary":
        content_type = "multipart/related"
    response = raw.request("POST", f"/upload/storage/v1/b/{gcs_bucket.name}/o", params={"uploadType": "multipart"},
                           headers={"Content-Type": content_type}, data=body)
    assert response.status_code == 400, response.text
    gcs_not_found(raw.get(gcs_bucket.name, "broken.txt"), gcs_bucket.name, "broken.txt")


def test_upload_without_a_name_is_400(raw, gcs_bucket):
    response = raw.request("POST", f"/upload/storage/v1/b/{gcs_bucket.name}/o", params={"uploadType": "media"},
                           data=b"abc")
    assert response.status_code == 400, response.text


@pytest.mark.parametrize("name", [".", "..", "a\nb", "a\rb"])
def test_invalid_object_names_are_400(raw, gcs_bucket, name):
    """GCS object naming (cloud.google.com/storage/docs/objects#naming): not "." or "..", no CR or LF. The exact
    messages were not found; the status is certain."""
    response = raw.media_upload(gcs_bucket.name, name, b"abc")
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == 400
    assert list(gcs_bucket.client.list_blobs(gcs_bucket)) == []


def test_object_name_over_1024_bytes_is_400(raw, gcs_bucket):
    """Names are at most 1024 bytes of UTF-8. Production's message for an ASCII name (seen in
    hashicorp/vault#18248): "The maximum object length is 1024 characters, but got a name with <n>
    characters: '<name, shortened>'"."""
    response = raw.media_upload(gcs_bucket.name, "x" * 1025, b"abc")
    assert response.status_code == 400, response.text
    message = response.json()["error"]["message"]
    assert message.startswith("The maximum object length is 1024 characters, but got a name with 1025 characters"), message
    assert raw.media_upload(gcs_bucket.name, "é" * 513, b"abc").status_code == 400  # 513 characters, 1026 bytes
    assert raw.media_upload(gcs_bucket.name, "x" * 1024, b"abc").status_code == 200
    assert raw.media_upload(gcs_bucket.name, "é" * 512, b"abc").status_code == 200  # exactly 1024 bytes


# --------------------------------------------------------------------------------------------
# Objects: metadata, delete, list


def test_patch_metadata(gcs_bucket):
    blob = gcs_bucket.blob("meta.txt")
    blob.upload_from_string(b"abc", content_type="text/plain")
    blob.metadata = {"color": "blue", "size": "L"}
    blob.cache_control = "public, max-age=60"
    blob.content_language = "en"
    blob.content_disposition = "attachment; filename=meta.txt"
    blob.patch()
    assert blob.metageneration == 2
    fetched = gcs_bucket.get_blob("meta.txt")
    assert (fetched.metadata, fetched.cache_control, fetched.content_language, fetched.content_disposition) == (
        {"color": "blue", "size": "L"}, "public, max-age=60", "en", "attachment; filename=meta.txt")
    fetched.metadata = {"size": None, "shape": "round"}  # merged; None removes a key
    fetched.patch()
    assert gcs_bucket.get_blob("meta.txt").metadata == {"color": "blue", "shape": "round"}
    assert gcs_bucket.blob("meta.txt").download_as_bytes() == b"abc"


def test_delete(raw, gcs_bucket):
    blob = gcs_bucket.blob("gone.txt")
    blob.upload_from_string(b"abc")
    assert blob.exists()
    blob.delete()
    assert not blob.exists()
    with pytest.raises(exceptions.NotFound):
        blob.delete()
    gcs_bucket.blob("gone2.txt").upload_from_string(b"abc")
    response = raw.request("DELETE", raw.object_path(gcs_bucket.name, "gone2.txt"))
    assert response.status_code == 204 and response.content == b""


def test_list_with_prefix_and_delimiter(client, gcs_bucket):
    for name in ["a/1", "a/2", "a/b/1", "a/b/c/2", "b/1", "top"]:
        gcs_bucket.blob(name).upload_from_string(name.encode())
    iterator = client.list_blobs(gcs_bucket, prefix="a/", delimiter="/")
    assert [blob.name for blob in iterator] == ["a/1", "a/2"]
    assert iterator.prefixes == {"a/b/"}
    iterator = client.list_blobs(gcs_bucket, delimiter="/")
    assert [blob.name for blob in iterator] == ["top"]
    assert iterator.prefixes == {"a/", "b/"}
    assert [blob.name for blob in client.list_blobs(gcs_bucket)] == ["a/1", "a/2", "a/b/1", "a/b/c/2", "b/1", "top"]
    assert [blob.name for blob in client.list_blobs(gcs_bucket, prefix="a/b/")] == ["a/b/1", "a/b/c/2"]
    listed = next(iter(client.list_blobs(gcs_bucket, prefix="top")))
    assert (listed.size, listed.md5_hash) == (3, md5_b64(b"top"))


def test_list_pagination(client, gcs_bucket):
    names = [f"page/{i:02d}" for i in range(7)]
    for name in names:
        gcs_bucket.blob(name).upload_from_string(b"x")
    pages = list(client.list_blobs(gcs_bucket, prefix="page/", page_size=3).pages)
    assert [[blob.name for blob in page] for page in pages] == [names[0:3], names[3:6], names[6:7]]
    limited = list(client.list_blobs(gcs_bucket, prefix="page/", max_results=4))
    assert [blob.name for blob in limited] == names[:4]


def test_raw_list_shape(raw, gcs_bucket):
    """`storage#objects` with `items` (full object resources), `prefixes` and `nextPageToken`; maxResults bounds
    the combined number of items and prefixes in a page, which come in name order (JSON API reference,
    objects.list: "Maximum combined number of entries in items[] and prefixes[]")."""
    for name in ["x/1", "x/2", "x/y/3"]:
        gcs_bucket.blob(name).upload_from_string(b"x")
    for prefix in ("", "/storage/v1"):
        pages, token = [], None
        while True:
            params = {"prefix": "x/", "delimiter": "/", "maxResults": "1"}
            if token:
                params["pageToken"] = token
            response = raw.request("GET", f"{prefix}/b/{gcs_bucket.name}/o", params=params)
            assert response.status_code == 200, response.text
            body = response.json()
            assert body["kind"] == "storage#objects"
            assert all(item["kind"] == "storage#object" for item in body.get("items", []))
            pages.append(([item["name"] for item in body.get("items", [])], body.get("prefixes", [])))
            token = body.get("nextPageToken")
            assert len(pages) <= 3, pages
            if not token:
                break
        assert all(len(items) + len(prefixes) <= 1 for items, prefixes in pages), pages
        assert [name for items, _ in pages for name in items] == ["x/1", "x/2"], pages
        assert [p for _, prefixes in pages for p in prefixes] == ["x/y/"], pages
        whole = raw.request("GET", f"{prefix}/b/{gcs_bucket.name}/o", params={"prefix": "x/", "delimiter": "/"}).json()
        assert ([item["name"] for item in whole["items"]], whole["prefixes"]) == (["x/1", "x/2"], ["x/y/"])
        assert "nextPageToken" not in whole
    empty = raw.request("GET", f"/storage/v1/b/{gcs_bucket.name}/o", params={"prefix": "nothing/"}).json()
    assert empty["kind"] == "storage#objects" and empty.get("items", []) == []


# --------------------------------------------------------------------------------------------
# Objects: copy, rewrite, compose


def test_copy(client, gcs_bucket):
    source = gcs_bucket.blob("src/a.txt")
    source.metadata = {"k": "v"}
    source.upload_from_string(b"copy me", content_type="text/plain")
    other = client.create_bucket(new_bucket())
    copied = gcs_bucket.copy_blob(source, other, "dst/b.txt")
    assert (copied.name, copied.bucket.name, copied.size, copied.content_type) == ("dst/b.txt", other.name, 7, "text/plain")
    assert other.get_blob("dst/b.txt").metadata == {"k": "v"}
    assert other.blob("dst/b.txt").download_as_bytes() == b"copy me"
    assert source.download_as_bytes() == b"copy me"
    same_bucket = gcs_bucket.copy_blob(source, gcs_bucket, "src/copy.txt")
    assert same_bucket.download_as_bytes() == b"copy me"


def test_rewrite(raw, gcs_bucket):
    data = random_bytes(50000)
    source = gcs_bucket.blob("rw/src.bin")
    source.upload_from_string(data, content_type="application/x-thing")
    destination = gcs_bucket.blob("rw/dst.bin")
    token, rewritten, total = destination.rewrite(source)
    assert (token, rewritten, total) == (None, len(data), len(data))
    assert destination.download_as_bytes() == data
    response = raw.request("POST", f"/storage/v1/b/{gcs_bucket.name}/o/{encode_component('rw/src.bin')}"
                                   f"/rewriteTo/b/{gcs_bucket.name}/o/{encode_component('rw/raw.bin')}", json_body={})
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["kind"], body["done"], body["totalBytesRewritten"], body["objectSize"]) == (
        "storage#rewriteResponse", True, str(len(data)), str(len(data)))
    assert (body["resource"]["kind"], body["resource"]["name"], body["resource"]["contentType"]) == (
        "storage#object", "rw/raw.bin", "application/x-thing")


def test_compose(gcs_bucket):
    parts = [b"first,", b"second,", b"third"]
    blobs = []
    for index, part in enumerate(parts):
        blob = gcs_bucket.blob(f"parts/{index}")
        blob.upload_from_string(part)
        blobs.append(blob)
    composed = gcs_bucket.blob("composed.txt")
    composed.content_type = "text/plain"
    composed.compose(blobs)
    assert composed.download_as_bytes() == b"".join(parts)
    fetched = gcs_bucket.get_blob("composed.txt")
    assert (fetched.size, fetched.content_type, fetched.component_count) == (len(b"".join(parts)), "text/plain", 3)


# --------------------------------------------------------------------------------------------
# Buckets


def test_buckets_insert_get_list(client, raw, bucket):
    created = client.create_bucket(bucket)
    assert created.name == bucket
    fetched = client.get_bucket(bucket)
    assert fetched.name == bucket
    assert bucket in [b.name for b in client.list_buckets()]
    resource = raw.request("GET", f"/storage/v1/b/{bucket}").json()
    assert (resource["kind"], resource["name"], resource["id"]) == ("storage#bucket", bucket, bucket)
    listing = raw.request("GET", "/storage/v1/b", params={"project": client.project}).json()
    assert listing["kind"] == "storage#buckets"
    assert bucket in [item["name"] for item in listing["items"]]


def test_unknown_bucket_is_404(client):
    with pytest.raises(exceptions.NotFound):
        client.get_bucket(new_bucket())


def test_a_bucket_exists_on_first_use(client, raw, bucket):
    """Emulator behaviour (the official emulator creates any bucket a request names): apps write to their
    Firebase default bucket without ever creating it."""
    assert raw.media_upload(bucket, "first.txt", b"first").status_code == 200
    assert client.bucket(bucket).blob("first.txt").download_as_bytes() == b"first"
    assert bucket in [b.name for b in client.list_buckets()]


# --------------------------------------------------------------------------------------------
# Signed URLs


@pytest.fixture(scope="module")
def signing_credentials():
    """A service account key made here (never a real one): google-auth signs V4 URLs with it locally."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from google.oauth2 import service_account

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    return service_account.Credentials.from_service_account_info({
        "type": "service_account", "project_id": "demo-hearth", "private_key_id": "conformance",
        "private_key": pem, "client_email": "conformance@demo-hearth.iam.gserviceaccount.com",
        "client_id": "1", "token_uri": "https://oauth2.googleapis.com/token",
    })


def test_v4_signed_urls_for_put_and_get(gcs_bucket, signing_credentials, storage_target):
    blob = gcs_bucket.blob("signed/report file.pdf")
    expiration = datetime.timedelta(minutes=15)
    put_url = blob.generate_signed_url(version="v4", expiration=expiration, method="PUT",
                                       content_type="application/pdf", credentials=signing_credentials)
    assert put_url.startswith(f"{storage_target.url}/{gcs_bucket.name}/signed/report%20file.pdf?"), put_url
    assert "X-Goog-Signature=" in put_url and "X-Goog-Algorithm=GOOG4-RSA-SHA256" in put_url
    data = b"%PDF-1.7 signed"
    uploaded = send("PUT", put_url, headers={"Content-Type": "application/pdf"}, data=data)
    assert uploaded.status_code == 200, uploaded.text
    stored = gcs_bucket.get_blob("signed/report file.pdf")
    assert (stored.size, stored.content_type) == (len(data), "application/pdf")

    get_url = blob.generate_signed_url(version="v4", expiration=expiration, method="GET",
                                       credentials=signing_credentials)
    downloaded = send("GET", get_url)
    assert downloaded.status_code == 200, downloaded.text
    assert downloaded.content == data
    assert downloaded.headers["Content-Type"] == "application/pdf"


# --------------------------------------------------------------------------------------------
# One store behind both APIs


def test_gcs_and_firebase_share_objects_and_tokens(client, gcs_bucket, storage_target):
    """Download tokens show as `metadata.firebaseStorageDownloadTokens` in the GCS resource; setting that key
    through GCS (what server code does to mint download URLs) adds a token the v0 download URL accepts."""
    load_rules(storage_target, SIGNED_IN_RULES)
    alice = FirebaseStorage(storage_target, gcs_bucket.name, user_token(storage_target, "alice"))
    md = metadata_of(alice.multipart_upload("shared/from-v0.txt", b"from v0", "text/plain", {"metadata": {"k": "v"}}))
    blob = gcs_bucket.get_blob("shared/from-v0.txt")
    assert blob.metadata == {"k": "v", "firebaseStorageDownloadTokens": md["downloadTokens"]}
    assert blob.download_as_bytes() == b"from v0"

    gcs_bucket.blob("shared/from-gcs.txt").upload_from_string(b"from gcs", content_type="text/plain")
    minted = "11111111-2222-4333-8444-555555555555"
    server_blob = gcs_bucket.get_blob("shared/from-gcs.txt")
    server_blob.metadata = {"firebaseStorageDownloadTokens": minted}
    server_blob.patch()
    v0_md = metadata_of(alice.get_metadata("shared/from-gcs.txt"))
    assert minted in v0_md["downloadTokens"].split(",")
    assert all(UUID.match(t) for t in v0_md["downloadTokens"].split(","))
    anonymous = alice.as_token(None)
    response = anonymous.download("shared/from-gcs.txt", token=minted, auth=False)
    assert response.status_code == 200 and response.content == b"from gcs"
