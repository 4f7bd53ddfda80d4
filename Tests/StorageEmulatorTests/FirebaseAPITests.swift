import EmulatorCore
import EmulatorHTTP
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import SecurityRules
import Testing

@testable import StorageEmulator

/// The Firebase v0 API in process: uploads of each protocol, reads, rules with `firestore.get()`.
@Suite struct FirebaseAPITests {
    /// A conversation `c1` with participants alice and bob, as Firestore would hold it.
    struct Conversations: RulesDataSource {
        func document(at path: RulePath) -> RuleValue? {
            guard path.segments.last == "c1" else { return nil }
            return .map(["data": .map(["participantIds": .list([.string("alice"), .string("bob")])]), "id": .string("c1")])
        }
        func documentAfter(at path: RulePath) -> RuleValue? { document(at: path) }
    }

    static let rules = """
        rules_version = '2';
        service firebase.storage {
          match /b/{bucket}/o {
            match /documents/{conversationId}/{messageId}/{fileName} {
              allow read: if request.auth != null && request.auth.uid in
                firestore.get(/databases/(default)/documents/conversations/$(conversationId)).data.participantIds;
              allow write: if request.auth != null && request.auth.uid in
                firestore.get(/databases/(default)/documents/conversations/$(conversationId)).data.participantIds
                && request.resource.size < 16 && request.resource.contentType == 'application/pdf';
            }
          }
        }
        """

    struct Reply {
        var status: Int
        var headers: HTTPFields
        var body: String
        var json: JSONValue { (try? JSONValue.parse(body)) ?? .null }
    }

    /// Runs `body` against a fresh emulator with the rules above.
    func run(_ body: @Sendable (TestClient) async throws -> Void) async throws {
        let emulator = try StorageEmulator(projectID: "demo-test", port: 0, documents: Conversations())
        #expect(emulator.setRules(Self.rules).filter { $0.severity == .error }.isEmpty)
        let app = Application(responder: emulator.responder)
        try await app.test(.router) { client in try await body(TestClient(client: client)) }
    }

    struct TestClient {
        let client: any TestClientProtocol

        func send(
            _ method: HTTPRequest.Method, _ uri: String, user: String? = nil, headers: HTTPFields = [:], body: String? = nil
        ) async throws -> Reply {
            var headers = headers
            if let user {
                let token = UnsignedJWT(payload: ["sub": .string(user), "user_id": .string(user)]).encoded
                headers[.authorization] = "Firebase \(token)"
            }
            return try await client.execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }) {
                Reply(status: Int($0.status.code), headers: $0.headers, body: String(buffer: $0.body))
            }
        }
    }

    static let path = "/v0/b/app/o/documents%2Fc1%2Fm1%2Fdoc.pdf"

    @Test func participantsUploadAndReadOthersAreRefused() async throws {
        try await run { client in
            let pdf: HTTPFields = [.contentType: "application/pdf"]
            let created = try await client.send(.post, "/v0/b/app/o?name=documents%2Fc1%2Fm1%2Fdoc.pdf", user: "alice", headers: pdf, body: "%PDF-1.4")
            #expect(created.status == 200, "\(created.body)")
            #expect(created.json["name"] == "documents/c1/m1/doc.pdf")
            #expect(created.json["size"] == "8")
            #expect(created.json["contentType"] == "application/pdf")
            let token = try #require(created.json["downloadTokens"]?.stringValue)

            let read = try await client.send(.get, Self.path + "?alt=media", user: "bob")
            #expect(read.status == 200)
            #expect(read.body == "%PDF-1.4")
            let denied = try await client.send(.get, Self.path + "?alt=media", user: "mallory")
            #expect(denied.status == 403)
            #expect(denied.json == ["error": ["code": 403, "message": "Permission denied. No READ permission."]])
            let withToken = try await client.send(.get, Self.path + "?alt=media&token=\(token)")
            #expect(withToken.body == "%PDF-1.4", "a download token skips the rules")

            let tooBig = try await client.send(.post, "/v0/b/app/o?name=documents%2Fc1%2Fm1%2Fbig.pdf", user: "alice", headers: pdf, body: String(repeating: "x", count: 16))
            #expect(tooBig.status == 403)
            #expect(tooBig.json["error"]?["message"] == "Permission denied. No WRITE permission.")
            let text = try await client.send(.post, "/v0/b/app/o?name=documents%2Fc1%2Fm1%2Fa.txt", user: "alice", headers: [.contentType: "text/plain"], body: "hi")
            #expect(text.status == 403)
            let outsider = try await client.send(.post, "/v0/b/app/o?name=documents%2Fc1%2Fm1%2Fx.pdf", user: "mallory", headers: pdf, body: "%PDF")
            #expect(outsider.status == 403)
            let missing = try await client.send(.get, "/v0/b/app/o/documents%2Fc1%2Fm1%2Fnone.pdf", user: "alice")
            #expect(missing.status == 404)
        }
    }

    @Test func resumableUploadsFollowTheGoogleUploadProtocol() async throws {
        try await run { client in
            let start = try await client.send(
                .post, "/v0/b/app/o?name=documents%2Fc1%2Fm1%2Fr.pdf", user: "alice",
                headers: [.googUploadProtocol: "resumable", .googUploadCommand: "start",
                          .googUploadHeaderContentLength: "10", .googUploadHeaderContentType: "application/pdf"],
                body: "{\"name\":\"documents/c1/m1/r.pdf\"}")
            #expect(start.status == 200)
            #expect(start.headers[.googUploadStatus] == "active")
            let url = try #require(start.headers[.googUploadURL].flatMap { URLComponents(string: $0) })
            let uri = url.path + "?" + (url.percentEncodedQuery ?? "")
            let chunk = try await client.send(.post, uri, headers: [.googUploadCommand: "upload", .googUploadOffset: "0"], body: "%PDF-")
            #expect(chunk.headers[.googUploadStatus] == "active")
            let gap = try await client.send(.post, uri, headers: [.googUploadCommand: "upload", .googUploadOffset: "7"], body: "x")
            #expect(gap.status == 400)
            let query = try await client.send(.post, uri, headers: [.googUploadCommand: "query"])
            #expect(query.headers[.googUploadSizeReceived] == "5")
            // A retried chunk (offset 3) overlaps two bytes already kept.
            let last = try await client.send(.post, uri, headers: [.googUploadCommand: "upload, finalize", .googUploadOffset: "3"], body: "F-1.4")
            #expect(last.status == 200, "\(last.body)")
            #expect(last.headers[.googUploadStatus] == "final")
            #expect(last.json["size"] == "8")
            let again = try await client.send(.post, uri, headers: [.googUploadCommand: "finalize"])
            #expect(again.status == 200)
            #expect(again.headers[.googUploadStatus] == "final")
            let read = try await client.send(.get, Self.path.replacingOccurrences(of: "doc.pdf", with: "r.pdf") + "?alt=media", user: "bob")
            #expect(read.body == "%PDF-1.4")
        }
    }

    @Test func bucketsCanHaveRulesOfTheirOwn() async throws {
        let emulator = try StorageEmulator(projectID: "demo-test", port: 0)
        let open = "rules_version = '2'; service firebase.storage { match /b/{bucket}/o { match /{all=**} { allow read, write; } } }"
        let closed = "rules_version = '2'; service firebase.storage { match /b/{bucket}/o { match /{all=**} { allow read, write: if false; } } }"
        #expect(emulator.rules.setRules([
            StorageRules.File(name: "open.rules", content: open, bucket: "public"),
            StorageRules.File(name: "closed.rules", content: closed, bucket: "private"),
        ]).isEmpty)
        let app = Application(responder: emulator.responder)
        try await app.test(.router) { raw in
            let client = TestClient(client: raw)
            #expect(try await client.send(.post, "/v0/b/public/o?name=a", body: "x").status == 200)
            #expect(try await client.send(.post, "/v0/b/private/o?name=a", body: "x").status == 403)
            let other = try await client.send(.post, "/v0/b/other/o?name=a", body: "x")
            #expect(other.json["error"]?["message"] == "Permission denied. Storage Emulator has no loaded ruleset.")
        }
    }

    @Test func rulesFilesAreReloadedWhenTheyChange() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        @Sendable func rules(_ allow: Bool) -> String {
            "rules_version = '2'; service firebase.storage { match /b/{bucket}/o { match /{all=**} { allow read, write: if \(allow); } } }"
        }
        let all = folder.appendingPathComponent("storage.rules").path
        let uploads = folder.appendingPathComponent("uploads.rules").path
        try rules(false).write(toFile: all, atomically: true, encoding: .utf8)
        try rules(true).write(toFile: uploads, atomically: true, encoding: .utf8)
        let emulator = try StorageEmulator(projectID: "demo-test", port: 0, rulesFile: all, bucketRulesFiles: ["uploads": uploads])
        let app = Application(responder: emulator.responder)
        try await app.test(.router) { raw in
            let client = TestClient(client: raw)
            #expect(try await client.send(.post, "/v0/b/app/o?name=a", body: "x").status == 403)
            #expect(try await client.send(.post, "/v0/b/uploads/o?name=a", body: "x").status == 200)
            try rules(true).write(toFile: all, atomically: true, encoding: .utf8)
            try await Task.sleep(for: .milliseconds(700))
            #expect(try await client.send(.post, "/v0/b/app/o?name=a", body: "x").status == 200)
            #expect(try await client.send(.post, "/v0/b/uploads/o?name=b", body: "x").status == 200)
        }
        #expect(throws: StorageRulesFileError.self) {
            try StorageEmulator(projectID: "demo-test", port: 0, rulesFile: folder.appendingPathComponent("none.rules").path)
        }
    }

    @Test func uploadsBeyondTheMaximumSizeAre413AndLeaveNothing() async throws {
        let emulator = try StorageEmulator(projectID: "demo-test", port: 0, maxUploadSize: 4)
        let app = Application(responder: emulator.responder)
        try await app.test(.router) { raw in
            let client = TestClient(client: raw)
            let owner: HTTPFields = [.authorization: "Bearer owner"]
            let big = try await client.send(.post, "/v0/b/app/o?name=big", headers: owner, body: "12345")
            #expect(big.status == 413)
            #expect(try await client.send(.get, "/v0/b/app/o/big", headers: owner).status == 404)
            #expect(try await client.send(.post, "/v0/b/app/o?name=small", headers: owner, body: "1234").status == 200)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: emulator.store.directory.path).count == 1)
    }

    @Test func listingNeedsAPrefixEndingWithASlash() async throws {
        try await run { client in
            let bad = try await client.send(.get, "/v0/b/app/o?prefix=documents", user: "alice")
            #expect(bad.status == 400)
            #expect(bad.json["error"]?["message"] == "The prefix parameter is required to be empty or ends with a single / character.")
            let noRules = try StorageEmulator(projectID: "demo-test", port: 0)
            let app = Application(responder: noRules.responder)
            try await app.test(.router) { raw in
                let reply = try await TestClient(client: raw).send(.get, "/v0/b/app/o/x", user: "alice")
                #expect(reply.status == 403)
                #expect(reply.json["error"]?["message"] == "Permission denied. Storage Emulator has no loaded ruleset.")
            }
        }
    }
}
