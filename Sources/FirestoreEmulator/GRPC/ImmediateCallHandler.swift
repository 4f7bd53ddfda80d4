import GRPCCore
import NIOCore
import NIOHPACK
import NIOHTTP2

/// A gRPC service that answers some of its calls on the connection's event loop as soon as the request has
/// arrived. grpc-swift runs every call as a task fed through async sequences; for a call that runs under a
/// lock and returns (Firestore's unary RPCs and its server-streaming ones whose responses are all known at
/// once) that machinery and its thread hops cost several times the call itself.
///
/// The endpoint asks `immediateAnswerer(path:)` once, when a call's headers arrive, and, given one,
/// collects the request and calls it. Anything unusual about a call (compression, more or less than one
/// message, bytes that do not decode) leaves it to grpc-swift, which answers it in its own words: the two
/// paths give the same answers.
protocol ImmediateGRPCResponder: Sendable {
    /// What answers calls to `path` (`/package.Service/Method`) here; nil leaves them to grpc-swift.
    func immediateAnswerer(path: String) -> ImmediateGRPCAnswerer?

    /// A long-lived call to `path` served on the event loop from its first message on, writing to `output`;
    /// nil leaves it to `immediateAnswerer` or grpc-swift. Asked when the call's headers arrive (a call
    /// with a deadline is grpc-swift's, which enforces it).
    func immediateStream(path: String, headers: HPACKHeaders, output: any ImmediateGRPCStreamOutput)
        -> (any ImmediateGRPCStream)?
}

extension ImmediateGRPCResponder {
    /// No call is served as a stream here unless the responder says so.
    func immediateStream(path: String, headers: HPACKHeaders, output: any ImmediateGRPCStreamOutput)
        -> (any ImmediateGRPCStream)?
    {
        nil
    }
}

/// A streaming call served on its connection's event loop. Every method is called on that loop, in the
/// order things happen on the stream; after `requestsEnded()` or `closed()`, or once the call has finished
/// its output, none is called again but `closed()`.
protocol ImmediateGRPCStream: AnyObject {
    /// The client's next request message (uncompressed, without the gRPC length prefix).
    func receive(_ message: ByteBuffer)
    /// The client ended its requests (the call may go on answering, or finish).
    func requestsEnded()
    /// The stream went away before the call finished: the client reset it or the connection closed.
    func closed()
}

/// Where an `ImmediateGRPCStream` writes. Use on the stream's event loop.
protocol ImmediateGRPCStreamOutput: AnyObject {
    /// The stream's event loop.
    var eventLoop: any EventLoop { get }
    /// Whether the stream takes more output without queueing it (the client reads).
    var isWritable: Bool { get }
    /// Where buffers for `send` come from.
    var allocator: ByteBufferAllocator { get }
    /// Sends response messages, each with its gRPC prefix, and flushes (a flush that `FlushBatch` may hold
    /// for the rest of a pass).
    func send(framed messages: ByteBuffer)
    /// Ends the call with status OK, or `error`'s; nothing is sent after it.
    func finish(_ error: RPCError?)
}

/// Answers one call from its request message (uncompressed, without the gRPC length prefix) and headers.
typealias ImmediateGRPCAnswerer = @Sendable (_ message: ByteBuffer, _ headers: HPACKHeaders) -> ImmediateGRPCAnswer

/// What an `ImmediateGRPCAnswerer` answers.
enum ImmediateGRPCAnswer {
    /// These response messages (serialized), then status OK.
    case messages([[UInt8]])
    /// This status, with no messages.
    case failure(RPCError)
    /// Not answered here: grpc-swift serves the call.
    case passOn
}

/// Sits first on each gRPC stream (before `EndedRequestHandler` and grpc-swift's handlers). For a call its
/// responder answers immediately, it keeps the request's frames until the client ends the stream, then
/// writes the response headers, messages and trailers (or a trailers-only status) and flushes: the stream
/// closes with both ends done, and grpc-swift's task for it finds it closed before it saw any headers and
/// ends. Every other call, and one the responder passes on, gets the frames it kept, in order, and the
/// handler steps aside.
///
/// A call the responder serves as an `ImmediateGRPCStream` gets the response headers at once, then each
/// request message as it arrives; the stream writes when it wants (`ImmediateGRPCStreamOutput`).
final class ImmediateCallHandler: ChannelInboundHandler, RemovableChannelHandler, ImmediateGRPCStreamOutput {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias InboundOut = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    /// The largest request kept here; a larger one is passed on (grpc-swift enforces the endpoint's limit).
    static let maxRequestBytes = 1 << 20
    /// The largest request message of a call served as a stream here: the endpoint's limit for every call.
    static let maxStreamMessageBytes = 64 << 20

    private let responder: any ImmediateGRPCResponder
    private var state = State.idle
    private var context: ChannelHandlerContext?
    /// Inside `channelRead`: answers wait in `held` until the read is complete.
    private var isReading = false
    private var held: [HTTP2Frame.FramePayload] = []
    /// The client reset the stream: nothing more is written.
    private var isReset = false

    private enum State {
        /// Before the call's headers.
        case idle
        /// Keeping a call's frames (its headers first) until the client ends its stream; `size` counts
        /// their DATA bytes.
        case collecting(ImmediateGRPCAnswerer, headers: HPACKHeaders, frames: [HTTP2Frame.FramePayload], size: Int)
        /// A call served by `stream`; `pending` holds the start of a request message not yet whole.
        case streaming(any ImmediateGRPCStream, pending: ByteBuffer?)
        /// Answered, or passed on; the stream is closing.
        case done
    }

    /// A handler answering the calls `responder` answers immediately.
    init(responder: any ImmediateGRPCResponder) {
        self.responder = responder
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        isReading = true
        if case .rstStream = frame {
            // The client reset the stream: whatever was answered in this read must not go out.
            held = []
            isReset = true
        }
        switch state {
        case .idle:
            guard case .headers(let headers) = frame, !headers.endStream, let path = Self.immediatePath(headers.headers)
            else {
                return passOn(context: context, frames: [frame])
            }
            if !headers.headers.contains(name: "grpc-timeout"),
                let stream = responder.immediateStream(path: path, headers: headers.headers, output: self)
            {
                state = .streaming(stream, pending: nil)
                let responseHeaders: HPACKHeaders = [":status": "200", "content-type": "application/grpc"]
                emit(.headers(.init(headers: responseHeaders)), context: context)
                flush(context: context)
                return
            }
            guard let answerer = responder.immediateAnswerer(path: path) else {
                return passOn(context: context, frames: [frame])
            }
            state = .collecting(answerer, headers: headers.headers, frames: [frame], size: 0)
        case .collecting(let answerer, let headers, var frames, var size):
            state = .done  // frees the array for appending in place
            frames.append(frame)
            switch frame {
            case .windowUpdate, .priority:  // the client's flow control, not the call's
                state = .collecting(answerer, headers: headers, frames: frames, size: size)
            case .data(let data):
                size += data.data.readableBytes
                guard case .byteBuffer = data.data, size <= Self.maxRequestBytes else {
                    return passOn(context: context, frames: frames)
                }
                guard data.endStream else {
                    state = .collecting(answerer, headers: headers, frames: frames, size: size)
                    return
                }
                answer(context: context, answerer: answerer, headers: headers, frames: frames, size: size)
            default:
                passOn(context: context, frames: frames)
            }
        case .streaming(let stream, var pending):
            state = .done  // frees the buffer for appending in place
            switch frame {
            case .data(let data):
                guard case .byteBuffer(var bytes) = data.data else { return }
                if pending == nil { pending = bytes } else { pending!.writeBuffer(&bytes) }
                state = .streaming(stream, pending: pending)
                deliverMessages(from: &pending!, to: stream)
                if case .streaming = state {
                    state = .streaming(stream, pending: pending!.readableBytes > 0 ? pending : nil)
                    if data.endStream { stream.requestsEnded() }
                }
            case .headers(let trailers):
                state = .streaming(stream, pending: pending)
                if trailers.endStream { stream.requestsEnded() }
            default:
                state = .streaming(stream, pending: pending)
            }
        case .done:
            break  // a client's frames after the end of its stream: the HTTP/2 layer has refused them already
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        isReading = false
        if !held.isEmpty {
            let frames = held
            held = []
            for frame in frames { context.write(wrapOutboundOut(frame), promise: nil) }
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    /// Writes `frame`, or holds it until the read ends when it answers something read now. The HTTP/2
    /// layer hands a stream what it read only once the connection's read is done, so a client's RST_STREAM
    /// may follow in the same read, and the connection already knows the stream is gone: a frame written
    /// to it then is an error for the whole connection, which grpc-swift closes.
    private func emit(_ frame: HTTP2Frame.FramePayload, context: ChannelHandlerContext) {
        guard !isReset else { return }
        if isReading {
            held.append(frame)
        } else {
            context.write(wrapOutboundOut(frame), promise: nil)
        }
    }

    /// Flushes what `emit` wrote (what it holds is flushed with it when the read ends).
    private func flush(context: ChannelHandlerContext) {
        if !isReading { context.flush() }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        close()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        close()
        context.fireChannelInactive()
    }

    /// Hands each whole request message in `pending` to `stream`; a compressed or oversized one ends the call.
    private func deliverMessages(from pending: inout ByteBuffer, to stream: any ImmediateGRPCStream) {
        while pending.readableBytes >= 5, case .streaming = state {
            let start = pending.readerIndex
            let compressed = pending.getInteger(at: start, as: UInt8.self)!
            let length = Int(pending.getInteger(at: start + 1, as: UInt32.self)!)
            guard compressed == 0 else {
                return finish(RPCError(code: .internalError, message: "Received a compressed message on a call without grpc-encoding."))
            }
            guard length <= Self.maxStreamMessageBytes else {
                return finish(
                    RPCError(
                        code: .resourceExhausted,
                        message: "Message has exceeded the configured maximum payload size (max: \(Self.maxStreamMessageBytes), actual: \(length))"))
            }
            guard pending.readableBytes >= 5 + length else { return }
            pending.moveReaderIndex(forwardBy: 5)
            stream.receive(pending.readSlice(length: length)!)
        }
    }

    /// The stream went away: a call still served hears of it.
    private func close() {
        guard case .streaming(let stream, _) = state else { return }
        state = .done
        stream.closed()
    }

    // MARK: ImmediateGRPCStreamOutput

    var eventLoop: any EventLoop { context!.eventLoop }

    var isWritable: Bool { context?.channel.isWritable ?? false }

    var allocator: ByteBufferAllocator { context?.channel.allocator ?? ByteBufferAllocator() }

    func send(framed messages: ByteBuffer) {
        guard case .streaming = state, let context, messages.readableBytes > 0 else { return }
        emit(.data(.init(data: .byteBuffer(messages))), context: context)
        flush(context: context)
    }

    func finish(_ error: RPCError?) {
        guard case .streaming = state, let context else { return }
        state = .done
        var trailers: HPACKHeaders = ["grpc-status": String(error?.code.rawValue ?? 0)]
        if let error, !error.message.isEmpty { trailers.add(name: "grpc-message", value: Self.percentEncoded(error.message)) }
        emit(.headers(.init(headers: trailers, endStream: true)), context: context)
        flush(context: context)
    }

    /// `messages` with their gRPC prefixes (uncompressed, length), in one buffer.
    private static func framed(_ messages: [[UInt8]], allocator: ByteBufferAllocator) -> ByteBuffer {
        var framed = allocator.buffer(capacity: messages.reduce(0) { $0 + 5 + $1.count })
        for message in messages { framed.writeGRPCMessage(message) }
        return framed
    }

    /// Answers the call, or passes it on when the request is not exactly one uncompressed message or the
    /// answerer passes it on.
    private func answer(
        context: ChannelHandlerContext, answerer: ImmediateGRPCAnswerer, headers: HPACKHeaders,
        frames: [HTTP2Frame.FramePayload], size: Int
    ) {
        var body = Self.body(of: frames, size: size, allocator: context.channel.allocator)
        guard let compressed = body.readInteger(as: UInt8.self), compressed == 0,
            let length = body.readInteger(as: UInt32.self), Int(length) == body.readableBytes
        else {
            return passOn(context: context, frames: frames)
        }
        switch answerer(body, headers) {
        case .passOn:
            passOn(context: context, frames: frames)
        case .messages(let messages):
            state = .done
            let responseHeaders: HPACKHeaders = [":status": "200", "content-type": "application/grpc"]
            emit(.headers(.init(headers: responseHeaders)), context: context)
            let framed = Self.framed(messages, allocator: context.channel.allocator)
            if framed.readableBytes > 0 {
                emit(.data(.init(data: .byteBuffer(framed))), context: context)
            }
            emit(.headers(.init(headers: ["grpc-status": "0"], endStream: true)), context: context)
            flush(context: context)
        case .failure(let error):
            state = .done
            var trailers: HPACKHeaders = [
                ":status": "200", "content-type": "application/grpc", "grpc-status": String(error.code.rawValue),
            ]
            if !error.message.isEmpty { trailers.add(name: "grpc-message", value: Self.percentEncoded(error.message)) }
            emit(.headers(.init(headers: trailers, endStream: true)), context: context)
            flush(context: context)
        }
    }

    /// The request's bytes: its one DATA frame's buffer as it is (the usual case), or its frames' joined.
    private static func body(of frames: [HTTP2Frame.FramePayload], size: Int, allocator: ByteBufferAllocator) -> ByteBuffer {
        let buffers = frames.compactMap { frame -> ByteBuffer? in
            guard case .data(let data) = frame, case .byteBuffer(let bytes) = data.data, bytes.readableBytes > 0 else {
                return nil
            }
            return bytes
        }
        if buffers.count == 1 { return buffers[0] }
        var joined = allocator.buffer(capacity: size)
        for var buffer in buffers { joined.writeBuffer(&buffer) }
        return joined
    }

    /// Hands `frames` to the handlers behind and steps aside.
    private func passOn(context: ChannelHandlerContext, frames: [HTTP2Frame.FramePayload]) {
        state = .done
        for frame in frames {
            context.fireChannelRead(wrapInboundOut(frame))
        }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    /// The call's path when its headers are those of a plain gRPC call: POST, a gRPC content type and no
    /// request compression. (A client that wants compressed responses first, `grpc-accept-encoding`, is
    /// passed on too: grpc-swift compresses them.)
    private static func immediatePath(_ headers: HPACKHeaders) -> String? {
        guard headers.first(name: ":method") == "POST", let path = headers.first(name: ":path"),
            let type = headers.first(name: "content-type"), type == "application/grpc" || type == "application/grpc+proto"
        else { return nil }
        if let encoding = headers.first(name: "grpc-encoding"), encoding != "identity" { return nil }
        if let accepted = headers.first(name: "grpc-accept-encoding"),
            let preferred = accepted.split(separator: ",").first, preferred.filter({ $0 != " " }) != "identity"
        {
            return nil
        }
        return path
    }

    /// A status message as `grpc-message` carries it: percent-encoded outside printable ASCII.
    static func percentEncoded(_ message: String) -> String {
        var encoded: [UInt8] = []
        encoded.reserveCapacity(message.utf8.count)
        for byte in message.utf8 {
            if byte >= 0x20, byte <= 0x7E, byte != UInt8(ascii: "%") {
                encoded.append(byte)
            } else {
                encoded += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)
}

extension ByteBuffer {
    /// Writes the prefix of an uncompressed gRPC message of `length` bytes (flag 0, big-endian length).
    mutating func writeGRPCPrefix(length: Int) {
        writeInteger(UInt8(0))
        writeInteger(UInt32(length))
    }

    /// Writes `message` as one uncompressed gRPC message: its prefix, then its bytes.
    mutating func writeGRPCMessage(_ message: [UInt8]) {
        writeGRPCPrefix(length: message.count)
        writeBytes(message)
    }
}
