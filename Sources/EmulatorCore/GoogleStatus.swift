/// The canonical Google API status codes, with their HTTP and gRPC numbers.
public enum GoogleStatus: String, Sendable, CaseIterable {
    case ok = "OK"
    case cancelled = "CANCELLED"
    case unknown = "UNKNOWN"
    case invalidArgument = "INVALID_ARGUMENT"
    case deadlineExceeded = "DEADLINE_EXCEEDED"
    case notFound = "NOT_FOUND"
    case alreadyExists = "ALREADY_EXISTS"
    case permissionDenied = "PERMISSION_DENIED"
    case resourceExhausted = "RESOURCE_EXHAUSTED"
    case failedPrecondition = "FAILED_PRECONDITION"
    case aborted = "ABORTED"
    case outOfRange = "OUT_OF_RANGE"
    case unimplemented = "UNIMPLEMENTED"
    case `internal` = "INTERNAL"
    case unavailable = "UNAVAILABLE"
    case dataLoss = "DATA_LOSS"
    case unauthenticated = "UNAUTHENTICATED"

    /// The HTTP status Google's REST APIs use for this code.
    public var httpStatus: Int {
        switch self {
        case .ok: return 200
        case .cancelled: return 499
        case .unknown, .internal, .dataLoss: return 500
        case .invalidArgument, .failedPrecondition, .outOfRange: return 400
        case .deadlineExceeded: return 504
        case .notFound: return 404
        case .alreadyExists, .aborted: return 409
        case .permissionDenied: return 403
        case .resourceExhausted: return 429
        case .unimplemented: return 501
        case .unavailable: return 503
        case .unauthenticated: return 401
        }
    }

    /// The gRPC status code number.
    public var grpcCode: Int {
        switch self {
        case .ok: return 0
        case .cancelled: return 1
        case .unknown: return 2
        case .invalidArgument: return 3
        case .deadlineExceeded: return 4
        case .notFound: return 5
        case .alreadyExists: return 6
        case .permissionDenied: return 7
        case .resourceExhausted: return 8
        case .failedPrecondition: return 9
        case .aborted: return 10
        case .outOfRange: return 11
        case .unimplemented: return 12
        case .internal: return 13
        case .unavailable: return 14
        case .dataLoss: return 15
        case .unauthenticated: return 16
        }
    }
}
