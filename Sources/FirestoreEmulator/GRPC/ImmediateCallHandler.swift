import GRPCCore
import NIOCore
import NIOHPACK
import NIOHTTP2

/// A gRPC service that answers some of its calls on the connection's event loop as soon as the request has
/// arrived. grpc-swift runs every call as a task fed through async sequences; for a call that runs under a
/// lock and returns (Firestore's unary RPCs and its server-streaming ones whose responses are all known at
/// once) that machinery and its thread hops cost several times the call itself.
///
/// The endpoint asks `answersImmediately(path:)` when a call's headers arrive and, if so, collects the
/// request and calls `respond`. Anything unusual about a call (compression, more or less than one message,
/// bytes that do not decode) leaves it to grpc-swift, which answers it in its own words: the two paths give
/// the same answers.
protocol ImmediateGRPCResponder: Sendable {
    /// Whether calls to `path` (`/package.Service/Method`) are answered here.
    func answersImmediately(path: String) -> Bool

    /// The answer to a call to `path` whose request message is `message` (uncompressed, without the gRPC
    /// length prefix) and whose headers are `headers`.
    func respond(path: String, message: ByteBuffer, headers: HPACKHeaders) -> ImmediateGRPCAnswer
}

/// What an `ImmediateGRPCResponder` answers.
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
        /// Keeping the frames of a call to `path` until the client ends its stream.
        case collecting(path: String, headers: HPACKHeaders, frames: [HTTP2Frame.FramePayload], body: ByteBuffer)
        /// Answered; the stream is closing.
        case answered
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
                responder.answersImmediately(path: path)
            else {
                return passOn(context: context, frames: [frame])
            }
            state = .collecting(path: path, headers: headers.headers, frames: [frame], body: context.channel.allocator.buffer(capacity: 0))
        case .collecting(let path, let headers, var frames, var body):
            state = .answered  // frees the array and buffer for appending in place
            frames.append(frame)
            switch frame {
            case .windowUpdate, .priority:  // the client's flow control, not the call's
                state = .collecting(path: path, headers: headers, frames: frames, body: body)
                return
            default:
                break
            }
            guard case .data(let data) = frame, case .byteBuffer(var bytes) = data.data,
                body.readableBytes + bytes.readableBytes <= Self.maxRequestBytes
            else {
                return passOn(context: context, frames: frames)
            }
            body.writeBuffer(&bytes)
            guard data.endStream else {
                state = .collecting(path: path, headers: headers, frames: frames, body: body)
                return
            }
            answer(context: context, path: path, headers: headers, body: body, frames: frames)
        case .answered:
            break  // a client's frames after the end of its stream: the HTTP/2 layer has refused them already
        }
    }

    /// Answers the call, or passes it on when the request is not exactly one uncompressed message or the
    /// responder passes it on.
    private func answer(
        context: ChannelHandlerContext, path: String, headers: HPACKHeaders, body: ByteBuffer,
        frames: [HTTP2Frame.FramePayload]
    ) {
        var body = body
        guard let compressed = body.readInteger(as: UInt8.self), compressed == 0,
            let length = body.readInteger(as: UInt32.self), Int(length) == body.readableBytes
        else {
            return passOn(context: context, frames: frames)
        }
        switch responder.respond(path: path, message: body, headers: headers) {
        case .passOn:
            passOn(context: context, frames: frames)
        case .messages(let messages):
            state = .answered
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
            state = .answered
            var trailers: HPACKHeaders = [
                ":status": "200", "content-type": "application/grpc", "grpc-status": String(error.code.rawValue),
            ]
            if !error.message.isEmpty { trailers.add(name: "grpc-message", value: Self.percentEncoded(error.message)) }
            context.write(wrapOutboundOut(.headers(.init(headers: trailers, endStream: true))), promise: nil)
            context.flush()
        }
    }

    /// Hands `frames` to the handlers behind and steps aside.
    private func passOn(context: ChannelHandlerContext, frames: [HTTP2Frame.FramePayload]) {
        state = .answered
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
        var encoded = ""
        encoded.reserveCapacity(message.utf8.count)
        for byte in message.utf8 {
            if byte >= 0x20, byte <= 0x7E, byte != UInt8(ascii: "%") {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = Array("0123456789ABCDEF".utf8)
                encoded.unicodeScalars.append("%")
                encoded.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
                encoded.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 0x0F)]))
            }
        }
        return encoded
    }
}
