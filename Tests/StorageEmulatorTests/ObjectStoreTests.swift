import Crypto
import EmulatorCore
import Foundation
import NIOCore
import Testing

@testable import StorageEmulator

/// Listing, replacing and deleting objects in the store.
@Suite struct ObjectStoreTests {
    private func put(_ store: ObjectStore, _ name: String, _ text: String = "x") async throws {
        let writer = try store.newBlob()
        try writer.write(Array(text.utf8))
        let blob = try await writer.finish()
        try store.put(StoredObject(bucket: "b", name: name, blob: blob, metadata: nil, now: Date()))
    }

    @Test func listingRollsUpPrefixesAndPages() async throws {
        let store = try ObjectStore()
        for name in ["a.txt", "dir/1", "dir/2", "dir/sub/3", "dir-x", "e/f", "z"] { try await put(store, name) }
        let root = store.list("b", prefix: "", delimiter: "/", pageToken: nil, maxResults: 1000)
        #expect(root.objects.map(\.name) == ["a.txt", "dir-x", "z"])
        #expect(root.prefixes == ["dir/", "e/"])
        let dir = store.list("b", prefix: "dir/", delimiter: "/", pageToken: nil, maxResults: 1000)
        #expect(dir.objects.map(\.name) == ["dir/1", "dir/2"])
        #expect(dir.prefixes == ["dir/sub/"])
        // Pages of two: every entry exactly once, a prefix never repeated on the next page.
        var seen: [String] = []
        var token: String?
        repeat {
            let page = store.list("b", prefix: "", delimiter: "/", pageToken: token, maxResults: 2)
            #expect(page.objects.count + page.prefixes.count <= 2)
            seen += page.objects.map(\.name) + page.prefixes
            token = page.nextPageToken
        } while token != nil
        #expect(seen.sorted() == ["a.txt", "dir-x", "dir/", "e/", "z"])
    }

    @Test func checkpointsKeepTheBlobFilesTheyNeedUntilReleased() async throws {
        let store = try ObjectStore()
        try await put(store, "a", "first")
        let blob = try #require(store.object("b", "a")?.blob)
        let file = store.directory.appendingPathComponent(blob.id).path
        let first = store.checkpoint()
        let second = store.checkpoint()
        try await put(store, "a", "second")
        #expect(FileManager.default.fileExists(atPath: file))
        try store.restore(first)
        #expect(store.object("b", "a")?.blob == blob)
        _ = try store.delete("b", "a")
        store.release(first)
        #expect(FileManager.default.fileExists(atPath: file), "the second checkpoint still holds it")
        store.release(second)
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    @Test func namesAreBytesNotUnicodeEquivalence() async throws {
        let store = try ObjectStore()
        let composed = "caf\u{E9}.txt"  // é as one scalar (NFC)
        let decomposed = "cafe\u{301}.txt"  // e + combining acute (NFD): equal as Swift strings, not as bytes
        #expect(composed == decomposed)
        try await put(store, composed, "nfc")
        try await put(store, decomposed, "nfd")
        let first = try #require(store.object("b", composed))
        let second = try #require(store.object("b", decomposed))
        #expect(try contents(of: first.blob, in: store) == Array("nfc".utf8))
        #expect(try contents(of: second.blob, in: store) == Array("nfd".utf8))
        #expect(store.list("b", prefix: "", delimiter: nil, pageToken: nil, maxResults: 10).objects.count == 2)
    }

    @Test func replacingAnObjectRemovesItsOldBytes() async throws {
        let store = try ObjectStore()
        try await put(store, "o", "first")
        let first = try #require(store.object("b", "o"))
        try await put(store, "o", "second")
        #expect(store.reader(of: first.blob) == nil)
        let second = try #require(store.object("b", "o"))
        #expect(try contents(of: second.blob, in: store) == Array("second".utf8))
        #expect(second.md5Hash == Data(md5Digest("second")).base64EncodedString())
        try store.delete("b", "o")
        #expect(store.object("b", "o") == nil)
        #expect(store.reader(of: second.blob) == nil)
    }

    @Test func aRefusedPutLeavesNothingBehind() async throws {
        let store = try ObjectStore()
        let writer = try store.newBlob()
        try writer.write(Array("x".utf8))
        let blob = try await writer.finish()
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try store.put(StoredObject(bucket: "b", name: "o", blob: blob, metadata: nil, now: Date())) { _ in throw Refused() }
        }
        #expect(store.object("b", "o") == nil)
        #expect(store.reader(of: blob) == nil)
    }

    @Test func metadataNullsRemoveFieldsAndTokensMove() async throws {
        let store = try ObjectStore()
        let writer = try store.newBlob()
        let blob = try await writer.finish()
        var object = StoredObject(
            bucket: "b", name: "o", blob: blob,
            metadata: ["contentType": "text/plain", "cacheControl": "no-store",
                       "metadata": ["a": "1", "n": 2, "firebaseStorageDownloadTokens": "t1,t2"]],
            now: Date())
        #expect(object.customMetadata == ["a": "1", "n": "2"])
        #expect(object.downloadTokens == ["t1", "t2"])
        object.apply(["cacheControl": .null, "metadata": ["a": .null, "b": "x"]])
        #expect(object.cacheControl == nil)
        #expect(object.contentType == "text/plain")
        #expect(object.customMetadata == ["n": "2", "b": "x"])
    }
}

/// The bytes of `blob` (up to 1 MiB), or `nil` if its file is gone.
func contents(of blob: Blob, in store: ObjectStore) throws -> [UInt8]? {
    try store.reader(of: blob).map { Array(try $0.buffer(at: 0, count: 1 << 20).readableBytesView) }
}

/// The MD5 digest of `text`'s UTF-8.
private func md5Digest(_ text: String) -> [UInt8] { Array(Insecure.MD5.hash(data: Array(text.utf8))) }
