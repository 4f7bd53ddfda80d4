import EmulatorCore

/// A request an emulator refused, as a test client reports it: Google's canonical code, the HTTP status or
/// gRPC code number that carried it, and the server's message.
public struct ClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The canonical codes: `.permissionDenied` for a rules refusal (Firestore's `PERMISSION_DENIED`, a
    /// Storage 403, the Realtime Database's `permission_denied`), `.unavailable` when the emulator cannot
    /// be reached or the connection is gone, and so on.
    public typealias Code = GoogleStatus

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

    /// The canonical code for an HTTP status, as Google's APIs map them (409 is `ALREADY_EXISTS` unless the
    /// body says `ABORTED`).
    static func code(httpStatus: Int) -> Code {
        switch httpStatus {
        case 400: return .invalidArgument
        case 412: return .failedPrecondition
        case 416: return .outOfRange
        case 409: return .alreadyExists
        case 500: return .internal
        default: return Code.allCases.first { $0 != .ok && $0.httpStatus == httpStatus } ?? .unknown
        }
    }

    /// `CODE (status): message`.
    public var description: String {
        "\(code.rawValue)\(status.map { " (\($0))" } ?? ""): \(message)"
    }
}
