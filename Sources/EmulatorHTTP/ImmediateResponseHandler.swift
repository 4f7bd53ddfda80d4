import EmulatorCore
import HTTPTypes
import NIOCore
import NIOHTTP1

/// The HTTP/1.1 connection handler that gives an `ImmediateResponder` the requests it accepts and passes
/// every other request on to the server's responder. It sits right behind NIO's request decoder, so a taken
/// request never becomes an `HTTPRequest` (converting every header field cost more than a REST call's own
/// work), and its answer is written as finished bytes below NIO's response encoder, through an
/// `ImmediateOutlet` at the head of the pipeline.
///
/// Only plain requests are taken: keep-alive HTTP/1.1 in origin form (`/path`), with a known body length up
/// to `bodyLimit`, no `Expect` or `Upgrade`, and a host (and `Origin`) the local-access guard lets through. A
/// browser's request (one with an `Origin`) is taken only with the server's CORS policy, whose headers its
/// answer then carries as the server's responder would add them; preflights go on. A request taken while an
/// earlier one's response is still on its way would overtake it, so while one is in flight every request is
/// passed on.
///
/// Hummingbird's connection-state handler, further on, never sees a taken request, so this handler keeps
/// the connection's idle timer for both kinds (the server's own is off): a connection is closed after
/// `idleTimeout` without a request in progress, or with one whose head or body stalled. A graceful
/// shutdown's quiesce event that arrives while a taken request's body is still coming waits for its answer.
final class ImmediateResponseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// The largest body of a request answered here.
    static let bodyLimit = 1 << 20

    private let responder: any ImmediateResponder
    private let access: LocalAccess
    /// The server's CORS policy; without one, browsers' requests go on.
    private let cors: CORSPolicy?
    /// How long a connection may stay idle; nil: for ever.
    private let idleTimeout: TimeAmount?
    /// Where answers are written as bytes.
    private let outlet: ImmediateOutlet
    /// The request being taken, while its body arrives: its head, what the responder sees of it, its
    /// `Origin`.
    private var taken: (head: HTTPRequestHead, request: ImmediateRequest, origin: String?, body: ByteBuffer)?
    /// Requests passed on whose response has not ended yet.
    private var passedOn = 0
    /// Whether a passed-on request's head has been read and its end not yet.
    private var readingPassedOn = false
    /// When a request was last read from or answered.
    private var lastActive = NIODeadline.now()
    private var idleCheck: Scheduled<Void>?
    /// Whether a quiesce event waits for the taken request's answer.
    private var closesAfterAnswer = false

    /// A handler answering what `responder` accepts, for a server whose guard is `access` and whose CORS
    /// policy is `cors`, writing through `outlet` (which must be ahead of the response encoder).
    init(
        responder: any ImmediateResponder, access: LocalAccess, cors: CORSPolicy?, idleTimeout: TimeAmount?,
        outlet: ImmediateOutlet
    ) {
        self.responder = responder
        self.access = access
        self.cors = cors
        self.idleTimeout = idleTimeout
        self.outlet = outlet
    }

    /// Adds an outlet at the head of `pipeline` and a handler right behind its HTTP/1.1 request decoder.
    static func install(
        on pipeline: ChannelPipeline.SynchronousOperations, responder: any ImmediateResponder, access: LocalAccess,
        cors: CORSPolicy?, idleTimeout: TimeAmount?
    ) throws {
        let decoder = try pipeline.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self)
        let outlet = ImmediateOutlet()
        try pipeline.addHandler(outlet, position: .first)
        try pipeline.addHandler(
            ImmediateResponseHandler(responder: responder, access: access, cors: cors, idleTimeout: idleTimeout, outlet: outlet),
            position: .after(decoder.handler))
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { scheduleIdleCheck(context, in: idleTimeout) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelIdleCheck()
    }

    func channelActive(context: ChannelHandlerContext) {
        scheduleIdleCheck(context, in: idleTimeout)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelIdleCheck()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if idleTimeout != nil { lastActive = .now() }
        switch unwrapInboundIn(data) {
        case .head(let head):
            if passedOn == 0, taken == nil, let (request, origin, length) = taking(head) {
                taken = (head, request, origin, context.channel.allocator.buffer(capacity: length))
                return
            }
            passedOn += 1
            readingPassedOn = true
        case .body(var bytes):
            // NIO's decoder frames a body by its `Content-Length`, which `taking` held to `bodyLimit`.
            if taken != nil {
                taken!.body.writeBuffer(&bytes)
                return
            }
        case .end:
            if let (head, request, origin, body) = taken {
                taken = nil
                answer(head, request, origin: origin, body: body, context: context)
                return
            }
            readingPassedOn = false
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), passedOn > 0 {
            passedOn -= 1
            if passedOn == 0, idleTimeout != nil {
                lastActive = .now()
                scheduleIdleCheck(context, in: idleTimeout)
            }
        }
        context.write(data, promise: promise)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent, taken != nil {
            closesAfterAnswer = true
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// Answers a taken request, or passes it on whole if the responder declines it after all.
    private func answer(
        _ head: HTTPRequestHead, _ request: ImmediateRequest, origin: String?, body: ByteBuffer, context: ChannelHandlerContext
    ) {
        guard let response = responder.respond(to: request, body: body), outlet.isAdded else {
            passedOn += 1
            context.fireChannelRead(wrapInboundOut(.head(head)))
            if body.readableBytes > 0 { context.fireChannelRead(wrapInboundOut(.body(body))) }
            context.fireChannelRead(wrapInboundOut(.end(nil)))
            if closesAfterAnswer {
                closesAfterAnswer = false
                context.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
            }
            return
        }
        var corsFields = HTTPFields()
        if let origin { cors?.decorate(&corsFields, origin: origin) }
        outlet.writeAndFlush(response.encoded(then: corsFields, allocator: context.channel.allocator))
        if closesAfterAnswer { context.close(promise: nil) }
    }

    /// What to take of `head`: the request, its `Origin` and its body length; nil to pass it on.
    private func taking(_ head: HTTPRequestHead) -> (ImmediateRequest, String?, Int)? {
        guard head.version == .http1_1, let method = Self.method(head.method),
            head.uri.utf8.first == UInt8(ascii: "/")
        else { return nil }
        var fields = PlainFields()
        for (name, value) in head.headers {
            guard fields.read(name, value) else { return nil }
        }
        guard fields.origin == nil || cors != nil, access.refusal(host: fields.host, origin: fields.origin) == nil else {
            return nil
        }
        var length = 0
        if let text = fields.contentLength {
            guard let declared = Int(text), (0...Self.bodyLimit).contains(declared) else { return nil }
            length = declared
        }
        let request = ImmediateRequest(method: method, target: head.uri, authorization: fields.authorization)
        guard responder.answersImmediately(request) else { return nil }
        return (request, fields.origin, length)
    }

    /// The methods an immediate responder may take (never `OPTIONS`: a preflight is the server's).
    private static func method(_ method: HTTPMethod) -> HTTPRequest.Method? {
        switch method {
        case .GET: .get
        case .POST: .post
        case .PATCH: .patch
        case .DELETE: .delete
        case .PUT: .put
        default: nil
        }
    }

    private func cancelIdleCheck() {
        idleCheck?.cancel()
        idleCheck = nil
    }

    /// Checks again `delay` from now (a delay rather than a deadline: the loop's clock may not be the real one).
    private func scheduleIdleCheck(_ context: ChannelHandlerContext, in delay: TimeAmount?) {
        guard let delay, idleCheck == nil else { return }
        idleCheck = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: delay) { [self] in
            idleCheck = nil
            checkIdle(context)
        }
    }

    /// Closes the connection if it has been idle for `idleTimeout`: no request in progress, or one whose
    /// head or body stalled. While a passed-on request is being answered it is not idle, and the check
    /// comes again when its response ends.
    private func checkIdle(_ context: ChannelHandlerContext) {
        guard let idleTimeout, context.channel.isActive else { return }
        if passedOn > 0, !readingPassedOn { return }
        let left = lastActive + idleTimeout - NIODeadline.now()
        if left <= .zero {
            context.close(promise: nil)
        } else {
            scheduleIdleCheck(context, in: left)
        }
    }
}

/// The header fields a taken request may carry, read in one pass: the few the handler needs, and a refusal
/// of those that make a request not plain.
struct PlainFields {
    var host: String?
    var origin: String?
    var authorization: String?
    var contentLength: String?

    /// Reads one field; false if it makes the request one to pass on.
    mutating func read(_ name: String, _ value: String) -> Bool {
        switch name.utf8.count {
        case 4 where name.isASCII(caseInsensitively: "host"):
            if host == nil { host = value }
        case 6 where name.isASCII(caseInsensitively: "origin"):
            guard origin == nil else { return false }
            origin = value
        case 6 where name.isASCII(caseInsensitively: "expect"): return false
        case 7 where name.isASCII(caseInsensitively: "upgrade"): return false
        case 10 where name.isASCII(caseInsensitively: "connection"):
            return value.isASCII(caseInsensitively: "keep-alive")
        case 13 where name.isASCII(caseInsensitively: "authorization"):
            guard authorization == nil else { return false }
            authorization = value
        case 14 where name.isASCII(caseInsensitively: "content-length"):
            guard contentLength == nil else { return false }
            contentLength = value
        case 17 where name.isASCII(caseInsensitively: "transfer-encoding"): return false
        default: break
        }
        return true
    }
}

extension String {
    /// Whether this is `lowercase` (lowercase ASCII) in any ASCII case.
    fileprivate func isASCII(caseInsensitively lowercase: StaticString) -> Bool {
        // On the bytes in place: iterating the UTF-8 view cost ~10 instructions a byte.
        var text = self
        return text.withUTF8 { $0[...].equalsIgnoringASCIICase(lowercase) }
    }
}

/// The head of an HTTP/1.1 connection's pipeline, ahead of NIO's response encoder: where the immediate
/// handler writes its finished answers as bytes. Everything else passes through it untouched.
final class ImmediateOutlet: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = NIOAny

    /// Its place in the pipeline while it is in one.
    private var context: ChannelHandlerContext?

    /// Whether it is in a pipeline, so that `writeAndFlush` reaches the connection.
    var isAdded: Bool { context != nil }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    /// Writes `bytes` to the connection, below every handler after this one.
    func writeAndFlush(_ bytes: ByteBuffer) {
        context?.writeAndFlush(NIOAny(bytes), promise: nil)
    }
}

extension ImmediateResponse {
    /// The whole HTTP/1.1 response as bytes: the status line, its own header fields, `Content-Type`,
    /// `Content-Length`, `trailingFields` (CORS's), and the body.
    func encoded(then trailingFields: HTTPFields, allocator: ByteBufferAllocator) -> ByteBuffer {
        var bytes = allocator.buffer(capacity: 160 + body.readableBytes)
        bytes.writeStaticString("HTTP/1.1 ")
        bytes.writeString(String(status))
        bytes.writeStaticString(" ")
        bytes.writeString(HTTPResponseStatus(statusCode: status).reasonPhrase)
        bytes.writeStaticString("\r\n")
        func write(_ fields: HTTPFields) {
            for field in fields where field.name != .contentType && field.name != .contentLength {
                bytes.writeString(field.name.rawName)
                bytes.writeStaticString(": ")
                bytes.writeString(field.value)
                bytes.writeStaticString("\r\n")
            }
        }
        write(headers)
        bytes.writeStaticString("Content-Type: ")
        bytes.writeString(contentType)
        bytes.writeStaticString("\r\nContent-Length: ")
        bytes.writeString(String(body.readableBytes))
        bytes.writeStaticString("\r\n")
        write(trailingFields)
        bytes.writeStaticString("\r\n")
        var body = body
        bytes.writeBuffer(&body)
        return bytes
    }
}
