import EmulatorCore
import EmulatorHTTP
import Foundation
import HTTPTypes
import Hummingbird

/// The Auth emulator's HTTP edge: Identity Toolkit and Secure Token under their host-name path prefixes
/// (`/identitytoolkit.googleapis.com/v1/...`), legacy v3 paths, and the emulator-only endpoints.
struct AuthAPI: Sendable {
    let store: AuthStore
    let defaultProjectID: String
    let clock: any EmulatorClock
    let routes: [AuthRoute]

    /// The largest request body accepted (the official emulator takes up to 1 GB).
    static let bodyLimit = 32 * 1024 * 1024

    init(store: AuthStore, defaultProjectID: String, clock: any EmulatorClock) {
        self.store = store
        self.defaultProjectID = defaultProjectID
        self.clock = clock
        self.routes = AuthRoutes.all
    }

    func handle(_ request: Request, context: EmulatorContext) async throws -> Response {
        var segments = Self.pathSegments(of: request)
        if segments.isEmpty, request.method == .get {
            return .json([
                "authEmulator": [
                    "ready": true, "docs": "https://firebase.google.com/docs/emulator-suite",
                    "apiSpec": "/emulator/openapi.json",
                ]
            ])
        }
        if let page = try await AuthPages.response(for: request, segments: segments, api: self) { return page }
        if let page = try await IdPPages.response(for: request, segments: segments, api: self) { return page }
        if let rewritten = try LegacyPaths.rewrite(segments, method: request.method) { segments = rewritten }
        let candidates = routes.compactMap { route in route.match(segments).map { (route, $0) } }
        guard !candidates.isEmpty else { throw APIError.authNotFound }
        guard let (route, parameters) = candidates.first(where: { $0.0.method == request.method }) else {
            throw APIError.authNotFound
        }
        let call = try await bind(request, route: route, parameters: parameters)
        let result = try await run(route.action, call: call)
        return .json(result)
    }

    func run(_ action: AuthRoute.Action, call: AuthCall) async throws(APIError) -> JSONValue {
        switch action {
        case .constant(let value):
            return value
        case .realm(let operation):
            return try await store.withRealm(projectID: call.projectID, tenantID: call.tenantID) {
                (realm: inout Realm) throws(APIError) -> JSONValue in
                try require(!realm.settings.disableAuth, "PROJECT_DISABLED")
                return try operation(&realm, call)
            }
        case .project(let operation):
            return try await store.withProject(call.projectID) { (project: inout ProjectState) throws(APIError) in
                try operation(&project, call)
            }
        }
    }

    /// Reads credentials, body and target project/tenant for `route`.
    private func bind(_ request: Request, route: AuthRoute, parameters: [String: String]) async throws -> AuthCall {
        let isAdmin = try Self.isAdmin(request.headers[.authorization])
        let query = request.queryFields
        switch route.access {
        case .admin where !isAdmin: throw APIError.missingCredentials
        case .apiKey where !isAdmin:
            let key = query["key"] ?? request.headers[HTTPField.Name("X-Goog-Api-Key")!]
            guard let key, !key.isEmpty else { throw APIError.missingAPIKey }
        default: break
        }
        let body = try await Self.body(of: request)
        var projectID = defaultProjectID
        if let target = parameters["targetProjectId"] ?? parameters["projectId"] {
            projectID = target
        } else if let target = try body.string("targetProjectId") {
            try require(
                isAdmin || route.access != .apiKey,
                "INSUFFICIENT_PERMISSION : Only authenticated requests can specify target_project_id.")
            projectID = target
        }
        let tenantID = try Self.tenantID(parameters: parameters, body: body, query: query)
        return AuthCall(
            body: body, query: query, isAdmin: isAdmin, projectID: projectID, tenantID: tenantID,
            parameters: parameters, now: clock.now(), origin: Self.origin(of: request))
    }

    /// The request's path segments. An empty tenant (`projects/{p}/tenants//accounts:batchCreate`, which
    /// firebase-tools' `--import` sends for the project's own users) is dropped with its `tenants`, so the call
    /// addresses the project, as the official emulator resolves an empty tenant id.
    static func pathSegments(of request: Request) -> [String] {
        var segments = request.pathSegments
        let raw = request.uri.path.split(separator: "/", omittingEmptySubsequences: false)
        let emptyTenant = raw.indices.first { index in
            index + 2 < raw.count && raw[index] == "tenants" && raw[index + 1].isEmpty && !raw[index + 2].isEmpty
        }
        if let emptyTenant { segments.remove(at: raw[..<emptyTenant].filter { !$0.isEmpty }.count) }
        return segments
    }

    static func isAdmin(_ authorization: String?) throws(APIError) -> Bool {
        guard let authorization, authorization.lowercased().hasPrefix("bearer ") else { return false }
        if Credential.isAdmin(token: String(authorization.dropFirst("bearer ".count))) { return true }
        throw APIError.invalidCredentials
    }

    private static func body(of request: Request) async throws -> RequestBody {
        guard request.method != .get, request.method != .delete, request.method != .head else {
            return RequestBody()
        }
        let data = try await request.collectBody(limit: bodyLimit)
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        let looksLikeJSON = data.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) == UInt8(ascii: "{")
        if contentType.hasPrefix("application/x-www-form-urlencoded"), !looksLikeJSON {
            let form = FormFields(parsing: String(decoding: data, as: UTF8.self))
            var fields: [String: JSONValue] = [:]
            for pair in form.pairs where fields[pair.name] == nil { fields[pair.name] = .string(pair.value) }
            return RequestBody(fields)
        }
        return try RequestBody(json: data)
    }

    /// The tenant from the path, the body, an ID token's `firebase.tenant`, or a refresh token.
    private static func tenantID(parameters: [String: String], body: RequestBody, query: FormFields) throws(APIError)
        -> String?
    {
        var tenant = parameters["tenantId"] ?? query["tenantId"].flatMap { $0.isEmpty ? nil : $0 }
        if let bodyTenant = try body.string("tenantId") {
            if let tenant { try require(tenant == bodyTenant, "TENANT_ID_MISMATCH") }
            tenant = bodyTenant
        }
        if let idToken = try body.string("idToken"), let jwt = UnsignedJWT(decoding: idToken),
            let tokenTenant = jwt.payload["firebase"]?["tenant"]?.stringValue
        {
            if let tenant { try require(tenant == tokenTenant, "TENANT_ID_MISMATCH") }
            tenant = tokenTenant
        }
        if let refresh = try body.string("refreshToken"),
            let record = try? Tokens.decodeRefreshToken(refresh), let tokenTenant = record.tenantId
        {
            if let tenant {
                try require(
                    tenant == tokenTenant, "TENANT_ID_MISMATCH: ((Refresh token tenant ID does not match target tenant ID.))")
            }
            tenant = tokenTenant
        }
        return tenant
    }

    static func origin(of request: Request) -> String {
        let host = request.head.authority ?? "127.0.0.1"
        return "http://\(host)"
    }
}
