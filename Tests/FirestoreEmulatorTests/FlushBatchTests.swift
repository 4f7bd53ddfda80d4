import NIOCore
import NIOEmbedded
import NIOHTTP2
import Testing

@testable import FirestoreEmulator

/// A pass that writes to many streams of a connection flushes the connection once, at its end.
@Suite struct FlushBatchTests {
    @Test func streamsWritingDuringAPassFlushTheirConnectionOnceWhenItEnds() throws {
        let handlers = GRPCConnectionHandlerTests()
        let echo = GRPCConnectionHandlerTests.Echo()
        let channel = try handlers.channel(echo)
        let counter = FlushCounter()
        try channel.pipeline.syncOperations.addHandler(counter, position: .first)
        handlers.read(channel, handlers.headers("/test.Echo/Chat", stream: 1), handlers.headers("/test.Echo/Chat", stream: 3))
        _ = try handlers.written(channel)
        let before = counter.flushes
        FlushBatch.current.run {
            for chat in echo.chats.all { chat.receive(ByteBuffer(string: "news")) }
            #expect(counter.flushes == before)
            FlushBatch.current.run {}  // a nested pass flushes nothing of the outer one
            #expect(counter.flushes == before)
        }
        #expect(counter.flushes == before + 1)
        let streams = try handlers.written(channel).map(\.streamID)
        #expect(streams == [HTTP2StreamID(1), HTTP2StreamID(3)], "each stream's message")
        echo.chats.all[0].receive(ByteBuffer(string: "later"))
        #expect(counter.flushes == before + 2, "outside a pass a write is flushed at once")
        _ = try channel.finish(acceptAlreadyClosed: true)
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
