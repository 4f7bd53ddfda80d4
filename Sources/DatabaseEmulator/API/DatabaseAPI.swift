import DatabaseRules
import DatabaseTree
import EmulatorCore
import EmulatorHTTP
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The Realtime Database REST API (`/<path>.json`, production's, with server-sent events for
/// `Accept: text/event-stream`) and the emulator's own endpoints (`/.settings/rules.json`,
/// `/.inspect/databases.json`, `/.inspect/coverage` and `.json`). Errors are `{"error": "..."}` as production sends.
struct DatabaseAPI: Sendable {
    let databases: Databases
    /// The wire protocol over long polling (`/.lp`).
    let longPolling: LongPollEndpoint
    /// Whether a REST query ordered by a child or by value without its `.indexOn` is refused, as production
    /// refuses it (otherwise it runs, as in the official emulator).
    var strictIndexes = false
    let pushIDs = PushIDGenerator()

    /// The largest body a write may carry (production's REST limit: 256 MB).
    static let bodyLimit = 256 << 20

    /// A REST failure: status and message.
    struct Failure: Error {
        var status: Int
        var message: String
        var headers: HTTPFields = [:]
        var body: JSONValue?

        init(_ status: Int, _ message: String) {
            self.status = status
            self.message = message
        }
    }

    /// Answers one request.
    func handle(_ request: Request, context: EmulatorContext) async throws -> Response {
        do {
            return try await route(request)
        } catch let failure as Failure {
            var response = Response.json(failure.body ?? ["error": .string(failure.message)], status: failure.status)
            for field in failure.headers { response.headers.append(field) }
            return response
        }
    }

    private func route(_ request: Request) async throws -> Response {
        let fields = request.queryFields
        let namespace: String
        do {
            namespace = try databases.namespace(requested: fields["ns"], host: request.head.authority)
        } catch {
            throw Failure(400, error.message)
        }
        if let callback = fields["callback"], !Self.isValidCallback(callback) {
            throw Failure(400, "Invalid callback: it must be a JavaScript identifier or property path (letters, digits, _, $ and .).")
        }
        let path = request.uri.path
        switch path {
        case "/.settings/rules.json":
            return try await rules(request, namespace: namespace)
        case "/.inspect/databases.json":
            return .json(.array(databases.namespaces.map { .object(["name": .string($0)]) }))
        case "/.inspect/coverage.json":
            return .json(databases.database(namespace).rules.coverageReport())
        case "/.inspect/coverage":
            return .text(databases.database(namespace).rules.coverageHTML(), contentType: "text/html; charset=utf-8")
        case "/.lp":
            return await longPolling.respond(request, fields: fields, namespace: namespace, host: request.head.authority ?? "localhost")
        case "/.settings/functionTriggers.json":
            // Functions triggers: accepted, as there is no Functions emulator to call.
            return .json(.null)
        default:
            break
        }
        guard path.hasSuffix(".json") else {
            throw Failure(404, "Not found. Realtime Database REST paths end with .json (for example /users.json).")
        }
        let database = databases.database(namespace)
        let location = Self.location(path)
        return try await data(request, at: location, in: database, fields: fields)
    }

    /// The database path of a `/a/b.json` request path (segments percent-decoded).
    static func location(_ path: String) -> DatabasePath {
        let trimmed = path.dropLast(".json".count)
        return DatabasePath(keys: trimmed.split(separator: "/").map { String($0).percentDecoded ?? String($0) })
    }

    /// Who a request speaks for: `auth=` or `access_token=` parameters, else the `Authorization` header.
    static func auth(_ request: Request, fields: FormFields) throws(Failure) -> DatabaseAuth {
        let credential: Credential
        if let token = fields["auth"] ?? fields["access_token"] {
            credential = Credential(token: token)
        } else {
            credential = Credential(authorizationHeader: request.headers[.authorization])
        }
        guard let auth = DatabaseAuth(credential) else { throw Failure(401, "Could not parse auth token.") }
        // The Admin SDKs' databaseAuthVariableOverride: an admin acting as a given user (or as nobody).
        if auth == .admin, let override = fields["auth_variable_override"] {
            guard let variable = try? JSONValue.parse(override) else {
                throw Failure(400, "Invalid auth_variable_override: it must be JSON.")
            }
            return .user(variable == .null ? nil : variable)
        }
        return auth
    }

    // MARK: - Rules (emulator only)

    /// `GET /.settings/rules.json` returns the rules' text; `PUT` replaces them. Both need admin, as
    /// production's (an access token) does.
    private func rules(_ request: Request, namespace: String) async throws -> Response {
        guard request.method == .get || request.method == .put || request.method == .post else {
            throw Failure(405, "Method not allowed")
        }
        guard try Self.auth(request, fields: request.queryFields) == .admin else {
            throw Failure(401, "Permission denied")
        }
        let database = databases.database(namespace)
        switch request.method {
        case .get:
            return .json(data: Data(database.rules.source.utf8))
        default:
            let body = try await request.collectBody(limit: Self.bodyLimit)
            do {
                try databases.loadRules(String(decoding: body, as: UTF8.self), namespace: namespace)
            } catch let error as DurableStoreError {
                throw Failure(503, "The rules could not be stored: \(error.message)")
            } catch {
                throw Failure(400, (error as? DatabaseRulesError)?.message ?? "\(error)")
            }
            return .json(["status": "ok"])
        }
    }

    // MARK: - Rendering

    /// A JSON body as the request asked: compact, or indented for `print=pretty`.
    static func body(_ value: JSONValue, fields: FormFields, status: Int = 200, headers: HTTPFields = [:]) -> Response {
        var text = value.serialized()
        if fields["print"] == "pretty" { text = value.prettySerialized() }
        if let callback = fields["callback"] {
            text = "\(callback)(\(text));"
        }
        var response = Response.json(data: Data(text.utf8), status: status)
        if fields["callback"] != nil {
            response.headers[.contentType] = "application/javascript; charset=utf-8"
            response.headers[.xContentTypeOptions] = "nosniff"
        }
        if let name = fields["download"] {
            response.headers[.contentDisposition] = "attachment; filename=\"\(name)\""
        }
        for field in headers { response.headers.append(field) }
        return response
    }

    /// Whether a JSONP `callback` is a JavaScript name or property path (`cb`, `jQuery_1`, `a.b$c`), at most
    /// 256 characters: nothing else is echoed into a script.
    static func isValidCallback(_ callback: String) -> Bool {
        guard callback.utf8.count <= 256 else { return false }
        return callback.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { name in
            guard let first = name.unicodeScalars.first, first.properties.numericType == nil else { return false }
            return name.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "_" || $0 == "$")
            }
        }
    }

    /// The failure a database error is over REST.
    static func failure(_ error: DatabaseError, format: (DataNode) -> JSONValue) -> Failure {
        switch error {
        case .permissionDenied: return Failure(401, "Permission denied")
        case .invalid(let message): return Failure(400, message)
        case .tooBig(let message): return Failure(413, message)
        case .unavailable(let message): return Failure(503, message)
        case .dataStale: return Failure(409, error.message)
        case .preconditionFailed(let current):
            var failure = Failure(412, error.message)
            failure.body = format(current)
            failure.headers[.eTag] = Database.etag(of: current)
            return failure
        }
    }
}
