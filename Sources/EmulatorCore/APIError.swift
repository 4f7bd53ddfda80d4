/// An error in Google's API wire format: `{"error":{"code","message","errors":[...],"status"}}`.
///
/// Domain errors are mapped to this type once, at the edge; its fields are the contract clients parse.
public struct APIError: Error, Sendable, Equatable {
    /// The HTTP status code (`error.code`).
    public var code: Int
    /// The message clients parse, verbatim from production (`EMAIL_EXISTS`, `WEAK_PASSWORD : ...`).
    public var message: String
    /// The status name (`error.status`), omitted from the body when `nil`; normally a canonical `GoogleStatus`.
    public var status: String?
    /// The `errors[0].reason`; when `nil` the body has no `errors` array.
    public var reason: String?
    /// The `errors[0].domain` (omitted when `nil`).
    public var domain: String?
    /// The whole `errors` array, when it says more than `message`, `reason` and `domain`.
    public var errorItems: [JSONValue]?

    /// Creates an error; `code` defaults to the status's HTTP code.
    public init(
        code: Int? = nil, message: String, status: GoogleStatus?, reason: String? = nil, domain: String? = "global"
    ) {
        self.code = code ?? status?.httpStatus ?? 400
        self.message = message
        self.status = status?.rawValue
        self.reason = reason
        self.domain = domain
    }

    /// The error as Google's JSON error envelope.
    public var json: JSONValue {
        var body: [String: JSONValue] = ["code": .int(Int64(code)), "message": .string(message)]
        if let errorItems {
            body["errors"] = .array(errorItems)
        } else if let reason {
            var item: [String: JSONValue] = ["message": .string(message), "reason": .string(reason)]
            if let domain { item["domain"] = .string(domain) }
            body["errors"] = [.object(item)]
        }
        if let status { body["status"] = .string(status) }
        return ["error": .object(body)]
    }
}

extension APIError {
    /// 400 `INVALID_ARGUMENT` with Google's `errors[].reason` of `invalid`.
    public static func invalidArgument(_ message: String) -> APIError {
        APIError(message: message, status: .invalidArgument, reason: "invalid")
    }

    /// 404 `NOT_FOUND`.
    public static func notFound(_ message: String) -> APIError {
        APIError(message: message, status: .notFound, reason: "notFound")
    }

    /// 501 for a method this emulator does not serve.
    public static func notImplemented(_ message: String) -> APIError {
        APIError(code: 501, message: message, status: .unimplemented, reason: "unimplemented")
    }

    /// 413 for a request body over the limit.
    public static func payloadTooLarge(limit: Int) -> APIError {
        APIError(
            code: 413, message: "Request payload size exceeds the limit: \(limit) bytes.", status: .invalidArgument,
            reason: "badRequest")
    }

    /// 500 for a failure that is our bug, never the client's.
    public static func `internal`(_ message: String) -> APIError {
        APIError(message: message, status: .internal, reason: "backendError")
    }
}
