import AuthEmulator
import EmulatorCore
import EmulatorHTTP
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// A JSON reply from the Auth emulator.
struct Reply {
    var status: Int
    var json: JSONValue

    /// `error.message`, for error replies.
    var errorMessage: String? { json["error"]?["message"]?.stringValue }
}

/// Drives an in-process Auth emulator through its HTTP edge without a socket.
struct AuthTestClient {
    static let projectID = "demo-test"
    let emulator: AuthEmulator

    init(projectID: String = AuthTestClient.projectID) throws {
        emulator = try AuthEmulator(projectID: projectID, port: 0)
    }

    init(emulator: AuthEmulator) {
        self.emulator = emulator
    }

    /// Runs `body` with a router-level test client.
    func run(_ body: @Sendable (Session) async throws -> Void) async throws {
        let app = Application(responder: emulator.responder)
        try await app.test(.router) { client in
            try await body(Session(client: client))
        }
    }

    /// One test session's requests.
    struct Session {
        let client: any TestClientProtocol

        /// `POST /identitytoolkit.googleapis.com/v1/<path>?key=fake` (or admin with `Bearer owner`).
        func call(_ path: String, _ body: JSONValue = [:], admin: Bool = false) async throws -> Reply {
            let prefix = path.hasPrefix("/") ? "" : "/identitytoolkit.googleapis.com/v1/"
            let uri = prefix + path + (admin || path.contains("?") ? "" : "?key=fake-api-key")
            return try await request(.post, uri, body: body, admin: admin)
        }

        /// Any request; `body` is sent as JSON unless nil.
        func request(
            _ method: HTTPRequest.Method, _ uri: String, body: JSONValue? = nil, admin: Bool = false,
            headers extra: HTTPFields = [:]
        ) async throws -> Reply {
            var headers = extra
            if admin { headers[.authorization] = "Bearer owner" }
            var buffer: ByteBuffer?
            if let body {
                headers[.contentType] = "application/json"
                buffer = ByteBuffer(string: body.serialized())
            }
            return try await client.execute(uri: uri, method: method, headers: headers, body: buffer) { response in
                let text = String(buffer: response.body)
                let json = text.isEmpty ? JSONValue.null : ((try? JSONValue.parse(text)) ?? .string(text))
                return Reply(status: Int(response.status.code), json: json)
            }
        }

        /// Signs up an email/password user and returns the reply's fields.
        func signUp(email: String, password: String = "password1") async throws -> [String: JSONValue] {
            let reply = try await call("accounts:signUp", ["email": .string(email), "password": .string(password)])
            #expect(reply.status == 200, "\(reply.json)")
            return reply.json.objectValue ?? [:]
        }
    }
}

/// The claims of an unsigned JWT.
func claims(of token: JSONValue?) -> [String: JSONValue] {
    guard let text = token?.stringValue, let jwt = UnsignedJWT(decoding: text) else { return [:] }
    return jwt.payload
}
