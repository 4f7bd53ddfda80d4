import EmulatorCore
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@Suite struct HTTPEdgeTests {
    @Test func rootReportsReady() async throws {
        try await AuthTestClient().run { session in
            let reply = try await session.request(.get, "/")
            #expect(reply.json["authEmulator"]?["ready"] == true)
        }
    }

    @Test func unknownPathIsGoogleNotFound() async throws {
        try await AuthTestClient().run { session in
            let reply = try await session.request(.post, "/identitytoolkit.googleapis.com/v1/accounts:nope?key=k", body: [:])
            #expect(reply.status == 404)
            #expect(reply.json["error"]?["status"] == "NOT_FOUND")
        }
    }

    @Test func malformedJSONIsInvalidArgument() async throws {
        try await AuthTestClient().run { session in
            let status = try await session.client.execute(
                uri: "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", method: .post,
                headers: [.contentType: "application/json"], body: .init(string: "{\"email\": ")
            ) { response -> (Int, JSONValue) in
                (Int(response.status.code), try JSONValue.parse(String(buffer: response.body)))
            }
            #expect(status.0 == 400)
            #expect(status.1["error"]?["status"] == "INVALID_ARGUMENT")
            #expect(status.1["error"]?["message"]?.stringValue?.hasPrefix("Invalid JSON payload received.") == true)
        }
    }

    @Test func corsPreflightReflectsOriginAndHeaders() async throws {
        try await AuthTestClient().run { session in
            try await session.client.execute(
                uri: "/identitytoolkit.googleapis.com/v1/accounts:signUp", method: .options,
                headers: [
                    .origin: "http://localhost:5173", .accessControlRequestMethod: "POST",
                    .accessControlRequestHeaders: "content-type,x-client-version",
                ]
            ) { response in
                #expect(response.status == .noContent)
                #expect(response.headers[.accessControlAllowOrigin] == "http://localhost:5173")
                #expect(response.headers[.accessControlAllowHeaders] == "content-type,x-client-version")
            }
            let reply = try await session.client.execute(
                uri: "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", method: .post,
                headers: [.origin: "http://localhost:5173", .contentType: "application/json"], body: .init(string: "{}")
            ) { $0.headers[.accessControlAllowOrigin] }
            #expect(reply == "http://localhost:5173")
        }
    }

    @Test func projectsAreIsolated() async throws {
        try await AuthTestClient().run { session in
            _ = try await session.call(
                "projects/project-a/accounts", ["email": "same@example.com", "password": "password1"], admin: true)
            let other = try await session.call(
                "projects/project-b/accounts", ["email": "same@example.com", "password": "password1"], admin: true)
            #expect(other.status == 200)
            let clear = try await session.request(.delete, "/emulator/v1/projects/project-a/accounts")
            #expect(clear.json == [:])
            let lookupA = try await session.call(
                "projects/project-a/accounts:lookup", ["email": ["same@example.com"]], admin: true)
            #expect(lookupA.json["users"] == nil)
            let lookupB = try await session.call(
                "projects/project-b/accounts:lookup", ["email": ["same@example.com"]], admin: true)
            #expect(lookupB.json["users"]?.arrayValue?.count == 1)
        }
    }
}
