import EmulatorCore

extension ClientError {
    /// The error for a wire protocol response whose status `s` is not `ok`; `data` is its `d` (the server's
    /// message, e.g. `Permission denied`).
    init(databaseStatus status: String, data: JSONValue) {
        let code: Code
        switch status {
        case "permission_denied": code = .permissionDenied
        case "invalid_data", "invalid_request", "too_big": code = .invalidArgument
        case "invalid_token", "expired_token": code = .unauthenticated
        case "datastale": code = .aborted
        case "unavailable": code = .unavailable
        default: code = .unknown
        }
        self.init(code, message: data.stringValue ?? "\(status): \(data.serialized())")
    }

    /// The error of every operation on a connection that is gone.
    static let databaseDisconnected = ClientError(.unavailable, message: "The database connection is closed")
}
