import EmulatorCore
import Foundation
import GRPCCore
import NIOCore
import NIOHPACK
import NIOHTTP2

/// Serves gRPC calls on one HTTP/2 connection, on the connection's event loop: it sits behind NIOHTTP2's
/// connection handler (no stream multiplexer, no channel per stream) and takes every stream's frames, in
/// the order they were read. A call its `ImmediateGRPCResponder` answers gets its answer when its request
/// has ended; a streaming call gets each request message as it arrives and writes when it wants. What a
/// call writes while a read is in progress goes out with one flush when the read is complete.
///
/// What gRPC over HTTP/2 asks of a server, done here:
/// - status in trailers (trailers-only for a call that fails before answering), `grpc-message`
///   percent-encoded;
/// - requests compressed with `grpc-encoding` gzip or deflate (grpcio and grpc-java clients with
///   compression on); any other encoding is UNIMPLEMENTED with the encodings taken, as grpc-java answers.
///   Responses are not compressed (gRPC lets a server answer uncompressed whatever the client accepts);
/// - `grpc-timeout` on streaming calls: DEADLINE_EXCEEDED when it passes (a unary call is answered before);
/// - inbound flow control: WINDOW_UPDATEs as request bytes are consumed (they are consumed at once);
///   outbound flow control is NIOHTTP2's, and a stream whose client stops reading reports itself not
///   writable to its call;
/// - a response that ends while the client is still sending is followed by RST_STREAM(NO_ERROR).
/// Refusals use grpc-java's words (the official emulator's server): an unknown method, a unary call
/// without exactly one request, a request over `maxMessageBytes`.
final class GRPCConnectionHandler: ChannelInboundHandler, FlushBatchMember {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// The largest request message taken (production caps requests at 10 MiB).
    static let maxMessageBytes = 64 << 20
    /// The connection's inbound window once the first request bytes arrive (HTTP/2 starts it at 64 KiB).
    static let connectionWindow = 1 << 20
    /// Unacknowledged request bytes on one stream that trigger a WINDOW_UPDATE.
    static let streamUpdateThreshold = 1 << 15

    private let responder: any ImmediateGRPCResponder
    private var calls: [HTTP2StreamID: Call] = [:]
    private var context: ChannelHandlerContext?
    /// Inside a read: what the calls write waits in `held` for `channelReadComplete`.
    private var isReading = false
    private var held: [HTTP2Frame] = []
    /// The event loop's flush batch, and whether this connection's flush waits for the end of its pass.
    private var batch: FlushBatch?
    private var isFlushHeld = false

    /// A handler serving the calls `responder` answers; every other call is UNIMPLEMENTED.
    init(responder: any ImmediateGRPCResponder) {
        self.responder = responder
    }

    /// One call: its stream, what it has received and how it is served. It is also the output of a
    /// streaming call.
    fileprivate final class Call: ImmediateGRPCStreamOutput {
        let id: HTTP2StreamID
        let headers: HPACKHeaders
        weak var connection: GRPCConnectionHandler?
        var state: State = .starting
        /// How request messages are compressed (`grpc-encoding`), when they are.
        var encoding: Inflater.Format?
        /// The start of a request message not yet whole.
        var pending: ByteBuffer?
        /// The client has not ended its requests.
        var requestsOpen = true
        /// Response headers went out: a status goes in trailers.
        var sentHeaders = false
        /// Request bytes consumed since the last WINDOW_UPDATE for the stream.
        var unacknowledged = 0
        /// What the client lets the stream send before it reads (NIOHTTP2 queues the rest).
        var outboundWindow = Int(UInt16.max)
        var deadline: Scheduled<Void>?

        enum State {
            /// Headers read, not yet routed.
            case starting
            /// A call answered once its request ends; `message` is the request once read.
            case unary(ImmediateGRPCAnswerer, message: ByteBuffer?)
            /// A call served by `stream`.
            case streaming(any ImmediateGRPCStream)
            /// The response has ended; the stream is closing.
            case finished
        }

        /// The response has ended.
        var isFinished: Bool {
            if case .finished = state { return true }
            return false
        }

        init(id: HTTP2StreamID, headers: HPACKHeaders, connection: GRPCConnectionHandler) {
            self.id = id
            self.headers = headers
            self.connection = connection
        }

        var eventLoop: any EventLoop { connection!.context!.eventLoop }

        var isWritable: Bool {
            guard let channel = connection?.context?.channel else { return false }
            return outboundWindow > 0 && channel.isWritable
        }

        var allocator: ByteBufferAllocator { connection?.context?.channel.allocator ?? ByteBufferAllocator() }

        func send(framed messages: ByteBuffer) {
            guard case .streaming = state, messages.readableBytes > 0 else { return }
            outboundWindow -= messages.readableBytes
            connection?.write(.data(.init(data: .byteBuffer(messages))), on: id)
        }

        func finish(_ error: RPCError?) {
            guard case .streaming = state else { return }
            connection?.end(self, error)
        }
    }

    // MARK: Frames

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        isReading = true
        switch frame.payload {
        case .headers(let headers):
            let call = calls[frame.streamID]
            guard HeaderBlockCheck.isWellFormed(headers.headers, call == nil ? .request : .trailers) else {
                return reset(frame.streamID)
            }
            if let call {
                if headers.endStream, call.requestsOpen { requestsEnded(call) }  // trailers from the client
            } else {
                start(frame.streamID, headers: headers.headers, endStream: headers.endStream, context: context)
            }
        case .data(let data):
            guard let call = calls[frame.streamID], call.requestsOpen else { return }
            acknowledge(data.data.readableBytes + (data.paddingBytes.map { $0 + 1 } ?? 0), on: call)
            guard case .byteBuffer(var bytes) = data.data else { return }
            if call.pending == nil { call.pending = bytes } else { call.pending!.writeBuffer(&bytes) }
            deliverMessages(of: call)
            if data.endStream, call.requestsOpen { requestsEnded(call) }
        default:
            // The connection's own frames: NIOHTTP2 has acted on them, and the connection management handler
            // behind this one reads the PING acks of a graceful shutdown. A reset arrives as StreamClosedEvent.
            if frame.streamID == .rootStream { context.fireChannelRead(data) }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        isReading = false
        if !held.isEmpty {
            let frames = held
            held = []
            // A stream the client reset later in the same read is gone: its answer would reach a client
            // that has forgotten the stream, which NIOHTTP2 clients take as a connection error.
            for frame in frames where frame.streamID == .rootStream || calls[frame.streamID] != nil {
                context.write(wrapOutboundOut(frame), promise: nil)
            }
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    /// Window events (two for every DATA frame sent) end here, after one cast; the rest pass on.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let updated = event as? NIOHTTP2WindowUpdatedEvent {
            if updated.streamID == .rootStream {
                if let window = updated.inboundWindowSize { connectionWindowChanged(to: window) }
            } else if let window = updated.outboundWindowSize {
                calls[updated.streamID]?.outboundWindow = window
            }
            return
        }
        switch event {
        case let closed as StreamClosedEvent:
            if let call = calls.removeValue(forKey: closed.streamID) { abandon(call) }
        case let created as NIOHTTP2StreamCreatedEvent:
            if let window = created.localInitialWindowSize { calls[created.streamID]?.outboundWindow = Int(window) }
        default:
            break
        }
        context.fireUserInboundEventTriggered(event)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        batch = FlushBatch.current
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        abandonAll()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        abandonAll()
        context.fireChannelInactive()
    }

    // MARK: Calls

    /// A call's headers: route it, or refuse it.
    private func start(_ id: HTTP2StreamID, headers: HPACKHeaders, endStream: Bool, context: ChannelHandlerContext) {
        let call = Call(id: id, headers: headers, connection: self)
        call.requestsOpen = !endStream
        calls[id] = call
        let method = headers.first(name: ":method") ?? ""
        guard method == "POST" else {
            return refuse(call, httpStatus: "405", RPCError(code: .internalError, message: "Method '\(method)' is not supported"))
        }
        let type = headers.first(name: "content-type") ?? ""
        guard type.hasPrefix("application/grpc") else {
            return refuse(call, httpStatus: "415", RPCError(code: .internalError, message: "Content-Type '\(type)' is not supported"))
        }
        switch headers.first(name: "grpc-encoding") {
        case nil, "identity": break
        case "gzip": call.encoding = .gzip
        case "deflate": call.encoding = .zlib
        case let other?:
            return end(call, RPCError(code: .unimplemented, message: "Can't find decompressor for \(other)"))
        }
        let path = headers.first(name: ":path") ?? ""
        if let stream = responder.immediateStream(path: path, headers: headers, output: call) {
            call.state = .streaming(stream)
            call.sentHeaders = true
            write(.headers(.init(headers: Self.responseHeaders)), on: id)
            if let timeout = headers.first(name: "grpc-timeout").flatMap(Self.timeAmount) {
                call.deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [weak self, weak call] in
                    guard let self, let call, case .streaming(let stream) = call.state else { return }
                    stream.closed()
                    self.end(call, RPCError(code: .deadlineExceeded, message: "Deadline exceeded"))
                }
            }
        } else if let answerer = responder.immediateAnswerer(path: path) {
            call.state = .unary(answerer, message: nil)
        } else {
            return end(call, RPCError(code: .unimplemented, message: "Method not found: \(path.dropFirst())"))
        }
        if endStream { requestsEnded(call) }
    }

    /// Hands each whole request message of `call` on: to its stream, or kept as the unary call's request.
    private func deliverMessages(of call: Call) {
        while var pending = call.pending, pending.readableBytes >= 5 {
            let flag = pending.getInteger(at: pending.readerIndex, as: UInt8.self)!
            let length = Int(pending.getInteger(at: pending.readerIndex + 1, as: UInt32.self)!)
            guard length <= Self.maxMessageBytes else {
                return end(call, Self.tooLarge(length))
            }
            guard pending.readableBytes >= 5 + length else { return }
            pending.moveReaderIndex(forwardBy: 5)
            var message = pending.readSlice(length: length)!
            call.pending = pending.readableBytes > 0 ? pending : nil
            if flag & 1 == 1 {
                guard let format = call.encoding else {
                    return end(call, RPCError(code: .internalError, message: "Compressed message received without grpc-encoding"))
                }
                do throws(InflateError) {
                    let plain = try Inflater(format).decompress(Array(message.readableBytesView), limit: Self.maxMessageBytes)
                    message = ByteBuffer(bytes: plain)
                } catch {
                    return end(
                        call,
                        error.tooLarge
                            ? Self.tooLarge(Self.maxMessageBytes + 1)
                            : RPCError(code: .internalError, message: "Could not decompress the request message"))
                }
            }
            switch call.state {
            case .unary(let answerer, nil):
                call.state = .unary(answerer, message: message)
            case .unary:
                return end(call, RPCError(code: .internalError, message: "Too many requests"))
            case .streaming(let stream):
                stream.receive(message)
            case .starting, .finished:
                return
            }
        }
    }

    /// The client ended its requests.
    private func requestsEnded(_ call: Call) {
        call.requestsOpen = false
        if let pending = call.pending, pending.readableBytes > 0, !call.isFinished {
            return end(call, RPCError(code: .internalError, message: "Encountered end-of-stream mid-frame"))
        }
        switch call.state {
        case .unary(let answerer, let message?):
            answer(call, answerer(message, call.headers))
        case .unary:
            end(call, RPCError(code: .internalError, message: "Half-closed without a request"))
        case .streaming(let stream):
            stream.requestsEnded()
        case .starting, .finished:
            break
        }
    }

    /// Writes a unary call's answer: headers, messages and trailers, or a trailers-only status.
    private func answer(_ call: Call, _ answer: ImmediateGRPCAnswer) {
        switch answer {
        case .messages(let messages):
            call.sentHeaders = true
            write(.headers(.init(headers: Self.responseHeaders)), on: call.id)
            let allocator = context?.channel.allocator ?? ByteBufferAllocator()
            var framed = allocator.buffer(capacity: messages.reduce(0) { $0 + 5 + $1.count })
            for message in messages { framed.writeGRPCMessage(message) }
            if framed.readableBytes > 0 { write(.data(.init(data: .byteBuffer(framed))), on: call.id) }
            end(call, nil)
        case .failure(let error):
            end(call, error)
        case .later(let work):
            guard let loop = context?.eventLoop else { return }
            let bound = NIOLoopBound((handler: self, call: call), eventLoop: loop)
            loop.makeFutureWithTask(work).assumeIsolated().whenSuccess { later in
                let (handler, call) = bound.value
                // Unless the client reset the stream or the connection closed meanwhile.
                guard handler.calls[call.id] === call, !call.isFinished else { return }
                handler.answer(call, later)
            }
        }
    }

    /// Refuses a call at the HTTP level (`httpStatus`), with `error` as its gRPC status too.
    private func refuse(_ call: Call, httpStatus: String, _ error: RPCError) {
        var headers: HPACKHeaders = [":status": httpStatus, "content-type": "application/grpc"]
        Self.add(error, to: &headers)
        finish(call, trailers: headers)
    }

    /// Ends `call` with `error`'s status (OK when nil): trailers, or a trailers-only response.
    fileprivate func end(_ call: Call, _ error: RPCError?) {
        var trailers: HPACKHeaders = call.sentHeaders ? [:] : Self.responseHeaders
        Self.add(error, to: &trailers)
        finish(call, trailers: trailers)
    }

    private func finish(_ call: Call, trailers: HPACKHeaders) {
        if call.isFinished { return }
        call.state = .finished
        call.pending = nil
        call.deadline?.cancel()
        call.deadline = nil
        write(.headers(.init(headers: trailers, endStream: true)), on: call.id)
        if call.requestsOpen {
            // The client is still sending: tell it to stop, as gRPC over HTTP/2 asks.
            call.requestsOpen = false
            write(.rstStream(.noError), on: call.id)
        }
    }

    /// Resets stream `id`, whose client broke HTTP/2's rules (`PROTOCOL_ERROR`); a call on it is over.
    private func reset(_ id: HTTP2StreamID) {
        if let call = calls.removeValue(forKey: id) { abandon(call) }
        // Not through `write`, which passes on only the frames of open calls.
        context?.writeAndFlush(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .rstStream(.protocolError))), promise: nil)
    }

    /// The stream of `call` closed: a call still being served hears of it.
    private func abandon(_ call: Call) {
        call.deadline?.cancel()
        call.deadline = nil
        let state = call.state
        call.state = .finished
        if case .streaming(let stream) = state { stream.closed() }
    }

    private func abandonAll() {
        let open = calls.values
        calls = [:]
        for call in open { abandon(call) }
    }

    // MARK: Output

    /// Writes and flushes a frame of a call's stream (nothing once the stream has closed), or of the
    /// connection. Inside a read it is held until the read is complete: NIOHTTP2 hands on a read's frames
    /// one by one, so a RST_STREAM may still follow in the same read, and an answer must not outrun it.
    fileprivate func write(_ payload: HTTP2Frame.FramePayload, on id: HTTP2StreamID) {
        guard let context, id == .rootStream || calls[id] != nil else { return }
        let frame = HTTP2Frame(streamID: id, payload: payload)
        if isReading {
            held.append(frame)
        } else {
            context.write(wrapOutboundOut(frame), promise: nil)
            flush(context)
        }
    }

    /// Flushes now, or once at the end of the running `FlushBatch` pass.
    private func flush(_ context: ChannelHandlerContext) {
        if isFlushHeld { return }
        if batch?.hold(self) == true {
            isFlushHeld = true
        } else {
            context.flush()
        }
    }

    func flushHeld() {
        isFlushHeld = false
        context?.flush()
    }

    /// Counts `length` request bytes consumed on `call`'s stream and gives them back to the client
    /// (WINDOW_UPDATE) in batches. (The connection's window is kept from NIOHTTP2's window events, which
    /// also count the DATA frames NIOHTTP2 refused.)
    private func acknowledge(_ length: Int, on call: Call) {
        call.unacknowledged += length
        if call.unacknowledged >= Self.streamUpdateThreshold {
            write(.windowUpdate(windowSizeIncrement: call.unacknowledged), on: call.id)
            call.unacknowledged = 0
        }
    }

    /// The connection's inbound window is now `size`: below half of `connectionWindow`, it is refilled.
    private func connectionWindowChanged(to size: Int) {
        guard size < Self.connectionWindow / 2 else { return }
        write(.windowUpdate(windowSizeIncrement: Self.connectionWindow - size), on: .rootStream)
    }

    // MARK: Words

    private static let responseHeaders: HPACKHeaders = [
        ":status": "200", "content-type": "application/grpc", "grpc-accept-encoding": "identity,deflate,gzip",
    ]

    private static func add(_ error: RPCError?, to headers: inout HPACKHeaders) {
        headers.add(name: "grpc-status", value: String(error?.code.rawValue ?? 0))
        if let error, !error.message.isEmpty { headers.add(name: "grpc-message", value: percentEncoded(error.message)) }
    }

    private static func tooLarge(_ length: Int) -> RPCError {
        RPCError(
            code: .resourceExhausted,
            message: "gRPC message exceeds maximum size \(maxMessageBytes): \(length)")
    }

    /// A `grpc-timeout` value (up to 8 digits and a unit) as a time amount.
    static func timeAmount(_ value: String) -> TimeAmount? {
        guard let unit = value.last, value.count >= 2, value.count <= 9, let amount = Int64(value.dropLast()), amount >= 0
        else { return nil }
        switch unit {
        case "H": return .hours(amount)
        case "M": return .minutes(amount)
        case "S": return .seconds(amount)
        case "m": return .milliseconds(amount)
        case "u": return .microseconds(amount)
        case "n": return .nanoseconds(amount)
        default: return nil
        }
    }

    /// A status message as `grpc-message` carries it: percent-encoded outside printable ASCII.
    static func percentEncoded(_ message: String) -> String {
        message.addingPercentEncoding(withAllowedCharacters: grpcMessageAllowed) ?? message
    }

    /// What `grpc-message` carries as is: printable ASCII but `%`.
    private static let grpcMessageAllowed = CharacterSet(charactersIn: " "..."~").subtracting(CharacterSet(charactersIn: "%"))
}
