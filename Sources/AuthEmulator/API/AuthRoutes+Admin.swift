import EmulatorCore
import HTTPTypes

extension AuthRoutes {
    /// Admin batch endpoints: `accounts:batchCreate|batchGet|batchDelete|query`, `:queryAccounts`,
    /// `:createSessionCookie`, and the legacy v3 `downloadAccount` / `uploadAccount`.
    static var adminRoutes: [AuthRoute] {
        var routes: [AuthRoute] = []
        for prefix in projectPrefixes {
            routes += [
                AuthRoute(.post, "\(prefix)/accounts:batchCreate", .admin, .realm(AuthOperations.batchCreate)),
                AuthRoute(.get, "\(prefix)/accounts:batchGet", .admin, .realm(AuthOperations.batchGet)),
                AuthRoute(.post, "\(prefix)/accounts:batchDelete", .admin, .realm(AuthOperations.batchDelete)),
                AuthRoute(.post, "\(prefix)/accounts:query", .admin, .realm(AuthOperations.queryAccounts)),
                AuthRoute(.post, "\(prefix):createSessionCookie", .admin, .realm(AuthOperations.createSessionCookie)),
            ]
        }
        let legacy = "www.googleapis.com/identitytoolkit/v3/relyingparty"
        routes += [
            AuthRoute(.post, "\(projectPrefixes[0]):queryAccounts", .admin, .realm(AuthOperations.queryAccounts)),
            AuthRoute(.post, "\(legacy)/downloadAccount", .admin, .realm(legacyAccountOperation(AuthOperations.batchGet))),
            AuthRoute(.post, "\(legacy)/uploadAccount", .admin, .realm(legacyAccountOperation(AuthOperations.batchCreate))),
        ]
        return routes
    }

    /// Legacy `downloadAccount` / `uploadAccount` name their project only in the body (`targetProjectId`).
    private static func legacyAccountOperation(_ operation: @escaping AuthRoute.RealmOperation) -> AuthRoute.RealmOperation {
        { (realm: inout Realm, call: AuthCall) throws(APIError) -> JSONValue in
            try require(call.body.has("targetProjectId"), "INSUFFICIENT_PERMISSION")
            return try operation(&realm, call)
        }
    }
}
