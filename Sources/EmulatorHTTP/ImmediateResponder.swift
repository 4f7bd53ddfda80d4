import EmulatorCore
import HTTPTypes
import NIOCore

/// A handler that answers some requests at once, on the connection's event loop, without a task: for
/// requests whose answer never waits for anything (a Firestore document read or commit runs under the
/// store's lock and returns). Handing a request to a task and its response back to the event loop costs
/// two thread wake-ups per request, more than such a request's own work.
public protocol ImmediateResponder: Sendable {
    /// Whether `request` is answered by `respond` (decided before its body arrives).
    func answersImmediately(_ request: ImmediateRequest) -> Bool

    /// The answer to a request it accepted, with its whole body; nil passes the request on to the server's
    /// responder after all (its answer has to wait for something).
    func respond(to request: ImmediateRequest, body: ByteBuffer) -> ImmediateResponse?
}

/// What an immediate responder learns of a request: its method, its target cut at the first `?`, and its
/// `Authorization`. (The handler reads the head's fields in one pass for these few; building every field
/// as an `HTTPField` cost more than a REST call's own lookup.)
public struct ImmediateRequest: Sendable, Equatable {
    /// The method.
    public var method: HTTPRequest.Method
    /// The request target before its first `?`, still percent-encoded.
    public var path: String
    /// The target after its first `?` (empty without one).
    public var query: String
    /// The `Authorization` header's value.
    public var authorization: String?

    /// The request for `target` (a path with an optional `?query`), split on its bytes: a search by
    /// `Character` walks grapheme clusters.
    public init(method: HTTPRequest.Method, target: String, authorization: String? = nil) {
        self.method = method
        self.authorization = authorization
        var target = target
        (path, query) = target.withUTF8 { bytes in
            bytes.firstIndex(of: UInt8(ascii: "?")).map {
                (String(decoding: UnsafeBufferPointer(rebasing: bytes[..<$0]), as: UTF8.self),
                 String(decoding: UnsafeBufferPointer(rebasing: bytes[($0 + 1)...]), as: UTF8.self))
            }
        } ?? (target, "")
    }
}

/// An answer given at once: a status, a content type, a body and any other header fields.
public struct ImmediateResponse: Sendable {
    /// The HTTP status code.
    public var status: Int
    /// The `Content-Type`.
    public var contentType: String
    /// The body.
    public var body: ByteBuffer
    /// Header fields besides `Content-Type` and `Content-Length` (and CORS's, which the handler adds).
    public var headers: HTTPFields

    /// An answer with `status`, `contentType`, `body` and `headers`.
    public init(status: Int, contentType: String, body: ByteBuffer, headers: HTTPFields = [:]) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
    }

    /// A JSON answer with `charset=utf-8`, as Google's APIs send.
    public static func json(_ value: JSONValue, status: Int = 200) -> ImmediateResponse {
        json(writing: value, status: status)
    }

    /// A JSON answer with the text `value` writes.
    public static func json(writing value: some JSONWritable, status: Int = 200) -> ImmediateResponse {
        ImmediateResponse(
            status: status, contentType: "application/json; charset=utf-8", body: ByteBuffer(bytes: value.serializedBytes()))
    }

    /// An error in Google's JSON error envelope.
    public static func error(_ error: APIError) -> ImmediateResponse { .json(error.json, status: error.code) }
}

/// Several immediate responders as one: a request goes to the first that accepts it.
public struct ImmediateResponders: ImmediateResponder {
    private let responders: [any ImmediateResponder]

    /// The responders, asked in this order.
    public init(_ responders: [any ImmediateResponder]) {
        self.responders = responders
    }

    public func answersImmediately(_ request: ImmediateRequest) -> Bool {
        responders.contains { $0.answersImmediately(request) }
    }

    public func respond(to request: ImmediateRequest, body: ByteBuffer) -> ImmediateResponse? {
        responders.first { $0.answersImmediately(request) }?.respond(to: request, body: body)
    }
}
