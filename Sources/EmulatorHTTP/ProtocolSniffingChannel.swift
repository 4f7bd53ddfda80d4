import EmulatorCore
import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's child channel for a port shared by HTTP/1.1 and HTTP/2 with prior knowledge: each
/// connection starts with a `ProtocolSniffer`, then becomes an `HTTP1` connection served by Hummingbird or
/// is handed to `http2` for good.
struct ProtocolSniffingChannel<HTTP1: ServerChildChannel>: ServerChildChannel {
    /// A connection whose protocol is being detected.
    struct Value: ServerChildChannelValue {
        /// The connection.
        let channel: any Channel
        /// Succeeds once the detected protocol's pipeline is installed; fails if the connection ends first.
        let installed: EventLoopFuture<Installed>
    }

    /// What a connection turned out to be.
    enum Installed: Sendable {
        /// HTTP/1.1, with its pipeline in place.
        case http1(HTTP1.Value)
        /// HTTP/2, now owned by the hand-off.
        case http2
    }

    /// Serves the HTTP/1.1 connections.
    let http1: HTTP1
    /// Takes the HTTP/2 connections.
    let http2: any HTTP2Handoff

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let installed = channel.eventLoop.makePromise(of: Installed.self)
            let sniffer = ProtocolSniffer(installed: installed) { [http1, http2] wire, channel in
                switch wire {
                case .http1: http1.setup(channel: channel, logger: logger).map { .http1($0) }
                case .http2: http2.takeOver(channel).map { .http2 }
                }
            }
            try channel.pipeline.syncOperations.addHandler(sniffer)
            return Value(channel: channel, installed: installed.futureResult)
        }
    }

    func handle(value: Value, logger: Logger) async {
        guard case .http1(let connection)? = try? await value.installed.get() else { return }
        await http1.handle(value: connection, logger: logger)
    }
}

extension HTTP1Channel.Configuration {
    /// Every emulator's HTTP/1.1: `Expect: 100-continue` answered at once, `CONNECT` refused, and a
    /// connection idle for `standardIdleTimeout` (no request in progress, or a request whose head or body stalled)
    /// closed, so abandoned keep-alive connections and stalled clients give their descriptors back.
    public static var emulator: Self {
        Self(
            additionalChannelHandlers: [ReadSizeHandler(), ConnectRefusalHandler(), ExpectContinueHandler()],
            idleTimeout: standardIdleTimeout)
    }

    /// How long an HTTP/1.1 connection may stay idle (nginx's keep-alive default is 75 s; Node's 5 s cuts
    /// off clients that reuse connections).
    static let standardIdleTimeout = TimeAmount.seconds(60)
}

/// Hummingbird's HTTP/1.1 channel with the requests `immediate` accepts answered on the event loop
/// (`ImmediateResponseHandler`, right behind NIO's request decoder). That handler sees every request and
/// response, so it keeps the connection's idle timer in place of Hummingbird's connection-state handler,
/// which never sees the requests it answers: a connection busy with them is not idle. (Hummingbird's timer
/// once saw a connection carrying only such requests as idle and closed it under them after 60 s.)
/// Without `immediate` it is Hummingbird's channel as it is.
struct ImmediateHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    private let http1: HTTP1Channel
    private let immediate: (any ImmediateResponder)?
    private let access: LocalAccess
    /// The server's CORS policy, for the browsers' requests `immediate` answers.
    private let cors: CORSPolicy?
    /// The configuration's idle timeout, kept by the immediate handler when there is one.
    private let idleTimeout: TimeAmount?

    /// Hummingbird's channel answering with `responder` under `configuration`, and `immediate` ahead of it.
    init(
        responder: @escaping HTTPChannelHandler.Responder, configuration: HTTP1Channel.Configuration,
        immediate: (any ImmediateResponder)?, access: LocalAccess, cors: CORSPolicy? = nil
    ) {
        var configuration = configuration
        idleTimeout = configuration.idleTimeout
        if immediate != nil { configuration.idleTimeout = nil }
        http1 = HTTP1Channel(responder: responder, configuration: configuration)
        self.immediate = immediate
        self.access = access
        self.cors = cors
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        guard let immediate else { return http1.setup(channel: channel, logger: logger) }
        return http1.setup(channel: channel, logger: logger).flatMapThrowing { [access, cors, idleTimeout] value in
            try ImmediateResponseHandler.install(
                on: channel.pipeline.syncOperations, responder: immediate, access: access, cors: cors, idleTimeout: idleTimeout)
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// Hummingbird's HTTP/1.1 server configured with `configuration`, with the requests `immediate`
    /// accepts answered on the event loop (browsers' with `cors`), and, with `http2`, connections opening
    /// with the HTTP/2 preface handed to it.
    static func emulator(
        configuration: HTTP1Channel.Configuration, answering immediate: (any ImmediateResponder)?, access: LocalAccess,
        cors: CORSPolicy, handingHTTP2To http2: (any HTTP2Handoff)?
    ) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            let http1 = ImmediateHTTP1Channel(
                responder: responder, configuration: configuration, immediate: immediate, access: access, cors: cors)
            guard let http2 else { return http1 }
            return ProtocolSniffingChannel(http1: http1, http2: http2)
        }
    }
}
