import EmulatorHTTP
import FirestoreWire
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import NIOCore
import NIOPosix
import ServiceLifecycle

/// The gRPC side of the Firestore port (8080): grpc-swift-2 serving `services` over the HTTP/2 cleartext
/// connections (prior knowledge, as every gRPC client connects) that the port's `EmulatorServer` sniffs
/// and hands over, while HTTP/1.1 on the same port stays REST, as in the official emulator.
///
/// For service authors: a service is any `RegistrableRPCService`, usually a type conforming to a generated
/// `….SimpleServiceProtocol` (or `ServiceProtocol` / `StreamingServiceProtocol`), e.g.
/// `Google_Firestore_V1_Firestore.SimpleServiceProtocol`. `FirestoreEmulator` builds the endpoint from its
/// service list and hands it to its `EmulatorServer`; methods no service registers answer UNIMPLEMENTED.
/// gRPC semantics (status and trailers, deadlines, metadata, cancellation when the client goes away, flow
/// control) come from grpc-swift. Serving limits:
/// - requests up to 64 MiB (production caps them at 10 MiB);
/// - up to `maxConcurrentStreams` calls at once on one connection, advertised in SETTINGS so clients queue
///   beyond it (NIO's unadvertised default of 100 would refuse the 101st with GOAWAY, breaking clients that
///   open a stream per listener: grpc-java, which the official emulator runs on, sets no limit);
/// - requests compressed with gzip or deflate (`grpc-encoding`), as grpc-java and grpcio clients send when
///   compression is enabled; responses are compressed when the client asks for it;
/// - calls a service answers immediately (`ImmediateGRPCResponder`: Firestore's all but `Listen` and
///   `Write`) are answered on the connection's event loop as soon as their request is in
///   (`ImmediateCallHandler`), not through grpc-swift's per-call task; `Listen` is served there as a stream
///   (`ListenCall`), each event loop's listen calls taking a commit in one pass that flushes each
///   connection once (`FlushBatch`); a call with a deadline or compression is grpc-swift's;
/// - a call whose HEADERS end the stream (no message) is answered at once (`EndedRequestHandler`);
/// - client keepalive pings as often as every 10 s, with or without calls in flight (the iOS SDK pings
///   every 30 s); HTTP/2 PINGs are answered by the connection itself;
/// - on shutdown each connection gets GOAWAY and 1 s to finish its calls, then closes: long-lived `Listen`
///   and `Write` streams end there and the SDKs reconnect.
/// grpc-swift's server idle and age timers start when a connection becomes active, before the hand-off, so
/// they never run here: connections stay open until the client or the shutdown closes them.
struct GRPCEndpoint: HTTP2Handoff {
    private let server: GRPCServer<HTTP2ServerTransport.Custom<ConnectionConduit>>
    private let conduit: ConnectionConduit

    /// The most calls one connection may have open at once (each listener of the server SDKs is one).
    static let maxConcurrentStreams = 10_000

    /// An endpoint serving `services`; it takes connections once run as a service.
    init(services: [any RegistrableRPCService]) {
        var config = HTTP2ServerTransport.Custom<ConnectionConduit>.Config.defaults
        config.rpc.maxRequestPayloadSize = 64 << 20
        config.http2.maxConcurrentStreams = Self.maxConcurrentStreams
        config.compression.enabledAlgorithms = .all
        config.connection.keepalive.clientBehavior = .init(
            minPingIntervalWithoutCalls: .seconds(10), allowWithoutCalls: true)
        config.connection.maxGraceTime = .seconds(1)
        // grpc-swift's default holds each flush up to 100 µs on a timer to batch writes; measured here
        // (bench/firestore_calls.py, ListenBenchmark) it made unary calls dearer and a lone listener later,
        // and 1,000 listeners no faster. Flushes within one read are batched by the HTTP/2 handler anyway.
        config.connection.flushCoalescing = nil
        let immediate = services.lazy.compactMap { $0 as? any ImmediateGRPCResponder }.first
        config.channelDebuggingCallbacks.onAcceptHTTP2Stream = { stream in
            stream.eventLoop.makeCompletedFuture {
                let handlers = stream.pipeline.syncOperations
                try handlers.addHandler(EndedRequestHandler(), position: .first)
                if let immediate { try handlers.addHandler(ImmediateCallHandler(responder: immediate), position: .first) }
            }
        }
        conduit = ConnectionConduit(eventLoopGroup: MultiThreadedEventLoopGroup.singleton)  // Hummingbird's too
        server = GRPCServer(
            transport: HTTP2ServerTransport.Custom(listenerFactory: conduit, config: config), services: services)
    }

    /// Serves until graceful shutdown, then lets the calls in flight finish (see above).
    func run() async throws {
        defer { conduit.close() }
        try await withGracefulShutdownHandler {
            try await server.serve()
        } onGracefulShutdown: {
            server.beginGracefulShutdown()
        }
    }

    func waitUntilReady() async throws {
        try await conduit.waitUntilListening()
    }

    func takeOver(_ channel: any Channel) -> EventLoopFuture<Void> {
        conduit.takeOver(channel)
    }
}

/// Why the gRPC endpoint cannot take a connection.
enum GRPCEndpointError: Error, CustomStringConvertible {
    /// The endpoint stopped, or stopped before it started listening.
    case stopped

    var description: String { "the gRPC endpoint has stopped" }
}
