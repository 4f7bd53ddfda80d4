#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import GRPCNIOTransportHTTP2Posix
import NIOCore
import NIOPosix
import Synchronization

/// The listener grpc-swift's `HTTP2ServerTransport.Custom` gets for the Firestore port. grpc-swift's own
/// listeners accept sockets; this one accepts connections the port's protocol sniffer has already read the
/// HTTP/2 preface from. Its listening channel is a pipe that never carries a byte: `takeOver` configures
/// each connection for gRPC on the connection's event loop and feeds it into that channel, where grpc-swift
/// reads it like an accepted socket.
final class ConnectionConduit: HTTP2ServerTransport.ListenerFactory {
    /// A connection configured for gRPC, as the transport reads it.
    typealias Connection = HTTP2ServerTransport.ConnectionConfigurator.ConnectionChannel

    let eventLoopGroup: any EventLoopGroup
    private let state = Mutex(State.starting(waiters: []))

    private enum State {
        case starting(waiters: [CheckedContinuation<Void, any Error>])
        case listening(Listener)
        case closed
    }

    /// The listening channel and what feeding it needs.
    private struct Listener: Sendable {
        var channel: any Channel
        var relay: NIOLoopBound<ConnectionRelay>
        var configurator: HTTP2ServerTransport.ConnectionConfigurator
    }

    /// A conduit whose listening channel runs on `eventLoopGroup`.
    init(eventLoopGroup: any EventLoopGroup) {
        self.eventLoopGroup = eventLoopGroup
    }

    func makeListeningChannel(
        listenerConfigurator: HTTP2ServerTransport.ListenerConfigurator,
        connectionConfigurator: HTTP2ServerTransport.ConnectionConfigurator
    ) async throws -> NIOAsyncChannel<Connection, Never> {
        var ends: [CInt] = [0, 0]
        guard pipe(&ends) == 0 else { throw IOError(errnoCode: errno, reason: "pipe") }
        let (listening, relay) = try await NIOPipeBootstrap(group: eventLoopGroup).takingOwnershipOfDescriptors(
            input: ends[0], output: ends[1]
        ) { channel in
            listenerConfigurator.configure(channel: channel).flatMapThrowing {
                let relay = ConnectionRelay()
                try channel.pipeline.syncOperations.addHandler(relay)
                let listening = try NIOAsyncChannel<Connection, Never>(wrappingChannelSynchronously: channel)
                return (listening, NIOLoopBound(relay, eventLoop: channel.eventLoop))
            }
        }
        let listener = Listener(channel: listening.channel, relay: relay, configurator: connectionConfigurator)
        let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            guard case .starting(let waiters) = state else { return [] }
            state = .listening(listener)
            return waiters
        }
        for waiter in waiters { waiter.resume() }
        listening.channel.closeFuture.whenComplete { _ in self.close() }
        return listening
    }

    /// Returns once the transport listens; throws `GRPCEndpointError.stopped` if it stopped first.
    func waitUntilListening() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let outcome = state.withLock { state -> Result<Void, any Error>? in
                switch state {
                case .starting(var waiters):
                    waiters.append(continuation)
                    state = .starting(waiters: waiters)
                    return nil
                case .listening: return .success(())
                case .closed: return .failure(GRPCEndpointError.stopped)
                }
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    /// Configures `channel`, a connection that opened with the HTTP/2 preface, for gRPC and feeds it to the
    /// transport. Call on the channel's event loop; the future succeeds once the gRPC handlers are in place.
    func takeOver(_ channel: any Channel) -> EventLoopFuture<Void> {
        guard case .listening(let listener) = state.withLock({ $0 }) else {
            return channel.eventLoop.makeFailedFuture(GRPCEndpointError.stopped)
        }
        // The HTTP/1.1 server accepted the socket allowing half-closure; grpc-swift's pipeline expects a
        // client's FIN to close the connection (with it allowed, every closed client would leave a socket in
        // CLOSE-WAIT for good).
        do {
            try channel.syncOptions?.setOption(ChannelOptions.allowRemoteHalfClosure, value: false)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return listener.configurator.configure(channel: channel, tls: .none).flatMapThrowing { connection in
            // Next to the socket: a pass writing to many of the connection's streams flushes it once.
            try channel.pipeline.syncOperations.addHandler(FlushBatchingHandler(), position: .first)
            listener.channel.eventLoop.execute {
                listener.relay.value.deliver(channel, configured: connection)
            }
        }
    }

    /// Stops taking connections; whoever waits for the listener learns it stopped.
    func close() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            defer { state = .closed }
            guard case .starting(let waiters) = state else { return [] }
            return waiters
        }
        for waiter in waiters { waiter.resume(throwing: GRPCEndpointError.stopped) }
    }
}
