import GRPCNIOTransportHTTP2Posix
import NIOCore

/// The last handler of the conduit's listening channel, behind grpc-swift's quiescing handler: `deliver`
/// sends a taken-over connection through the pipeline as an accepted channel (so graceful shutdown knows
/// it) and this handler turns it into the configured connection grpc-swift's transport reads.
final class ConnectionRelay: ChannelInboundHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = HTTP2ServerTransport.ConnectionConfigurator.ConnectionChannel

    private var context: ChannelHandlerContext?
    /// The connection being delivered, while its channel travels the pipeline.
    private var delivering: (channel: ObjectIdentifier, connection: InboundOut)?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    /// Hands `connection`, configured on `channel`, to the transport; closes `channel` if the listener has
    /// closed. Call on the listening channel's event loop.
    func deliver(_ channel: any Channel, configured connection: InboundOut) {
        guard let context, context.channel.isActive else {
            channel.close(promise: nil)
            return
        }
        delivering = (ObjectIdentifier(channel), connection)
        defer { delivering = nil }  // also when the quiescing handler refused and closed it (shutting down)
        context.pipeline.syncOperations.fireChannelRead(NIOAny(channel))
        context.pipeline.syncOperations.fireChannelReadComplete()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let channel = unwrapInboundIn(data)
        guard let delivering, delivering.channel == ObjectIdentifier(channel) else { return }
        self.delivering = nil
        context.fireChannelRead(wrapInboundOut(delivering.connection))
    }
}
