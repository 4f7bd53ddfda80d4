import EmulatorCore
import EmulatorHTTP
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOFoundationCompat

/// The Firestore emulator's HTTP edge: REST v1 (`/v1/projects/{p}/databases/{d}/documents...`), translating
/// proto3 JSON requests to the service's typed requests and its results back, and the emulator-only
/// endpoints (clearing, rules, coverage, export).
struct FirestoreREST: Sendable {
    /// The service every method runs.
    let service: FirestoreService

    /// The service's store (for the emulator-only endpoints).
    var store: FirestoreStore { service.store }
    /// The service's rules (for the emulator-only endpoints).
    var rules: FirestoreRules { service.rules }

    /// The largest request body accepted (production's request limit is 10 MiB; a commit of 500 documents
    /// near the 1 MiB document limit needs more, which the official emulator also accepts).
    static let bodyLimit = 256 * 1024 * 1024

    /// Query parameters every Google API accepts besides a method's own.
    static let systemParameters: Set<String> = [
        "key", "$key", "alt", "$alt", "fields", "$fields", "prettyPrint", "$prettyPrint", "pp", "quotaUser",
        "$quotaUser", "access_token", "oauth_token", "callback", "$callback", "upload_protocol", "uploadType",
        "$.xgafv", "$httpHeaders", "bearer_token",
    ]

    /// Answers `request`; a Firestore error becomes Google's JSON error envelope here, and only here.
    func handle(_ request: Request, context: EmulatorContext) async throws -> Response {
        do {
            return try await respond(to: request)
        } catch let error as FirestoreError {
            throw error.apiError
        }
    }

    private func respond(to request: Request) async throws -> Response {
        if request.uri.path == "/" || request.uri.path.isEmpty, request.method == .get {
            return .text("Ok")
        }
        guard let route = try RESTRoute(method: request.method, path: request.uri.path) else {
            throw FirestoreError(.notFound, "Not found: \(request.method) \(request.uri.path)")
        }
        let body = try await Self.body(of: request)
        let call = RESTCall(
            context: service.context(authorization: request.headers[.authorization]), query: request.queryFields, body: body)
        switch route {
        case .clear(let database):
            try store.clear(database)
            return .json([:])
        case .securityRules(let project): return .json(try setSecurityRules(project, call))
        case .ruleCoverage(let project, let html): return ruleCoverage(project, html: html)
        case .export(let project): return .json(try await export(project, call))
        case .missingIndexes(let project): return .json(service.indexes.missing(project: project))
        case .database(let database, .commit): return .json(writing: try await commitWaiting(database, call))
        default: return .json(writing: try run(route, call))
        }
    }

    /// Runs a method of REST proper (`/v1/...`) but Commit, which may wait; none of them waits.
    private func run(_ route: RESTRoute, _ call: RESTCall) throws(FirestoreError) -> any JSONWritable {
        switch route {
        case .getDocument(let database, let path): return try getDocument(database, path, call)
        case .listDocuments(let database, let parent, let collectionID):
            return try listDocuments(database, parent: parent, collectionID: collectionID, call)
        case .createDocument(let database, let parent, let collectionID):
            return try createDocument(database, parent: parent, collectionID: collectionID, call)
        case .updateDocument(let database, let path): return try updateDocument(database, path, call)
        case .deleteDocument(let database, let path): return try deleteDocument(database, path, call)
        case .database(let database, let method): return try run(method, database, call)
        case .parent(let database, let parent, let method): return try run(method, database, parent, call)
        case .listDatabases(let project): return try listDatabases(project, call)
        case .clear, .securityRules, .ruleCoverage, .export, .missingIndexes:
            throw FirestoreError(.internal, "\(route) is an emulator endpoint, not a REST method.")
        }
    }

    private func run(_ method: RESTRoute.DatabaseMethod, _ database: DatabaseName, _ call: RESTCall) throws(FirestoreError)
        -> JSONValue
    {
        switch method {
        case .batchGet: return try batchGet(database, call)
        case .beginTransaction: return try beginTransaction(database, call)
        case .commit: throw FirestoreError(.internal, "Commit is answered by commit(_:_:), which may wait.")
        case .rollback: return try rollback(database, call)
        case .batchWrite: return try batchWrite(database, call)
        case .listen, .write:
            throw FirestoreError(
                .unimplemented, "\(method.rawValue.capitalized) is a streaming method: use gRPC or WebChannel, not REST.")
        }
    }

    private func run(
        _ method: RESTRoute.ParentMethod, _ database: DatabaseName, _ parent: DocumentPath, _ call: RESTCall
    ) throws(FirestoreError) -> any JSONWritable {
        switch method {
        case .runQuery: return try runQuery(database, parent, call)
        case .runAggregationQuery: return try runAggregationQuery(database, parent, call)
        case .partitionQuery: return try partitionQuery(database, parent, call)
        case .listCollectionIds: return try listCollectionIds(database, parent, call)
        }
    }

    /// The request body as JSON (`{}` when empty); the web SDK sends JSON as `text/plain`.
    private static func body(of request: Request) async throws -> JSONValue {
        guard request.method != .get, request.method != .head else { return [:] }
        return try body(from: try await request.collectBody(limit: bodyLimit))
    }

    /// A body's bytes as JSON: `{}` when there are none (or only white space), else an object.
    private static func body(from data: Data) throws(FirestoreError) -> JSONValue {
        guard data.contains(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) else { return [:] }
        guard let json = try? JSONValue.parse(data) else {
            throw FirestoreError(.invalidArgument, "Invalid JSON payload received. Unexpected token.")
        }
        guard json.objectValue != nil else {
            throw FirestoreError(.invalidArgument, "Invalid JSON payload received. Expected an object at the top level.")
        }
        return json
    }
}

/// REST proper (`/v1/...`) is answered on the connection's event loop: every method runs under the store's
/// lock and returns, so a task would only add two thread hops. Emulator endpoints and browsers' requests
/// (CORS) take the server's responder.
extension FirestoreREST: ImmediateResponder {
    func answersImmediately(_ request: ImmediateRequest) -> Bool {
        guard request.path.hasPrefix("/v1/") else { return false }
        return request.method == .get || request.method == .post || request.method == .patch || request.method == .delete
    }

    func respond(to request: ImmediateRequest, body: ByteBuffer) -> ImmediateResponse? {
        do throws(FirestoreError) {
            guard let route = try RESTRoute(method: request.method, path: request.path) else {
                throw FirestoreError(.notFound, "Not found: \(request.method) \(request.path)")
            }
            let context = service.context(authorization: request.authorization)
            let query = FormFields(parsing: request.query)
            // The common commits and updates are read from the body's bytes, without a JSON tree.
            if case .database(let database, .commit) = route, let commit = RESTWriteReading.commit(body, database: database) {
                return try self.commit(commit, context).map { .json(writing: $0) }
            }
            if case .updateDocument(let database, let path) = route, let fields = RESTWriteReading.documentFields(body) {
                let call = RESTCall(context: context, query: query, body: [:])
                return .json(writing: try updateDocument(database, path, call, fields: fields))
            }
            let json = request.method == .get ? [:] : try Self.body(from: Data(buffer: body))
            let call = RESTCall(context: context, query: query, body: json)
            if case .database(let database, .commit) = route {
                // A commit that has to wait for an older transaction goes on to `respond(to:)`, which can.
                return try commit(database, call).map { .json(writing: $0) }
            }
            return .json(writing: try run(route, call))
        } catch {
            return .error(error.apiError)
        }
    }
}

/// One REST call's inputs, decoded once.
struct RESTCall {
    /// Who is calling and when.
    var context: CallContext
    /// The URL query.
    var query: FormFields
    /// The JSON body (`{}` for none).
    var body: JSONValue

    /// Refuses body fields other than `allowed`, as production's JSON parser does.
    /// `location` names the message the body is (`document` for a Document body).
    /// (The names are a short list: a `Set` literal built on every call cost more than searching it.)
    func checkBody(allowing allowed: [String], at location: String? = nil) throws(FirestoreError) {
        // The first unknown name in sorted order, as production names it; sorted only when there is one.
        if let key = body.objectValue?.keys.filter({ !allowed.contains($0) }).min() {
            let at = location.map { " at '\($0)'" } ?? ""
            throw FirestoreError(.invalidArgument, "Invalid JSON payload received. Unknown name \"\(key)\"\(at): Cannot find field.")
        }
    }

    /// Refuses query parameters other than `allowed` and the system parameters.
    func checkQuery(allowing allowed: [String]) throws(FirestoreError) {
        for (name, _) in query.pairs where !allowed.contains(name) && !FirestoreREST.systemParameters.contains(name) {
            throw FirestoreError(
                .invalidArgument, "Invalid JSON payload received. Unknown name \"\(name)\": Cannot bind query parameter. Field '\(name)' could not be found in request message.")
        }
    }
}
