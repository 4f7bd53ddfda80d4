import DatabaseEmulator
import NIOCore
import NIOWebSocket

/// The client end of the wire protocol's WebSocket: reassembles the server's messages and hands them to
/// `messages`, splits and masks outgoing ones (a server requires masked client frames), answers pings, and
/// closes with a close handshake on `goodbye`. The protocol's framing is the emulator's own
/// (`FrameAssembler`), used from this end.
final class WireFrameHandler: ChannelDuplexHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = Outgoing
    typealias OutboundOut = WebSocketFrame

    /// What the connection writes.
    enum Outgoing: Sendable {
        /// One protocol message (a JSON envelope).
        case message(String)
        /// A close frame: the clean goodbye. The channel closes when the server answers (or after a grace
        /// period).
        case goodbye
    }

    /// How long a goodbye waits for the server's close frame before closing anyway.
    static let closeGracePeriod: TimeAmount = .seconds(5)
    /// The largest message accepted from the server, in UTF-8 bytes (larger: the connection is dropped).
    static let messageLimit = 256 << 20

    private let messages: AsyncStream<String>.Continuation
    private var framing = FrameAssembler(limit: messageLimit)
    private var closeSent = false

    /// A handler handing received messages to `messages` (finished when the channel goes inactive).
    init(messages: AsyncStream<String>.Continuation) {
        self.messages = messages
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            var data = frame.unmaskedData
            let text = data.readString(length: data.readableBytes) ?? ""
            switch framing.receive(text) {
            case .message(let message): messages.yield(message)
            case .pending: break
            case .tooLarge: context.close(promise: nil)
            }
        case .ping:
            send(.pong, data: frame.unmaskedData, context: context, promise: nil)
            context.flush()
        case .connectionClose:
            if closeSent {
                context.close(promise: nil)
            } else {
                // The server said goodbye: answer with its status code, then close.
                closeSent = true
                var data = frame.unmaskedData
                let code = data.readSlice(length: 2) ?? ByteBuffer()
                let written = context.eventLoop.makePromise(of: Void.self)
                send(.connectionClose, data: code, context: context, promise: written)
                context.flush()
                written.futureResult.whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
            }
        default:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        messages.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .message(let text):
            let frames = FrameAssembler.frames(of: text)
            for (index, frame) in frames.enumerated() {
                send(
                    .text, data: ByteBuffer(string: frame), context: context,
                    promise: index == frames.count - 1 ? promise : nil)
            }
        case .goodbye:
            guard !closeSent else {
                promise?.succeed()
                return
            }
            closeSent = true
            var code = context.channel.allocator.buffer(capacity: 2)
            code.write(webSocketErrorCode: .normalClosure)
            send(.connectionClose, data: code, context: context, promise: promise)
            context.eventLoop.scheduleTask(in: Self.closeGracePeriod) { [channel = context.channel] in
                channel.close(promise: nil)
            }
        }
    }

    /// Writes one masked frame.
    private func send(
        _ opcode: WebSocketOpcode, data: ByteBuffer, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?
    ) {
        let frame = WebSocketFrame(fin: true, opcode: opcode, maskKey: .random(), data: data)
        context.write(wrapOutboundOut(frame), promise: promise)
    }
}
