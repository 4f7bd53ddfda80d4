/// A request an emulator refused, as a test client reports it: the canonical code, the HTTP or gRPC status
/// that carried it, and the server's message.
public struct ClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of refusal it was, in Google's canonical codes.
    public enum Code: String, Sendable, Hashable {
        /// The rules refused the request (`PERMISSION_DENIED`, `permission_denied`, HTTP 403).
        case permissionDenied = "PERMISSION_DENIED"
        /// The request needed a signed-in user (HTTP 401).
        case unauthenticated = "UNAUTHENTICATED"
        /// The document, object or user does not exist (HTTP 404).
        case notFound = "NOT_FOUND"
        /// It already exists (HTTP 409).
        case alreadyExists = "ALREADY_EXISTS"
        /// The request is malformed (HTTP 400).
        case invalidArgument = "INVALID_ARGUMENT"
        /// A precondition failed: a stale ETag or update time, a missing index (HTTP 412 / 400).
        case failedPrecondition = "FAILED_PRECONDITION"
        /// A transaction lost to a concurrent write; it may be retried (HTTP 409).
        case aborted = "ABORTED"
        /// The server could not be reached or went away.
        case unavailable = "UNAVAILABLE"
        /// Anything else.
        case unknown = "UNKNOWN"
    }

    /// The canonical code.
    public var code: Code
    /// The HTTP status (or the gRPC status code's number) that carried it, when there was one.
    public var status: Int?
    /// The server's message, verbatim.
    public var message: String

    /// An error from its parts.
    public init(_ code: Code, status: Int? = nil, message: String) {
        self.code = code
        self.status = status
        self.message = message
    }

    /// The canonical code for an HTTP status, as Google's APIs map them.
    public static func code(httpStatus: Int) -> Code {
        switch httpStatus {
        case 400: return .invalidArgument
        case 401: return .unauthenticated
        case 403: return .permissionDenied
        case 404: return .notFound
        case 409: return .alreadyExists
        case 412: return .failedPrecondition
        case 502, 503, 504: return .unavailable
        default: return .unknown
        }
    }

    /// `CODE (status): message`.
    public var description: String {
        "\(code.rawValue)\(status.map { " (\($0))" } ?? ""): \(message)"
    }
}
