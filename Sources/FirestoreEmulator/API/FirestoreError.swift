import EmulatorCore

extension APIError {
    /// A Firestore error as production renders it over REST: `{"error":{"code","message","status"}}`, with no
    /// `errors` array.
    static func firestore(_ status: GoogleStatus, _ message: String) -> APIError {
        APIError(message: message, status: status, reason: nil)
    }

    /// The gRPC status code of the error's status (UNKNOWN, 2, when it has none).
    var grpcCode: Int { status.flatMap(GoogleStatus.init(rawValue:))?.grpcCode ?? 2 }

    /// 403 `PERMISSION_DENIED` for a request the security rules deny.
    static let permissionDenied = APIError.firestore(.permissionDenied, "Missing or insufficient permissions.")

    /// 400 `INVALID_ARGUMENT` for a parent that is neither the documents root nor a document.
    static func invalidParent(_ name: String) -> APIError {
        .firestore(.invalidArgument, "Invalid parent \"\(name)\": a query parent is the documents root or a document.")
    }
}
