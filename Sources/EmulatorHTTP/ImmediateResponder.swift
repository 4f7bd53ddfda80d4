import EmulatorCore
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// A handler that answers some requests at once, on the connection's event loop, without a task: for
/// requests whose answer never waits for anything (a Firestore document read or commit runs under the
/// store's lock and returns). Handing a request to a task and its response back to the event loop costs
/// two thread wake-ups per request, more than such a request's own work.
public protocol ImmediateResponder: Sendable {
    /// Whether the request whose head is `head` is answered by `respond` (decided before its body arrives).
    func answersImmediately(_ head: HTTPRequest) -> Bool

    /// The answer to a request it accepted, with its whole body; nil passes the request on to the server's
    /// responder after all (its answer has to wait for something).
    func respond(to head: HTTPRequest, body: ByteBuffer) -> ImmediateResponse?
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
        ImmediateResponse(
            status: status, contentType: "application/json; charset=utf-8", body: ByteBuffer(bytes: value.serializedBytes()))
    }

    /// An error in Google's JSON error envelope.
    public static func error(_ error: APIError) -> ImmediateResponse { .json(error.json, status: error.code) }
}

extension HTTPRequest {
    /// The request target cut at its first `?`: the path and the query (empty without one). On the bytes:
    /// a search by `Character` walks grapheme clusters, and cost more than a REST call's own lookup.
    public var pathAndQuery: (path: String, query: String) {
        var target = path ?? "/"
        return target.withUTF8 { bytes in
            bytes.firstIndex(of: UInt8(ascii: "?")).map {
                (String(decoding: UnsafeBufferPointer(rebasing: bytes[..<$0]), as: UTF8.self),
                 String(decoding: UnsafeBufferPointer(rebasing: bytes[($0 + 1)...]), as: UTF8.self))
            }
        } ?? (target, "")
    }
}

/// Several immediate responders as one: a request goes to the first that accepts it.
public struct ImmediateResponders: ImmediateResponder {
    private let responders: [any ImmediateResponder]

    /// The responders, asked in this order.
    public init(_ responders: [any ImmediateResponder]) {
        self.responders = responders
    }

    public func answersImmediately(_ head: HTTPRequest) -> Bool {
        responders.contains { $0.answersImmediately(head) }
    }

    public func respond(to head: HTTPRequest, body: ByteBuffer) -> ImmediateResponse? {
        responders.first { $0.answersImmediately(head) }?.respond(to: head, body: body)
    }
}

/// The HTTP/1.1 connection handler that gives an `ImmediateResponder` the requests it accepts and passes
/// every other request on to the server's responder. Only plain requests are taken: keep-alive HTTP/1.1
/// with a known body length up to `bodyLimit` and a host (and `Origin`) the local-access guard lets
/// through. A browser's request (one with an `Origin`) is taken only with the server's CORS policy, whose
/// headers its answer then carries as the server's responder would add them; preflights go on. A request
/// taken while an earlier one's response is still on its way would overtake it, so while one is in flight
/// every request is passed on.
final class ImmediateResponseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// The largest body of a request answered here.
    static let bodyLimit = 1 << 20

    private let responder: any ImmediateResponder
    private let access: LocalAccess
    /// The server's CORS policy; without one, browsers' requests go on.
    private let cors: CORSPolicy?
    /// The request being taken, while its body arrives.
    private var taken: (head: HTTPRequest, body: ByteBuffer)?
    /// Requests passed on whose response has not ended yet.
    private var passedOn = 0

    /// A handler answering what `responder` accepts, for a server whose guard is `access` and whose CORS
    /// policy is `cors`.
    init(responder: any ImmediateResponder, access: LocalAccess, cors: CORSPolicy?) {
        self.responder = responder
        self.access = access
        self.cors = cors
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            if passedOn == 0, taken == nil, let length = takenLength(of: head) {
                taken = (head, context.channel.allocator.buffer(capacity: length))
                return
            }
            passedOn += 1
        case .body(var bytes):
            if taken != nil {
                if taken!.body.readableBytes + bytes.readableBytes > Self.bodyLimit {
                    // The declared length was exceeded: the framing is broken; close as the server would.
                    taken = nil
                    context.close(promise: nil)
                    return
                }
                taken!.body.writeBuffer(&bytes)
                return
            }
        case .end:
            if let (head, body) = taken {
                taken = nil
                guard let response = responder.respond(to: head, body: body) else {
                    passedOn += 1
                    context.fireChannelRead(wrapInboundOut(.head(head)))
                    if body.readableBytes > 0 { context.fireChannelRead(wrapInboundOut(.body(body))) }
                    context.fireChannelRead(data)
                    return
                }
                var fields = response.headers
                fields[.contentType] = response.contentType
                fields[.contentLength] = String(response.body.readableBytes)
                if let origin = head.headerFields[.origin] { cors?.decorate(&fields, origin: origin) }
                context.write(wrapOutboundOut(.head(HTTPResponse(status: .init(code: response.status), headerFields: fields))), promise: nil)
                context.write(wrapOutboundOut(.body(response.body)), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                return
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), passedOn > 0 { passedOn -= 1 }
        context.write(data, promise: promise)
    }

    /// The body length of a request to take (0 without a body), or `nil` to pass it on.
    private func takenLength(of head: HTTPRequest) -> Int? {
        let fields = head.headerFields
        let origin = fields[.origin]
        guard head.method != .options, origin == nil || cors != nil, fields[.transferEncoding] == nil,
            fields[.connection].map({ $0.lowercased() == "keep-alive" }) ?? true,
            fields[.expect] == nil, access.refusal(host: head.authority, origin: origin) == nil, responder.answersImmediately(head)
        else { return nil }
        guard let text = fields[.contentLength] else { return 0 }
        guard let length = Int(text), (0...Self.bodyLimit).contains(length) else { return nil }
        return length
    }
}
