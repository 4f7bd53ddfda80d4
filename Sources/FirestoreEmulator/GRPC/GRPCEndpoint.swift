import EmulatorHTTP
import NIOCore
import NIOHPACK
import NIOHTTP2
import ServiceLifecycle
import Synchronization

/// The gRPC side of the Firestore port (8080): the HTTP/2 cleartext connections (prior knowledge, as every
/// gRPC client connects) that the port's `EmulatorServer` sniffs and hands over, while HTTP/1.1 on the same
/// port stays REST, as in the official emulator.
///
/// Each connection is NIOHTTP2's connection handler, NIOHTTP2's server connection management (graceful
/// shutdown) and a `GRPCConnectionHandler` serving every call of `responder` on the connection's event loop:
/// there is no channel, task or thread hop per call. (grpc-swift's server transport cost about twice the
/// server CPU per call, most of it in per-stream channels and tasks; see README → Benchmarks.) Serving
/// limits:
/// - requests up to 64 MiB (production caps them at 10 MiB);
/// - up to `maxConcurrentStreams` calls at once on one connection, advertised in SETTINGS so clients queue
///   beyond it (NIO's unadvertised default of 100 would refuse the 101st with GOAWAY, breaking clients that
///   open a stream per listener: grpc-java, which the official emulator runs on, sets no limit);
/// - requests compressed with gzip or deflate (`grpc-encoding`), as grpc-java and grpcio clients send when
///   compression is enabled;
/// - client keepalive pings at any rate (the iOS SDK pings every 30 s): HTTP/2 PINGs are answered by the
///   connection itself;
/// - on shutdown each connection gets GOAWAY and `gracePeriod` to finish its calls, then closes: long-lived
///   `Listen` and `Write` streams end there and the SDKs reconnect;
/// - a connection whose client breaks HTTP/2 gets NIOHTTP2's GOAWAY and is closed.
final class GRPCEndpoint: HTTP2Handoff {
    private let responder: any ImmediateGRPCResponder
    private let connections = Mutex(Connections())

    /// The most calls one connection may have open at once (each listener of the server SDKs is one).
    static let maxConcurrentStreams = 10_000
    /// How long a connection's calls may run on after shutdown begins.
    static let gracePeriod = TimeAmount.seconds(1)

    private struct Connections {
        var open: [ObjectIdentifier: any Channel] = [:]
        var stopping = false
        var drained: CheckedContinuation<Void, Never>?
    }

    /// An endpoint serving `responder`'s calls; it takes connections at once.
    init(responder: any ImmediateGRPCResponder) {
        self.responder = responder
    }

    /// Waits for graceful shutdown, then sends each connection GOAWAY and returns once all have closed: by
    /// their clients, at the end of their calls, or by force `gracePeriod` after (also when a client never
    /// acknowledges the GOAWAY's PING, after which NIOHTTP2's grace timer would start).
    func run() async throws {
        try? await gracefulShutdown()
        await withCheckedContinuation { (drained: CheckedContinuation<Void, Never>) in
            let open = connections.withLock { connections -> [any Channel]? in
                connections.stopping = true
                guard !connections.open.isEmpty else { return nil }
                connections.drained = drained
                return Array(connections.open.values)
            }
            guard let open else { return drained.resume() }
            for channel in open {
                channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
                channel.eventLoop.scheduleTask(in: Self.gracePeriod) { channel.close(promise: nil) }
            }
        }
    }

    func waitUntilReady() async throws {}

    func takeOver(_ channel: any Channel) -> EventLoopFuture<Void> {
        let key = ObjectIdentifier(channel)
        let admitted = connections.withLock { connections in
            guard !connections.stopping else { return false }
            connections.open[key] = channel
            return true
        }
        guard admitted else { return channel.eventLoop.makeFailedFuture(GRPCEndpointError.stopped) }
        channel.closeFuture.whenComplete { [self] _ in
            let drained = connections.withLock { connections -> CheckedContinuation<Void, Never>? in
                connections.open[key] = nil
                guard connections.open.isEmpty, let drained = connections.drained else { return nil }
                connections.drained = nil
                return drained
            }
            drained?.resume()
        }
        return channel.eventLoop.makeCompletedFuture {
            // The HTTP/1.1 server accepted the socket allowing half-closure; a gRPC client's FIN ends the
            // connection (with it allowed, every closed client would leave a socket in CLOSE-WAIT for good).
            try channel.syncOptions?.setOption(ChannelOptions.allowRemoteHalfClosure, value: false)
            let handlers = channel.pipeline.syncOperations
            try handlers.addHandler(
                NIOHTTP2Handler(
                    mode: .server, frameDelegate: ConnectionErrorCloser(channel: channel),
                    connectionConfiguration: Self.connectionConfiguration))
            // The calls' handler comes first: the streams' frames and window events end there, and what the
            // management handler needs (PING acks, stream opened and closed, quiesce) passes on to it. Behind
            // it, the management handler would see two window events and a write for every message sent.
            try handlers.addHandler(GRPCConnectionHandler(responder: responder))
            try handlers.addHandler(
                NIOHTTP2ServerConnectionManagementHandler(
                    eventLoop: channel.eventLoop,
                    configuration: .init(maxIdleTime: nil, maxAge: nil, maxGraceTime: Self.gracePeriod, keepalive: nil)))
        }
    }

    private static var connectionConfiguration: NIOHTTP2Handler.ConnectionConfiguration {
        var configuration = NIOHTTP2Handler.ConnectionConfiguration()
        // Our responses need no checking; a client's header blocks are checked by `HeaderBlockCheck`.
        configuration.headerBlockValidation = .disabled
        configuration.initialSettings = [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: maxConcurrentStreams),
            HTTP2Setting(parameter: .initialWindowSize, value: GRPCConnectionHandler.connectionWindow),
            HTTP2Setting(parameter: .maxHeaderListSize, value: HPACKDecoder.defaultMaxHeaderListSize),
        ]
        return configuration
    }
}

/// Closes a connection once NIOHTTP2 has sent it a GOAWAY for a protocol error (NIOHTTP2 only sends it).
private struct ConnectionErrorCloser: NIOHTTP2FrameDelegate {
    let channel: any Channel

    func wroteFrame(_ frame: HTTP2Frame) {
        guard case .goAway(_, let code, _) = frame.payload, code != .noError else { return }
        // After the write in progress and its flush.
        channel.eventLoop.execute { [channel] in channel.close(promise: nil) }
    }
}

/// Why the gRPC endpoint cannot take a connection.
enum GRPCEndpointError: Error, CustomStringConvertible {
    /// The endpoint is shutting down.
    case stopped

    var description: String { "the gRPC endpoint has stopped" }
}
