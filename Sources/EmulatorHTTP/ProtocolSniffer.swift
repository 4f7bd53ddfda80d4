import NIOCore

/// The first handler of a connection on a port shared by HTTP/1.1 and HTTP/2 with prior knowledge: buffers
/// the first bytes until they match or diverge from the HTTP/2 preface, has `install` set up the pipeline
/// behind it for that protocol, replays the bytes into it and removes itself. `installed` completes with
/// what `install` produced, or fails if the connection ends first.
final class ProtocolSniffer<Installed: Sendable>: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    /// Sets up the pipeline for the detected protocol; called once, on the channel's event loop.
    typealias Install = (WireProtocol, any Channel) -> EventLoopFuture<Installed>

    private enum State {
        case sniffing
        case installing
        /// `installed` is complete.
        case done
    }

    private var state = State.sniffing
    private var buffered: ByteBuffer?
    private let install: Install
    private let installed: EventLoopPromise<Installed>

    /// A sniffer that completes `installed` once `install` has set up the connection's protocol.
    init(installed: EventLoopPromise<Installed>, install: @escaping Install) {
        self.installed = installed
        self.install = install
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        if buffered == nil {
            buffered = bytes
        } else {
            buffered!.writeBuffer(&bytes)
        }
        guard case .sniffing = state, let wire = WireProtocol(opening: buffered!.readableBytesView) else { return }
        state = .installing
        install(wire, context.channel).hop(to: context.eventLoop).assumeIsolated().whenComplete { result in
            guard case .installing = self.state else { return }  // the connection ended meanwhile
            self.state = .done
            switch result {
            case .success(let value):
                if let buffered = self.buffered {
                    self.buffered = nil
                    context.fireChannelRead(self.wrapInboundOut(buffered))
                    context.fireChannelReadComplete()
                }
                self.installed.succeed(value)
                context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            case .failure(let error):
                self.installed.fail(error)
                context.close(promise: nil)
            }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // Nothing behind the sniffer has read anything yet; the replay brings its own read-complete.
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // A connection that stops sending or is asked to quiesce before it named its protocol is idle.
        if event is ChannelShouldQuiesceEvent || (event as? ChannelEvent) == .inputClosed {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if case .done = state { return }
        state = .done
        installed.fail(ChannelError.eof)
    }
}
