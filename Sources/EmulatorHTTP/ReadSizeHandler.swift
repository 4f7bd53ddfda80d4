import NIOCore

/// Lets a connection read up to 1 MiB per read when that much is waiting (NIO's default stops at 64 KiB),
/// so a large upload crosses the pipeline and the request body's stream in a sixteenth of the steps.
/// Buffers still start small and grow only while reads fill them.
final class ReadSizeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    /// The largest read.
    static let maximum = 1 << 20

    func handlerAdded(context: ChannelHandlerContext) {
        context.channel.setOption(
            ChannelOptions.recvAllocator,
            value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 2048, maximum: Self.maximum)
        ).whenFailure { _ in }  // a channel that closed meanwhile keeps its default
    }
}
