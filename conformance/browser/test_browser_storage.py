"""Cloud Storage for Firebase in a browser: firebase-storage.js 10.7.1 with connectStorageEmulator against a hearth of
this module's own (open rules).

The SDK uploads a Blob of at most 256 KiB in one multipart request and a larger one as a resumable upload in
chunks of 256 KiB that double while the server keeps up; pausing aborts the chunk in flight and resuming asks the
server (`X-Goog-Upload-Command: query`) how much it has, so the browser must be allowed to read the
X-Goog-Upload-* headers (Access-Control-Expose-Headers). A download URL carries the object's token and is fetched
with plain fetch(), so the media download needs CORS too.
"""

from __future__ import annotations

import base64
import hashlib
import uuid

import pytest
import requests

MIB = 1024 * 1024
# The same bytes on both sides: byte i is (i * 31 + 7) mod 256.
PATTERN = "(i * 31 + 7) & 255"


def pattern(size: int) -> bytes:
    return bytes((i * 31 + 7) & 255 for i in range(size))


@pytest.fixture
def folder():
    """An object prefix no other test uses."""
    return "f" + uuid.uuid4().hex[:12]


def media(endpoints, name: str) -> requests.Response:
    """The object's bytes as an admin reads them (Firebase v0 API, `Firebase owner`)."""
    return requests.get(
        f"http://{endpoints.storage}/v0/b/{endpoints.bucket}/o/{requests.utils.quote(name, safe='')}",
        params={"alt": "media"}, headers={"Authorization": "Firebase owner"}, timeout=30)


def test_upload_bytes_and_metadata(page, endpoints, folder):
    result = page.run("""
        const {storage: S} = fb;
        const storage = h.storage(h.app("a"));
        const ref = S.ref(storage, args.folder + "/hello world.txt");
        const uploaded = await S.uploadBytes(ref, new TextEncoder().encode("hello, storage"),
          {contentType: "text/plain", cacheControl: "public, max-age=60", customMetadata: {owner: "ada"}});
        const read = await S.getMetadata(ref);
        const updated = await S.updateMetadata(ref, {customMetadata: {owner: "bob", extra: "1"}});
        const pick = (m) => ({name: m.name, fullPath: m.fullPath, bucket: m.bucket, size: m.size,
                              contentType: m.contentType, cacheControl: m.cacheControl ?? null,
                              customMetadata: m.customMetadata ?? null, md5Hash: m.md5Hash,
                              generation: m.generation, created: m.timeCreated});
        return {uploaded: pick(uploaded.metadata), read: pick(read), updated: pick(updated),
                text: new TextDecoder().decode(await S.getBytes(ref))};
    """, folder=folder)
    expected_md5 = base64.b64encode(hashlib.md5(b"hello, storage").digest()).decode()
    uploaded = result["uploaded"]
    assert uploaded["name"] == "hello world.txt"
    assert uploaded["fullPath"] == f"{folder}/hello world.txt"
    assert uploaded["bucket"] == endpoints.bucket
    assert uploaded["size"] == 14
    assert uploaded["contentType"] == "text/plain"
    assert uploaded["cacheControl"] == "public, max-age=60"
    assert uploaded["customMetadata"] == {"owner": "ada"}
    assert uploaded["md5Hash"] == expected_md5
    assert result["read"] == uploaded
    assert result["updated"]["customMetadata"] == {"owner": "bob", "extra": "1"}
    assert result["updated"]["contentType"] == "text/plain"
    assert result["text"] == "hello, storage"
    assert media(endpoints, f"{folder}/hello world.txt").content == b"hello, storage"


def test_resumable_upload_with_progress_then_download_url(page, endpoints, folder):
    size = 3 * MIB + 123
    result = page.run("""
        const {storage: S} = fb;
        const storage = h.storage(h.app("a"));
        const bytes = new Uint8Array(args.size);
        for (let i = 0; i < bytes.length; i++) bytes[i] = %s;
        const task = S.uploadBytesResumable(S.ref(storage, args.folder + "/big.bin"), bytes,
                                            {contentType: "application/octet-stream"});
        const progress = [];
        task.on("state_changed",
                (snapshot) => progress.push([snapshot.state, snapshot.bytesTransferred, snapshot.totalBytes]));
        const done = await task;
        const url = await S.getDownloadURL(done.ref);
        const response = await fetch(url);
        const body = new Uint8Array(await response.arrayBuffer());
        let same = body.length === bytes.length;
        for (let i = 0; same && i < body.length; i++) same = body[i] === bytes[i];
        return {progress, state: task.snapshot.state, size: done.metadata.size, url, status: response.status,
                type: response.headers.get("content-type"), length: body.length, same};
    """ % PATTERN, folder=folder, size=size)
    progress = result["progress"]
    assert result["state"] == "success"
    assert result["size"] == size
    transferred = [bytes_ for _, bytes_, _ in progress]
    assert all(total == size for _, _, total in progress)
    assert transferred == sorted(transferred), "progress only grows"
    assert transferred[-1] == size
    assert len(set(transferred)) >= 4, f"a 3 MiB upload goes in several chunks (256 KiB, 512 KiB, …): {progress}"
    assert 256 * 1024 in transferred, "the first chunk is 256 KiB"
    object_url = f"http://{endpoints.storage}/v0/b/{endpoints.bucket}/o/{folder}%2Fbig.bin"
    assert result["url"].startswith(object_url + "?alt=media&token=")
    assert result["status"] == 200
    assert result["type"] == "application/octet-stream"
    assert result["length"] == size and result["same"] is True
    assert media(endpoints, f"{folder}/big.bin").content == pattern(size)


def test_pause_and_resume(page, endpoints, folder):
    size = 4 * MIB + 5
    result = page.run("""
        const {storage: S} = fb;
        const storage = h.storage(h.app("a"));
        const bytes = new Uint8Array(args.size);
        for (let i = 0; i < bytes.length; i++) bytes[i] = %s;
        const task = S.uploadBytesResumable(S.ref(storage, args.folder + "/paused.bin"), bytes);
        const states = [];
        let pausedAt = null;
        task.on("state_changed", (snapshot) => {
          states.push([snapshot.state, snapshot.bytesTransferred]);
          if (pausedAt === null && snapshot.state === "running" && snapshot.bytesTransferred > 0) {
            pausedAt = snapshot.bytesTransferred;
            task.pause();
          }
        });
        await h.until(() => task.snapshot.state === "paused", "the paused state");
        await h.sleep(300);
        const whilePaused = task.snapshot.bytesTransferred;
        task.resume();
        const done = await task;
        return {states, pausedAt, whilePaused, size: done.metadata.size, state: task.snapshot.state};
    """ % PATTERN, folder=folder, size=size)
    states = [state for state, _ in result["states"]]
    assert "paused" in states
    assert "running" in states[states.index("paused"):], "it runs again after resume()"
    assert result["whilePaused"] == result["pausedAt"], "nothing moves while paused"
    assert result["state"] == "success" and result["size"] == size
    assert media(endpoints, f"{folder}/paused.bin").content == pattern(size)


def test_cancel(page, endpoints, folder):
    result = page.run("""
        const {storage: S} = fb;
        const storage = h.storage(h.app("a"));
        const bytes = new Uint8Array(args.size);
        const ref = S.ref(storage, args.folder + "/cancelled.bin");
        const task = S.uploadBytesResumable(ref, bytes);
        task.on("state_changed", (snapshot) => { if (snapshot.bytesTransferred > 0) task.cancel(); });
        let code = "uploaded";
        try { await task; } catch (error) { code = error.code; }
        let after = "exists";
        try { await S.getMetadata(ref); } catch (error) { after = error.code; }
        return {code, state: task.snapshot.state, after};
    """, folder=folder, size=4 * MIB)
    page.expect_console("storage object missing")
    assert result == {"code": "storage/canceled", "state": "canceled", "after": "storage/object-not-found"}
    assert media(endpoints, f"{folder}/cancelled.bin").status_code == 404


def test_list_all_and_delete(page, endpoints, folder):
    result = page.run("""
        const {storage: S} = fb;
        const storage = h.storage(h.app("a"));
        const names = ["a.txt", "b.txt", "sub/c.txt", "sub/deeper/d.txt", "other/e.txt"];
        for (const name of names) await S.uploadString(S.ref(storage, args.folder + "/" + name), name);
        const listing = async (path) => {
          const all = await S.listAll(S.ref(storage, path));
          return {items: all.items.map((r) => r.fullPath), prefixes: all.prefixes.map((r) => r.fullPath)};
        };
        const top = await listing(args.folder);
        const sub = await listing(args.folder + "/sub");
        const page1 = await S.list(S.ref(storage, args.folder), {maxResults: 1});
        await S.deleteObject(S.ref(storage, args.folder + "/a.txt"));
        let again = "deleted twice";
        try { await S.deleteObject(S.ref(storage, args.folder + "/a.txt")); } catch (error) { again = error.code; }
        const afterDelete = await listing(args.folder);
        return {top, sub, firstPage: page1.items.map((r) => r.fullPath).concat(page1.prefixes.map((r) => r.fullPath)),
                hasNext: Boolean(page1.nextPageToken), afterDelete, again};
    """, folder=folder)
    page.expect_console("storage object missing")
    f = folder
    assert result["top"] == {"items": [f"{f}/a.txt", f"{f}/b.txt"], "prefixes": [f"{f}/other", f"{f}/sub"]}
    assert result["sub"] == {"items": [f"{f}/sub/c.txt"], "prefixes": [f"{f}/sub/deeper"]}
    assert len(result["firstPage"]) == 1 and result["hasNext"] is True
    assert result["afterDelete"] == {"items": [f"{f}/b.txt"], "prefixes": [f"{f}/other", f"{f}/sub"]}
    assert result["again"] == "storage/object-not-found"
    assert media(endpoints, f"{f}/a.txt").status_code == 404
    assert media(endpoints, f"{f}/b.txt").content == b"b.txt"
