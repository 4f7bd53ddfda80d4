import NIOCore
import NIOEmbedded
import Testing

@testable import FirestoreEmulator

/// A pass that writes to many streams flushes each connection once, at its end.
@Suite struct FlushBatchTests {
    @Test func flushesDuringAPassAreHeldUntilItEndsThenMadeOnce() throws {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(FlushBatchingHandler())
        let counter = FlushCounter()
        try channel.pipeline.syncOperations.addHandler(counter, position: .first)
        FlushBatch.current.run {
            for index in 0..<3 {
                channel.pipeline.syncOperations.write(NIOAny(ByteBuffer(string: "\(index)")), promise: nil)
                channel.pipeline.syncOperations.flush()
            }
            #expect(counter.flushes == 0)
            FlushBatch.current.run {}  // a nested pass flushes nothing of the outer one
            #expect(counter.flushes == 0)
        }
        #expect(counter.flushes == 1)
        #expect(try channel.readOutbound(as: ByteBuffer.self) == ByteBuffer(string: "0"))
        channel.pipeline.syncOperations.flush()
        #expect(counter.flushes == 2, "outside a pass a flush goes through at once")
        _ = try channel.finish()
    }

    /// Counts the flushes that reach the socket's side.
    final class FlushCounter: ChannelOutboundHandler {
        typealias OutboundIn = Any
        var flushes = 0

        func flush(context: ChannelHandlerContext) {
            flushes += 1
            context.flush()
        }
    }
}
