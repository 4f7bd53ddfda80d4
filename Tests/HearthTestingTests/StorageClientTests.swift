import EmulatorCore
import Foundation
import NIOHTTP1
@testable import HearthTesting
import Suite
import Testing

/// `StorageClient` against a real Storage emulator on free ports, each test with its own suite (rules are
/// the emulator's state).
@Suite struct StorageClientTests {
    static let bucket = "demo-kit.appspot.com"
    static let alice = ClientIdentity.user("alice", projectID: "demo-kit")
    static let bob = ClientIdentity.user("bob", projectID: "demo-kit")

    /// Any signed-in user may read and write anything.
    static let signedInRules = """
        rules_version = '2';
        service firebase.storage {
          match /b/{bucket}/o {
            match /{allPaths=**} {
              allow read, write: if request.auth != null;
            }
          }
        }
        """

    /// 3 MiB of bytes that repeat every 251 (so no chunk looks like another), and their MD5.
    static let large = Data((0..<3 << 20).map { UInt8($0 % 251) })
    static let largeMD5 = "uei+li+lQbrYzX5Sas1P/A=="

    @Test func referencesNavigateLikeTheSDKs() {
        let client = StorageClient(address: EmulatorAddress(host: "127.0.0.1", port: 9199), bucket: "b", identity: .admin)
        let root = client.reference()
        #expect(root.path == "" && root.name == "" && root.parent == nil)
        let file = root.child("/photos//2024/").child("cat.png")
        #expect(file.path == "photos/2024/cat.png")
        #expect(file.name == "cat.png")
        #expect(file.bucket == "b")
        #expect(file.parent == client.reference("photos/2024"))
        #expect(file.parent?.parent?.parent == root)
        #expect(client.reference("/a/b/").path == "a/b")
        #expect(file.description == "gs://b/photos/2024/cat.png")
    }

    @Test func multipartUploadRoundTrips() async throws {
        try await withStorage(rules: Self.signedInRules) { address in
            let ref = Self.client(address).reference("notes/hello.txt")
            let bytes = Data("hello, storage".utf8)
            let uploaded = try await ref.putData(
                bytes, metadata: StorageMetadata(contentType: "text/plain", customMetadata: ["mood": "calm"]))
            #expect(uploaded.bucket == Self.bucket)
            #expect(uploaded.fullPath == "notes/hello.txt")
            #expect(uploaded.name == "hello.txt")
            #expect(uploaded.size == bytes.count)
            #expect(uploaded.contentType == "text/plain")
            #expect(uploaded.customMetadata == ["mood": "calm"])
            #expect(uploaded.md5Hash == "VIQmX4sfgFGCFmy8nMTNZw==")
            #expect(uploaded.generation > 0)
            #expect(uploaded.metageneration == 1)
            #expect(uploaded.timeCreated != nil && uploaded.timeCreated == uploaded.updated)
            #expect(uploaded.downloadTokens.count == 1)
            #expect(try await ref.data() == bytes)

            let big = try await ref.parent!.child("big.bin").putData(Self.large)
            #expect(big.size == Self.large.count)
            #expect(big.contentType == "application/octet-stream")
            #expect(big.md5Hash == Self.largeMD5)
        }
    }

    @Test func resumableUploadRoundTrips() async throws {
        try await withStorage(rules: Self.signedInRules) { address in
            let client = Self.client(address)
            let ref = client.reference("uploads/large.bin")
            let uploaded = try await ref.putDataResumable(
                Self.large, metadata: StorageMetadata(contentType: "application/x-test", customMetadata: ["k": "v"]))
            #expect(uploaded.fullPath == "uploads/large.bin")
            #expect(uploaded.size == Self.large.count)
            #expect(uploaded.contentType == "application/x-test")
            #expect(uploaded.customMetadata == ["k": "v"])
            #expect(uploaded.md5Hash == Self.largeMD5)
            #expect(try await ref.data() == Self.large)

            // Chunks that do not divide the size, and one chunk for all.
            let uneven = try await client.reference("uploads/uneven.bin").putDataResumable(Self.large, chunkSize: 700_000)
            #expect(uneven.md5Hash == Self.largeMD5)
            let whole = try await client.reference("uploads/whole.bin").putDataResumable(Self.large, chunkSize: 8 << 20)
            #expect(whole.md5Hash == Self.largeMD5)

            // Nothing to send: a lone finalize; an empty object downloads as no bytes.
            let empty = client.reference("uploads/empty.bin")
            #expect(try await empty.putDataResumable(Data()).size == 0)
            #expect(try await empty.data().isEmpty)
        }
    }

    @Test func aChunkSizeThatIsNotPositiveIsAnInvalidArgument() async throws {
        // Unreachable: an upload that got as far as a request would fail as unavailable instead.
        let ref = Self.client(EmulatorAddress(host: "127.0.0.1", port: 1)).reference("uploads/x.bin")
        for chunkSize in [0, -1] {
            let error = await #expect(throws: ClientError.self) {
                try await ref.putDataResumable(Data([1]), chunkSize: chunkSize)
            }
            #expect(error?.code == .invalidArgument)
        }
    }

    @Test func metadataIsReadAndUpdated() async throws {
        try await withStorage(rules: Self.signedInRules) { address in
            let ref = Self.client(address).reference("m/doc.txt")
            _ = try await ref.putData(
                Data("x".utf8), metadata: StorageMetadata(contentType: "text/plain", customMetadata: ["a": "1", "b": "2"]))
            var metadata = try await ref.metadata()
            #expect(metadata.customMetadata == ["a": "1", "b": "2"])
            #expect(metadata.contentDisposition == "inline")

            // Read, change, write back: a removed key is removed.
            metadata.customMetadata["a"] = nil
            metadata.customMetadata["c"] = "3"
            metadata.cacheControl = "max-age=60"
            let updated = try await ref.updateMetadata(metadata)
            #expect(updated.customMetadata == ["b": "2", "c": "3"])
            #expect(updated.cacheControl == "max-age=60")
            #expect(updated.contentType == "text/plain")
            #expect(updated.metageneration == 2)
            #expect(updated.generation == metadata.generation)

            // New metadata merges.
            let merged = try await ref.updateMetadata(StorageMetadata(customMetadata: ["d": "4"]))
            #expect(merged.customMetadata == ["b": "2", "c": "3", "d": "4"])
            #expect(merged.cacheControl == "max-age=60")
            #expect(try await ref.metadata().customMetadata == merged.customMetadata)
        }
    }

    @Test func deletedObjectsAreNotFound() async throws {
        try await withStorage(rules: Self.signedInRules) { address in
            let ref = Self.client(address).reference("gone.txt")
            _ = try await ref.putData(Data("bye".utf8))
            try await ref.delete()
            let error = await #expect(throws: ClientError.self) { try await ref.metadata() }
            #expect(error?.code == .notFound)
            #expect(error?.status == 404)
            #expect(await #expect(throws: ClientError.self) { try await ref.data() }?.code == .notFound)
            #expect(await #expect(throws: ClientError.self) { try await ref.delete() }?.code == .notFound)
        }
    }

    @Test func listAllGivesItemsAndPrefixes() async throws {
        try await withStorage(rules: Self.signedInRules) { address in
            let client = Self.client(address)
            for path in ["top.txt", "dir/a.txt", "dir/b.txt", "dir/sub/c.txt", "other/d.txt"] {
                _ = try await client.reference(path).putData(Data(path.utf8))
            }
            let root = try await client.reference().listAll()
            #expect(root.items.map(\.path) == ["top.txt"])
            #expect(root.prefixes.map(\.path) == ["dir", "other"])
            let dir = try await client.reference("dir").listAll()
            #expect(dir.items.map(\.path) == ["dir/a.txt", "dir/b.txt"])
            #expect(dir.prefixes == [client.reference("dir/sub")])
            #expect(try await client.reference("nothing").listAll() == ListResult(items: [], prefixes: []))
        }
    }

    @Test func downloadURLNeedsNoCredentials() async throws {
        try await withStorage(rules: Self.signedInRules) { address in
            let ref = Self.client(address).reference("shared/a b.txt")
            let bytes = Data("shared bytes".utf8)
            let uploaded = try await ref.putData(bytes)
            let url = try await ref.downloadURL()
            #expect(url == "\(address.baseURL)/v0/b/\(Self.bucket)/o/shared%2Fa%20b.txt?alt=media&token=\(uploaded.downloadTokens[0])")
            let response = try await HTTPExchange.send(.GET, url).checked()
            #expect(response.body == bytes)
            // Without the token, the rules want a signed-in user.
            let anonymous = Self.client(address, as: .unauthenticated)
            let error = await #expect(throws: ClientError.self) { try await anonymous.reference(ref.path).data() }
            #expect(error?.code == .permissionDenied)
            #expect(error?.message == "Permission denied. No READ permission.")
        }
    }

    @Test func dataRefusesObjectsOverMaxSize() async throws {
        try await withStorage(rules: Self.signedInRules) { address in
            let ref = Self.client(address).reference("ten.bin")
            _ = try await ref.putData(Data(repeating: 7, count: 10))
            #expect(try await ref.data(maxSize: 10) == Data(repeating: 7, count: 10))
            let error = await #expect(throws: ClientError.self) { try await ref.data(maxSize: 9) }
            #expect(error?.code == .failedPrecondition)
        }
    }
}

extension StorageClientTests {
    /// Alice may write PDFs under 1 MiB in `docs/`; any signed-in user may read them.
    static let pdfRules = """
        rules_version = '2';
        service firebase.storage {
          match /b/{bucket}/o {
            match /docs/{file} {
              allow read: if request.auth != null;
              allow write: if request.auth != null && request.auth.uid == 'alice'
                && request.resource.contentType == 'application/pdf'
                && request.resource.size < 1024 * 1024;
            }
          }
        }
        """

    @Test func rulesDenialsArePermissionDenied() async throws {
        try await withStorage(rules: Self.pdfRules) { address in
            let alice = Self.client(address)
            let pdf = StorageMetadata(contentType: "application/pdf")
            let small = Data(repeating: 0x25, count: 1000)
            let oversize = Data(repeating: 0x25, count: 3 << 19)
            let ok = try await alice.reference("docs/ok.pdf").putData(small, metadata: pdf)
            #expect(ok.size == 1000)
            let resumable = try await alice.reference("docs/ok-resumable.pdf").putDataResumable(
                Data(repeating: 1, count: 600 << 10), metadata: pdf, chunkSize: 256 << 10)
            #expect(resumable.size == 600 << 10)

            let text = StorageMetadata(contentType: "text/plain")
            let bob = Self.client(address, as: Self.bob)
            let signedOut = Self.client(address, as: .unauthenticated)
            let denied: [(String, @Sendable () async throws -> StorageMetadata)] = [
                ("text", { try await alice.reference("docs/t.txt").putData(small, metadata: text) }),
                ("text resumable", { try await alice.reference("docs/t2.txt").putDataResumable(small, metadata: text) }),
                ("oversize", { try await alice.reference("docs/big.pdf").putData(oversize, metadata: pdf) }),
                ("oversize resumable", {
                    try await alice.reference("docs/big2.pdf").putDataResumable(oversize, metadata: pdf, chunkSize: 256 << 10)
                }),
                ("bob", { try await bob.reference("docs/bob.pdf").putData(small, metadata: pdf) }),
                ("bob resumable", { try await bob.reference("docs/bob2.pdf").putDataResumable(small, metadata: pdf) }),
                ("signed out", { try await signedOut.reference("docs/anon.pdf").putData(small, metadata: pdf) }),
            ]
            for (label, upload) in denied {
                // The kit's assertFails passes only for a rules denial.
                let error = try await assertFails(upload)
                #expect(error.status == 403, "\(label)")
                #expect(error.message == "Permission denied. No WRITE permission.", "\(label)")
            }
            // Nothing denied was written.
            let admin = Self.client(address, as: .admin)
            let written = try await admin.reference("docs").listAll()
            #expect(written.items.map(\.name) == ["ok-resumable.pdf", "ok.pdf"])
        }
    }

    @Test func authUsersSpeakToStorage() async throws {
        let rules = """
            rules_version = '2';
            service firebase.storage {
              match /b/{bucket}/o {
                match /users/{uid}/{file} {
                  allow read, write: if request.auth != null && request.auth.uid == uid;
                }
              }
            }
            """
        try await withSuite(["auth", "storage"], storageRules: rules) { suite in
            let user = try await AuthClient(address: try Self.address(of: .auth, in: suite))
                .signUp(email: "kit@example.com", password: "secret12")
            let client = Self.client(try Self.address(of: .storage, in: suite), as: user.identity)
            let own = try await client.reference("users/\(user.uid)/avatar.png").putData(Data([1, 2, 3]))
            #expect(own.size == 3)
            let error = await #expect(throws: ClientError.self) {
                try await client.reference("users/someone-else/avatar.png").putData(Data([1]))
            }
            #expect(error?.code == .permissionDenied)
        }
    }

    /// Runs `body` with a Storage emulator (project `demo-kit`) that has `rules`.
    func withStorage(rules: String, _ body: (EmulatorAddress) async throws -> Void) async throws {
        try await withSuite(["storage"], storageRules: rules) { suite in
            try await body(try Self.address(of: .storage, in: suite))
        }
    }

    /// Runs `body` with a suite of `emulators` (project `demo-kit`, free ports), the Storage emulator's rules
    /// set to `storageRules`.
    func withSuite(_ emulators: [String], storageRules: String, _ body: (Suite) async throws -> Void) async throws {
        var config = SuiteConfig(projectID: "demo-kit")
        try config.apply(only: emulators, project: nil, host: nil, ports: emulators.map { "\($0)=0" } + ["hub=0"])
        let suite = try Suite(config: config)
        try await suite.start()
        do {
            try await Self.setRules(storageRules, at: try Self.address(of: .storage, in: suite))
            try await body(suite)
        } catch {
            await suite.stop()
            throw error
        }
        await suite.stop()
    }

    /// A client of the `demo-kit` bucket speaking for `identity`.
    static func client(_ address: EmulatorAddress, as identity: ClientIdentity = alice) -> StorageClient {
        StorageClient(address: address, bucket: bucket, identity: identity)
    }

    static func address(of emulator: EmulatorName, in suite: Suite) throws -> EmulatorAddress {
        EmulatorAddress(host: "127.0.0.1", port: try #require(suite.emulator(emulator)).port)
    }

    /// Loads `rules` as rules-unit-testing does (`PUT /internal/setRules`).
    static func setRules(_ rules: String, at address: EmulatorAddress) async throws {
        let files: JSONValue = [["name": "storage.rules", "content": .string(rules)]]
        let url = "\(address.baseURL)/internal/setRules"
        _ = try await HTTPExchange.send(.PUT, url, json: ["rules": ["files": files]]).checked()
    }
}
