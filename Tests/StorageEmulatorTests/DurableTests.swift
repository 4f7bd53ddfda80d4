import DataDirectory
import EmulatorCore
import EmulatorHTTP
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

@testable import StorageEmulator

/// A data folder (`--data-dir`): the buckets and objects the API wrote are there, bytes and metadata, when an
/// emulator starts again on the folder, and the files no object uses are gone.
@Suite struct DurableTests {
    static let owner: HTTPFields = [.authorization: "Bearer owner"]

    /// Runs `body` with an emulator on the data folder `folder`, then closes the folder as a stopped suite
    /// does (not at the store's deinit, which a task still holding the emulator can delay past the next
    /// open): the next call opens the folder again, as a restart does.
    static func withEmulator(
        _ folder: URL, _ body: @Sendable (StorageEmulator, FirebaseAPITests.TestClient) async throws -> Void
    ) async throws {
        let store = try DataDirectory(path: folder.path)
        defer { store.close() }
        let emulator = try StorageEmulator(projectID: "demo-test", port: 0, durable: store)
        try await Application(responder: emulator.responder).test(.router) { client in
            try await body(emulator, FirebaseAPITests.TestClient(client: client))
        }
    }

    /// Uploads `text` as `name` of bucket `app` through the Firebase API, as the owner.
    static func upload(_ client: FirebaseAPITests.TestClient, _ name: String, _ text: String) async throws -> JSONValue {
        var headers = owner
        headers[.contentType] = "text/plain"
        let encoded = name.replacingOccurrences(of: "/", with: "%2F")
        let reply = try await client.send(.post, "/v0/b/app/o?name=\(encoded)", headers: headers, body: text)
        #expect(reply.status == 200, "\(reply.body)")
        return reply.json
    }

    @Test func aRestartBringsBackObjectsAndRemovesUnusedFiles() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let views = Mutex<(metadata: String, cloud: String, buckets: String, token: String)?>(nil)
        try await Self.withEmulator(folder) { _, client in
            let uploaded = try await Self.upload(client, "docs/a.txt", "hello")
            let token = try #require(uploaded["downloadTokens"]?.stringValue)
            let patched = try await client.send(
                .patch, "/v0/b/app/o/docs%2Fa.txt", headers: Self.owner,
                body: #"{"cacheControl":"no-cache","metadata":{"owner":"alice"}}"#)
            #expect(patched.status == 200, "\(patched.body)")
            _ = try await Self.upload(client, "docs/b.txt", "bye")
            #expect(try await client.send(.delete, "/v0/b/app/o/docs%2Fb.txt", headers: Self.owner).status == 204)
            let bucket = try await client.send(.post, "/storage/v1/b", headers: Self.owner, body: #"{"name":"empty"}"#)
            #expect(bucket.status == 200, "\(bucket.body)")
            let metadata = try await client.send(.get, "/v0/b/app/o/docs%2Fa.txt", headers: Self.owner)
            let cloud = try await client.send(.get, "/storage/v1/b/app/o/docs%2Fa.txt", headers: Self.owner)
            let buckets = try await client.send(.get, "/storage/v1/b", headers: Self.owner)
            views.withLock { $0 = (metadata.body, cloud.body, buckets.body, token) }
        }
        // What a crash leaves: an upload in progress, or the bytes of an object replaced or deleted just before.
        let orphan = folder.appendingPathComponent("storage/\(UUID().uuidString)")
        try Data("orphan".utf8).write(to: orphan)
        let mine = folder.appendingPathComponent("storage/notes.txt")
        try Data("not a blob".utf8).write(to: mine)
        let before = try #require(views.withLock { $0 })
        #expect(before.metadata.contains("alice"))
        try await Self.withEmulator(folder) { emulator, client in
            #expect(emulator.setRules(ExportTests.denyAll).isEmpty)
            #expect(try await client.send(.get, "/v0/b/app/o/docs%2Fa.txt", headers: Self.owner).body == before.metadata)
            #expect(try await client.send(.get, "/storage/v1/b/app/o/docs%2Fa.txt", headers: Self.owner).body == before.cloud)
            #expect(try await client.send(.get, "/storage/v1/b", headers: Self.owner).body == before.buckets)
            let download = try await client.send(.get, "/v0/b/app/o/docs%2Fa.txt?alt=media&token=\(before.token)")
            #expect(download.status == 200, "the download token still opens the object when the rules deny all")
            #expect(download.body == "hello")
            #expect(try await client.send(.get, "/v0/b/app/o/docs%2Fb.txt", headers: Self.owner).status == 404)
        }
        #expect(!FileManager.default.fileExists(atPath: orphan.path))
        #expect(FileManager.default.fileExists(atPath: mine.path), "a file not named as a blob stays")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("storage").path).count == 2)
    }

    @Test func rulesLoadedThroughTheAPIAreKept() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let open = "rules_version = '2'; service firebase.storage { match /b/{bucket}/o/{path=**} { allow read: if true; } }"
        try await Self.withEmulator(folder) { _, client in
            _ = try await Self.upload(client, "public.txt", "hello")
            let body: JSONValue = ["rules": ["files": [["name": "storage.rules", "content": .string(open)]]]]
            var headers = Self.owner
            headers[.contentType] = "application/json"
            let loaded = try await client.send(.put, "/internal/setRules", headers: headers, body: body.serialized())
            #expect(loaded.status == 200, "\(loaded.body)")
        }
        try await Self.withEmulator(folder) { _, client in
            // Without rules every request but an admin's is refused: the kept rules let this one read.
            let read = try await client.send(.get, "/v0/b/app/o/public.txt?alt=media")
            #expect(read.status == 200, "\(read.body)")
        }
    }

    @Test func importsRestoresAndResetsAreKept() async throws {
        let folder = try temporaryFolder()
        let export = try temporaryFolder()
        defer {
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: export)
        }
        let source = try StorageEmulator(projectID: "demo-test", port: 0)
        try await Application(responder: source.responder).test(.router) { client in
            _ = try await Self.upload(FirebaseAPITests.TestClient(client: client), "imported.txt", "from an export")
        }
        try await source.exportData(to: export, progress: TransferProgress())

        try await Self.withEmulator(folder) { emulator, client in
            _ = try await Self.upload(client, "kept.txt", "kept")
            let checkpoint = await emulator.checkpoint()
            _ = try await Self.upload(client, "kept.txt", "replaced")
            _ = try await Self.upload(client, "dropped.txt", "dropped")
            try await emulator.restore(checkpoint)
            await emulator.release(checkpoint)
        }
        try await Self.withEmulator(folder) { emulator, client in
            #expect(try await client.send(.get, "/v0/b/app/o/kept.txt?alt=media", headers: Self.owner).body == "kept")
            #expect(try await client.send(.get, "/v0/b/app/o/dropped.txt", headers: Self.owner).status == 404)
            try await emulator.importData(from: export, progress: TransferProgress())
        }
        try await Self.withEmulator(folder) { emulator, client in
            let imported = try await client.send(.get, "/v0/b/app/o/imported.txt?alt=media", headers: Self.owner)
            #expect(imported.body == "from an export")
            #expect(try await client.send(.get, "/v0/b/app/o/kept.txt?alt=media", headers: Self.owner).body == "kept")
            try emulator.reset()
        }
        try await Self.withEmulator(folder) { emulator, _ in
            #expect(emulator.store.snapshot.buckets.isEmpty)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("storage").path).isEmpty)
    }
}
