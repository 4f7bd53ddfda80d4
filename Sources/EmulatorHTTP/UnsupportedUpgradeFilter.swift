import NIOCore
import NIOHTTP1

/// Turns a connection's first request, if it asks to upgrade to none of `protocols` (`Upgrade: h2c` from
/// `curl --http2`, anything unknown), into a plain request that closes the connection after its answer,
/// as an HTTP/1.1 server that ignores `Upgrade` does. NIO's upgrade handler would otherwise drop such a
/// request unanswered; and the HTTP decoder stops reading after any upgrade request, so the connection
/// cannot carry another. Sits between the decoder and the upgrade handler; leaves after the first request.
final class UnsupportedUpgradeFilter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    /// The protocols served, lowercased.
    let protocols: Set<String>

    init(protocols: Set<String>) {
        self.protocols = protocols
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        let requested = head.headers[canonicalForm: "upgrade"].map { $0.lowercased() }
        if !requested.isEmpty, protocols.isDisjoint(with: requested) {
            head.headers.remove(name: "upgrade")
            head.headers.replaceOrAdd(name: "connection", value: "close")
            context.fireChannelRead(wrapInboundOut(.head(head)))
        } else {
            context.fireChannelRead(data)
        }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
