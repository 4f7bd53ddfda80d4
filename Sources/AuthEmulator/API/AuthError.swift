import EmulatorCore

/// The Auth API's errors, as the official emulator renders them (see firebase-tools `auth/errors.ts`).
extension APIError {
    /// 400 with a bare message (`EMAIL_EXISTS`, `WEAK_PASSWORD : ...`) and no `status`: what clients map.
    static func auth(_ message: String) -> APIError {
        APIError(code: 400, message: message, status: nil, reason: "invalid")
    }

    /// 400 `INVALID_ARGUMENT` for a request that does not fit the API's schema.
    static func invalidPayload(_ detail: String, reason: String = "invalid") -> APIError {
        let message = "Invalid JSON payload received. \(detail)"
        return APIError(message: message, status: .invalidArgument, reason: reason)
    }

    /// 403 for a client call without `?key=`.
    static let missingAPIKey = APIError(
        message: "The request is missing a valid API key.", status: .permissionDenied, reason: "forbidden")

    /// 401 for an `Authorization` header that is not `Bearer owner` or an OAuth token.
    static let invalidCredentials = unauthenticated(
        "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
        item: "Invalid Credentials", reason: "authError")

    /// 401 for an admin-only call without credentials.
    static let missingCredentials = unauthenticated(
        "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
        item: "Login Required.", reason: "required")

    private static func unauthenticated(_ message: String, item: String, reason: String) -> APIError {
        var error = APIError(message: message, status: .unauthenticated, reason: reason)
        error.errorItems = [
            [
                "message": .string(item), "domain": "global", "reason": .string(reason), "location": "Authorization",
                "locationType": "header",
            ]
        ]
        return error
    }

    /// 500 for a change the data folder (`--data-dir`) refused to store: the change was not made.
    static func unstored(_ error: DurableStoreError) -> APIError {
        APIError(
            code: 500, message: "INTERNAL_ERROR : ((The change could not be stored: \(error.message)))", status: .internal,
            reason: "backendError")
    }

    /// 404 for a path the Auth API does not have.
    static let authNotFound = APIError(message: "Not Found", status: .notFound, reason: "notFound", domain: nil)

    /// 501 for an operation the emulator does not implement (matches the official wording).
    static func authNotImplemented(_ operation: String) -> APIError {
        notImplementedMessage("\(operation) is not implemented in the Auth Emulator.")
    }

    /// 501 `NOT_IMPLEMENTED` with a message of its own.
    static func notImplementedMessage(_ message: String) -> APIError {
        var error = APIError(code: 501, message: message, status: nil, reason: "unimplemented", domain: nil)
        error.status = "NOT_IMPLEMENTED"
        return error
    }
}

/// Throws the 400 Auth error `message` unless `condition` holds.
func require(_ condition: Bool, _ message: @autoclosure () -> String) throws(APIError) {
    if !condition { throw .auth(message()) }
}
