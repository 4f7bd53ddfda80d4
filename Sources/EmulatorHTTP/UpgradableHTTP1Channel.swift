import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle

/// An HTTP/1.1 child channel that can upgrade (`base`, Hummingbird's WebSocket one), mended where NIO's
/// upgrade handler leaves clients without an answer: an unparseable request is answered 400
/// (`UpgradeParseErrorHandler` behind `base`'s handlers), and an upgrade to a protocol nobody serves (`h2c`
/// from `curl --http2`) is served as plain HTTP/1.1 (`UnsupportedUpgradeFilter` before the upgrade handler),
/// and a connection that has sent no request when the server stops (a browser's preconnected socket) is
/// closed: nothing else would end it, and the server's shutdown waits for every connection.
struct UpgradableHTTP1Channel<Base: ServerChildChannel>: ServerChildChannel {
    let base: Base
    /// The protocols `base` upgrades to, lowercased.
    let protocols: Set<String>

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Base.Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { [protocols] value in
            let operations = channel.pipeline.syncOperations
            let decoder = try operations.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try operations.addHandler(UnsupportedUpgradeFilter(protocols: protocols), position: .after(decoder.handler))
            try operations.addHandler(UpgradeParseErrorHandler())
            return value
        }
    }

    func handle(value: Base.Value, logger: Logger) async {
        let channel = value.channel
        await withGracefulShutdownHandler {
            await base.handle(value: value, logger: logger)
        } onGracefulShutdown: {
            // The filter leaves the pipeline at the first request head: while it is there, no request came.
            channel.eventLoop.execute {
                if (try? channel.pipeline.syncOperations.handler(type: UnsupportedUpgradeFilter.self)) != nil {
                    channel.close(promise: nil)
                }
            }
        }
    }
}

extension HTTPServerBuilder {
    /// An HTTP/1.1 server that can upgrade connections to `protocols` (`channel` makes its child channel,
    /// Hummingbird's `HTTP1WebSocketUpgradeChannel` say), answering every other request as the plain
    /// HTTP/1.1 server does: unparseable ones `400` at once, upgrades to other protocols as plain requests.
    public static func upgradable(
        to protocols: Set<String>,
        _ channel: @escaping @Sendable (@escaping HTTPChannelHandler.Responder) -> some ServerChildChannel
    ) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            UpgradableHTTP1Channel(base: channel(responder), protocols: Set(protocols.map { $0.lowercased() }))
        }
    }
}
