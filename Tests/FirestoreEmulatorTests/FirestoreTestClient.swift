import EmulatorCore
import EmulatorHTTP
import FirestoreEmulator
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// A JSON reply from the Firestore emulator.
struct Reply {
    var status: Int
    var json: JSONValue

    /// `error.message`, for error replies.
    var errorMessage: String? { json["error"]?["message"]?.stringValue }
    /// `error.status`, for error replies.
    var errorStatus: String? { json["error"]?["status"]?.stringValue }
}

/// Who a test request speaks for.
enum Caller {
    case owner
    case anonymous
    case user(String)

    var authorization: String? {
        switch self {
        case .owner: return "Bearer owner"
        case .anonymous: return nil
        case .user(let uid): return "Bearer " + UnsignedJWT(payload: ["sub": .string(uid), "user_id": .string(uid)]).encoded
        }
    }
}

/// Drives an in-process Firestore emulator through its HTTP edge without a socket.
struct FirestoreTestClient {
    static let projectID = "demo-test"
    let emulator: FirestoreEmulator

    init(projectID: String = FirestoreTestClient.projectID) throws {
        emulator = try FirestoreEmulator(projectID: projectID, port: 0)
    }

    init(emulator: FirestoreEmulator) {
        self.emulator = emulator
    }

    /// Runs `body` with a router-level test client.
    func run(_ body: @Sendable (Session) async throws -> Void) async throws {
        let app = Application(responder: emulator.responder)
        try await app.test(.router) { client in
            try await body(Session(client: client, projectID: emulator.projectID))
        }
    }

    /// One test session's requests.
    struct Session {
        let client: any TestClientProtocol
        let projectID: String

        /// `/v1/projects/{p}/databases/(default)/documents`.
        var root: String { "/v1/projects/\(projectID)/databases/(default)/documents" }

        /// The full name of the document at `path`.
        func name(_ path: String) -> String { "projects/\(projectID)/databases/(default)/documents/\(path)" }

        /// Any request; `body` is sent as JSON unless nil.
        func request(
            _ method: HTTPRequest.Method, _ uri: String, body: JSONValue? = nil, as caller: Caller = .owner,
            headers extra: HTTPFields = [:]
        ) async throws -> Reply {
            var headers = extra
            if let authorization = caller.authorization { headers[.authorization] = authorization }
            var buffer: ByteBuffer?
            if let body {
                if headers[.contentType] == nil { headers[.contentType] = "application/json" }
                buffer = ByteBuffer(string: body.serialized())
            }
            return try await client.execute(uri: uri, method: method, headers: headers, body: buffer) { response in
                let text = String(buffer: response.body)
                let json = text.isEmpty ? JSONValue.null : ((try? JSONValue.parse(text)) ?? .string(text))
                return Reply(status: Int(response.status.code), json: json)
            }
        }

        /// Sets the document at `path` to `fields` (proto3 JSON values) with a commit; returns the reply.
        @discardableResult
        func set(_ path: String, _ fields: JSONValue, as caller: Caller = .owner) async throws -> Reply {
            try await commit([["update": ["name": .string(name(path)), "fields": fields]]], as: caller)
        }

        /// Commits `writes`.
        @discardableResult
        func commit(_ writes: [JSONValue], transaction: String? = nil, as caller: Caller = .owner) async throws -> Reply {
            var body: JSONValue = ["writes": .array(writes)]
            if let transaction, case .object(var object) = body {
                object["transaction"] = .string(transaction)
                body = .object(object)
            }
            return try await request(.post, root + ":commit", body: body, as: caller)
        }

        /// Runs a structured query under the root; returns the document names.
        func query(_ structuredQuery: JSONValue, as caller: Caller = .owner) async throws -> (Reply, [String]) {
            let reply = try await request(.post, root + ":runQuery", body: ["structuredQuery": structuredQuery], as: caller)
            let names = (reply.json.arrayValue ?? []).compactMap { $0["document"]?["name"]?.stringValue }
            return (reply, names.map { String($0.dropFirst(name("").count)) })
        }

        /// Loads `rules` for the session's project.
        func loadRules(_ rules: String) async throws {
            let reply = try await request(
                .put, "/emulator/v1/projects/\(projectID):securityRules",
                body: ["rules": ["files": [["name": "firestore.rules", "content": .string(rules)]]]])
            #expect(reply.status == 200, "\(reply.json)")
        }
    }
}

/// `{"integerValue": "n"}`.
func int(_ value: Int) -> JSONValue { ["integerValue": .string(String(value))] }
/// `{"stringValue": text}`.
func string(_ text: String) -> JSONValue { ["stringValue": .string(text)] }
