import DatabaseEmulator
import EmulatorHTTP
import NIOCore
import NIOPosix
import Synchronization
import Testing

@Suite struct ServerShutdownTests {
    /// A connection that never sends a request (a browser keeps preconnected sockets) has no request
    /// handler to end it; stopping closes it instead of waiting for the client (which held `hearth` past a
    /// test's 15 s bound once in a dozen runs of the browser long-polling tests).
    @Test func stoppingClosesConnectionsThatSentNoRequest() async throws {
        let emulator = try DatabaseEmulator(projectID: "demo-shutdown", port: 0)
        let port = try await emulator.start()
        let connection = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        let stopped = StopFlag()
        let stopping = Task {
            await emulator.stop()
            stopped.value.withLock { $0 = true }
        }
        try await connection.executeThenClose { inbound, _ in
            // Not the 3 s graceful-shutdown limit (which does not end such a connection either): at once.
            try await Task.sleep(for: .seconds(2))
            let stoppedInTime = stopped.value.withLock { $0 }
            #expect(stoppedInTime, "stopped while the silent connection was open")
            var answer = inbound.makeAsyncIterator()
            if stoppedInTime { #expect(try await answer.next() == nil, "closed without an answer") }
        }
        await stopping.value  // (without the mend, closing the connection above is what lets it end)
    }
}

/// Whether the emulator has stopped, set from the task stopping it.
private final class StopFlag: Sendable {
    let value = Mutex(false)
}
