import DatabaseTree

/// Why a read or write failed; each edge renders it its own way (wire status, REST status and body).
enum DatabaseError: Error, Sendable, Equatable {
    /// The rules refused (`permission_denied`; REST 401 `Permission denied`).
    case permissionDenied
    /// Bad data, path or query (REST 400; wire status `invalid_data` / `invalid_query`... with the message).
    case invalid(String)
    /// A transaction's hash no longer matches the data (`datastale`).
    case dataStale
    /// An `if-match` ETag no longer matches (REST 412 with the current value).
    case preconditionFailed(current: DataNode)
    /// The write is larger than a single request may carry (`too_big`).
    case tooBig(String)
    /// The data folder refused the write, which therefore did not happen (REST 503; wire `unavailable`).
    case unavailable(String)

    /// The message clients see.
    var message: String {
        switch self {
        case .permissionDenied: return "Permission denied"
        case .invalid(let message): return message
        case .dataStale: return "Transaction hash does not match"
        case .preconditionFailed: return "ETag mismatch"
        case .tooBig(let message), .unavailable(let message): return message
        }
    }
}
