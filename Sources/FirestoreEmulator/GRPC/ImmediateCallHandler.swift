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
final class ImmediateCallHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias InboundOut = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    /// The largest request kept here; a larger one is passed on (grpc-swift enforces the endpoint's limit).
    static let maxRequestBytes = 1 << 20

    private let responder: any ImmediateGRPCResponder
    private var state = State.idle

    private enum State {
        /// Before the call's headers.
        case idle
        /// Keeping a call's frames (its headers first) until the client ends its stream; `size` counts
        /// their DATA bytes.
        case collecting(ImmediateGRPCAnswerer, headers: HPACKHeaders, frames: [HTTP2Frame.FramePayload], size: Int)
        /// Answered, or passed on; the stream is closing.
        case done
    }

    /// A handler answering the calls `responder` answers immediately.
    init(responder: any ImmediateGRPCResponder) {
        self.responder = responder
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch state {
        case .idle:
            guard case .headers(let headers) = frame, !headers.endStream, let path = Self.immediatePath(headers.headers),
                let answerer = responder.immediateAnswerer(path: path)
            else {
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
        case .done:
            break  // a client's frames after the end of its stream: the HTTP/2 layer has refused them already
        }
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
            context.write(wrapOutboundOut(.headers(.init(headers: responseHeaders))), promise: nil)
            var framed = context.channel.allocator.buffer(capacity: messages.reduce(0) { $0 + 5 + $1.count })
            for message in messages {
                framed.writeInteger(UInt8(0))
                framed.writeInteger(UInt32(message.count))
                framed.writeBytes(message)
            }
            if framed.readableBytes > 0 {
                context.write(wrapOutboundOut(.data(.init(data: .byteBuffer(framed)))), promise: nil)
            }
            context.write(wrapOutboundOut(.headers(.init(headers: ["grpc-status": "0"], endStream: true))), promise: nil)
            context.flush()
        case .failure(let error):
            state = .done
            var trailers: HPACKHeaders = [
                ":status": "200", "content-type": "application/grpc", "grpc-status": String(error.code.rawValue),
            ]
            if !error.message.isEmpty { trailers.add(name: "grpc-message", value: Self.percentEncoded(error.message)) }
            context.write(wrapOutboundOut(.headers(.init(headers: trailers, endStream: true))), promise: nil)
            context.flush()
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
