import Crypto
import EmulatorCore
import EmulatorHTTP
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import StorageEmulator

/// `exportData` / `importData`: the official `storage_export` layout, read back byte for byte, read from
/// what firebase-tools writes, and refused whole when anything in it is wrong.
@Suite struct ExportTests {
    static let denyAll =
        "rules_version = '2'; service firebase.storage { match /b/{bucket}/o { match /{all=**} { allow read, write: if false; } } }"

    @Test func aRoundTripKeepsMetadataTokensAndBytes() async throws {
        let source = try StorageEmulator(projectID: "demo-test", port: 0)
        let photo = "photos/2024/café ☕️/日本 #1?.txt"
        try await put(
            source.store, "demo-test.appspot.com", photo, Array("Grüße aus Köln".utf8),
            metadata: [
                "contentType": "text/plain; charset=utf-8", "cacheControl": "public, max-age=60",
                "contentDisposition": "attachment; filename=\"x.txt\"", "contentEncoding": "identity",
                "contentLanguage": "de", "customTime": "2024-05-01T10:00:00.123Z",
                "metadata": ["owner": "alice", "émoji": "🔥", "firebaseStorageDownloadTokens": "token-1,token-2"],
            ])
        _ = try source.store.update("demo-test.appspot.com", photo) { $0.touch(Date()) }
        let big = (0..<(5 << 20) + 123).map { UInt8(truncatingIfNeeded: $0 % 251) }
        try await put(source.store, "demo-test.appspot.com", "videos/big.bin", big, metadata: ["contentType": "video/mp4"])
        try await put(source.store, "other-bucket", "a/b/", [], metadata: ["metadata": ["kind": "folder"]])
        try await put(source.store, "other-bucket", "cafe\u{301}", Array("nfd".utf8))
        try source.store.ensureBucket("empty-bucket")

        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let exported = TransferProgress()
        try await source.exportData(to: folder, progress: exported)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["blobs", "buckets.json", "metadata"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("metadata").path).count == 4)
        #expect(exported.totals.items == 4)
        #expect(exported.totals.bytes == big.count + "Grüße aus Köln".utf8.count + 3)

        let target = try StorageEmulator(projectID: "demo-test", port: 0)
        let imported = TransferProgress()
        try await target.importData(from: folder, progress: imported)
        #expect(imported.totals == exported.totals)
        let before = source.store.snapshot
        let after = target.store.snapshot
        #expect(after.buckets.map(\.name) == ["demo-test.appspot.com", "empty-bucket", "other-bucket"])
        #expect(after.objects.map(\.exportJSON) == before.objects.map(\.exportJSON))
        #expect(after.objects.map(\.downloadTokens) == before.objects.map(\.downloadTokens))
        for (original, copy) in zip(before.objects, after.objects) {
            #expect(copy.blob.id != original.blob.id, "the import copies the bytes into the target's own files")
            #expect(try bytes(of: copy, in: target.store) == bytes(of: original, in: source.store))
        }
        let restored = try #require(target.store.object("demo-test.appspot.com", photo))
        #expect(restored.metageneration == 2)
        #expect(restored.customMetadata == ["owner": "alice", "émoji": "🔥"])
        #expect(restored.customTime == StoredObject.date(from: "2024-05-01T10:00:00.123Z"))

        // The original token still downloads through the Firebase v0 API, whatever the rules say.
        #expect(target.setRules(Self.denyAll).isEmpty)
        let path = "/v0/b/demo-test.appspot.com/o/\(StorageAPI.percentEncoded(photo))"
        try await Application(responder: target.responder).test(.router) { raw in
            let client = FirebaseAPITests.TestClient(client: raw)
            #expect(try await client.send(.get, path + "?alt=media").status == 403)
            let download = try await client.send(.get, path + "?alt=media&token=token-2")
            #expect(download.status == 200)
            #expect(download.body == "Grüße aus Köln")
            #expect(download.headers[.contentType] == "text/plain; charset=utf-8")
        }
    }

    @Test func anExportOfFirebaseToolsImports() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bucket = "fake-project-id.appspot.com"
        try write("{\n  \"buckets\": [\n    {\n      \"id\": \"\(bucket)\"\n    }\n  ]\n}", to: folder, "buckets.json")
        // firebase-tools' own fixture (flattened-emulator-data): an old flattened disk name.
        let example = """
            {
              "name": "test_upload.jpg",
              "bucket": "fake-project-id.appspot.com",
              "contentType": "application/octet-stream",
              "metageneration": 1,
              "generation": 1648084940926,
              "storageClass": "STANDARD",
              "contentDisposition": "inline",
              "cacheControl": "public, max-age=3600",
              "contentEncoding": "identity",
              "downloadTokens": ["c3c71086-95a8-445d-96e7-f625972de4b0"],
              "etag": "PQJQBXRweACX9yRsBEInQjOJ/0s",
              "timeCreated": "2022-03-24T01:22:20.926Z",
              "updated": "2022-03-24T01:22:20.926Z",
              "size": 0,
              "md5Hash": "1B2M2Y8AsgTpgAmY7PhCfg==",
              "crc32c": "0"
            }
            """
        try write(example, to: folder, "metadata/\(bucket)%2Ftest_upload.jpg.json")
        try write("", to: folder, "blobs/\(bucket)%2Ftest_upload.jpg")
        // Today's layout: a UUID disk name, every optional field.
        let hello = Array("hello".utf8)
        var crc = CRC32C()
        hello.withUnsafeBytes { crc.update($0) }
        let uuid = "eaa2803e-4374-44bd-98cb-cdd7d31e3347"
        try write(
            """
            {"name":"docs/read me.txt","bucket":"\(bucket)","contentType":"text/plain","metageneration":3,
             "generation":1700000000000123,"storageClass":"STANDARD","contentLanguage":"fr",
             "customTime":"2023-01-02T03:04:05.678Z","downloadTokens":["t-1","t-2"],"etag":"ignored",
             "timeCreated":"2023-11-14T22:13:20.000Z","updated":"2023-11-15T08:00:00.500Z","size":5,
             "md5Hash":"\(Data(Insecure.MD5.hash(data: hello)).base64EncodedString())","crc32c":"\(crc.value)",
             "customMetadata":{"owner":"alice","n":"2"}}
            """, to: folder, "metadata/\(uuid).json")
        try write("hello", to: folder, "blobs/\(uuid)")
        // Older still: nested folders, and no checksums (size is checked alone).
        try write(
            #"{"name":"dir/nested.txt","bucket":"\#(bucket)","size":2}"#, to: folder, "metadata/\(bucket)/dir/nested.txt.json")
        try write("hi", to: folder, "blobs/\(bucket)/dir/nested.txt")
        // firebase-tools' windows-emulator-data fixture: `\` for `/` in the name.
        try write(
            #"{"name":"test-directory\\w.jpg","bucket":"\#(bucket)","size":1}"#, to: folder,
            "metadata/\(bucket)%5Ctest-directory%5Cw.jpg.json")
        try write("w", to: folder, "blobs/\(bucket)%5Ctest-directory%5Cw.jpg")
        try write("not metadata", to: folder, "metadata/README.txt")

        let emulator = try StorageEmulator(projectID: "demo-test", port: 0)
        let progress = TransferProgress()
        try await emulator.importData(from: folder, progress: progress)
        #expect(progress.totals.items == 4)
        #expect(progress.totals.bytes == 8)
        #expect(emulator.store.buckets.map(\.name) == [bucket])

        let upload = try #require(emulator.store.object(bucket, "test_upload.jpg"))
        #expect(upload.exportJSON == (try JSONValue.parse(example)), "every field comes back, etag included")
        let document = try #require(emulator.store.object(bucket, "docs/read me.txt"))
        #expect(document.generation == 1_700_000_000_000_123)
        #expect(document.metageneration == 3)
        #expect(document.contentLanguage == "fr")
        #expect(document.customTime == StoredObject.date(from: "2023-01-02T03:04:05.678Z"))
        #expect(document.timeCreated.iso8601WithMilliseconds == "2023-11-14T22:13:20.000Z")
        #expect(document.updated.iso8601WithMilliseconds == "2023-11-15T08:00:00.500Z")
        #expect(document.downloadTokens == ["t-1", "t-2"])
        #expect(document.customMetadata == ["owner": "alice", "n": "2"])
        #expect(try bytes(of: document, in: emulator.store) == hello)
        let nested = try #require(emulator.store.object(bucket, "dir/nested.txt"))
        #expect(nested.metageneration == 1)
        #expect(nested.updated == nested.timeCreated)
        #expect(try bytes(of: nested, in: emulator.store) == Array("hi".utf8))
        #expect(emulator.store.object(bucket, "test-directory/w.jpg") != nil)

        #expect(emulator.setRules(Self.denyAll).isEmpty)
        try await Application(responder: emulator.responder).test(.router) { raw in
            let client = FirebaseAPITests.TestClient(client: raw)
            let download = try await client.send(
                .get, "/v0/b/\(bucket)/o/test_upload.jpg?alt=media&token=c3c71086-95a8-445d-96e7-f625972de4b0")
            #expect(download.status == 200)
            #expect(download.body == "")
        }
    }

    /// Ways an export can be broken, and the file the import blames.
    enum Breakage: String, CaseIterable, Sendable {
        case missingBlob, longerBlob, changedBlob, corruptMetadata, wrongMetadataType, missingBuckets, corruptBuckets
    }

    @Test(arguments: Breakage.allCases) func aBrokenExportChangesNothing(_ breakage: Breakage) async throws {
        let source = try StorageEmulator(projectID: "demo-test", port: 0)
        for name in ["a", "b/c", "d"] { try await put(source.store, "app", name, Array("bytes of \(name)".utf8)) }
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await source.exportData(to: folder, progress: TransferProgress())
        // The metadata file read last: the blobs of the others are copied by the time it fails.
        let last = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("metadata").path).max())
        let metadata = folder.appendingPathComponent("metadata").appendingPathComponent(last)
        let blob = folder.appendingPathComponent("blobs").appendingPathComponent(String(last.dropLast(".json".count)))
        let buckets = folder.appendingPathComponent("buckets.json")
        let blamed: URL
        switch breakage {
        case .missingBlob:
            try FileManager.default.removeItem(at: blob)
            blamed = blob
        case .longerBlob:
            try Data("bytes of ax".utf8).write(to: blob)
            blamed = blob
        case .changedBlob:
            try Data(String(repeating: "x", count: try Data(contentsOf: blob).count).utf8).write(to: blob)
            blamed = blob
        case .corruptMetadata:
            try Data(#"{"name": "d", "#.utf8).write(to: metadata)
            blamed = metadata
        case .wrongMetadataType:
            var json = try #require(try JSONValue.parse(Data(contentsOf: metadata)).objectValue)
            json["downloadTokens"] = "one"
            try Data(JSONValue.object(json).serialized().utf8).write(to: metadata)
            blamed = metadata
        case .missingBuckets:
            try FileManager.default.removeItem(at: buckets)
            blamed = buckets
        case .corruptBuckets:
            try Data(#"{"buckets":"app"}"#.utf8).write(to: buckets)
            blamed = buckets
        }

        let target = try StorageEmulator(projectID: "demo-test", port: 0)
        try await put(target.store, "other", "keep", Array("kept".utf8))
        let before = target.store.snapshot
        let files = try FileManager.default.contentsOfDirectory(atPath: target.store.directory.path)
        let error = await #expect(throws: ImportError.self) {
            try await target.importData(from: folder, progress: TransferProgress())
        }
        #expect(error?.file == blamed.path, "\(error.map(String.init(describing:)) ?? "")")
        let after = target.store.snapshot
        #expect(after.buckets == before.buckets)
        #expect(after.objects == before.objects)
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.store.directory.path) == files, "no blob left behind")
    }

    // MARK: Helpers

    /// Stores `bytes` as object `name` of `bucket`, with upload metadata `metadata`.
    private func put(_ store: ObjectStore, _ bucket: String, _ name: String, _ bytes: [UInt8], metadata: JSONValue? = nil) async throws {
        let writer = try store.newBlob()
        try writer.write(bytes)
        try store.put(StoredObject(bucket: bucket, name: name, blob: try await writer.finish(), metadata: metadata, now: Date()))
    }

    /// All the bytes of `object`.
    private func bytes(of object: StoredObject, in store: ObjectStore) throws -> [UInt8] {
        let reader = try #require(store.reader(of: object.blob))
        var bytes: [UInt8] = []
        while true {
            let buffer = try reader.buffer(at: Int64(bytes.count), count: 1 << 20)
            guard buffer.readableBytes > 0 else { return bytes }
            bytes += buffer.readableBytesView
        }
    }

    /// Writes `text` to `relative` in `folder`, making its folders.
    private func write(_ text: String, to folder: URL, _ relative: String) throws {
        let file = folder.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
    }
}

/// A new empty folder under the temporary directory.
func temporaryFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-storage-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}
