import NIOCore
import NIOHTTP1

/// Answers a request that cannot be parsed (a bad version or method, a header too large, TLS or HTTP/2
/// bytes) with `400` and closes, on an HTTP/1.1 pipeline that can upgrade (WebSocket): there the upgrade
/// handler holds the first request until it has decided, and Hummingbird answers parse errors only after
/// that, so without this the connection would hang with no answer. Sits at the end of the pipeline and
/// leaves it once anything is read past the upgrade decision (after that Hummingbird or the WebSocket
/// handles every error).
final class UpgradeParseErrorHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias OutboundOut = HTTPServerResponsePart

    private var answered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        guard !answered else { return }
        answered = true
        let head = HTTPResponseHead(
            version: .http1_1, status: .badRequest, headers: ["Connection": "close", "Content-Length": "0"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: written)
        written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}
