import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers `CONNECT` (a proxy tunnel request: no emulator is a proxy) with `405 Method Not Allowed` and
/// closes the connection, before the request reaches an emulator. A response to `CONNECT` has no body
/// framing, so a client would otherwise wait for the connection to close: it must close.
final class ConnectRefusalHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var refused = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if refused { return }  // the refused request's body, and anything after it
        guard case .head(let request) = unwrapInboundIn(data), request.method == .connect else {
            context.fireChannelRead(data)
            return
        }
        refused = true
        let response = HTTPResponse(
            status: .methodNotAllowed,
            headerFields: [.allow: "GET, HEAD, PUT, PATCH, POST, DELETE, OPTIONS", .connection: "close", .contentLength: "0"])
        context.write(wrapOutboundOut(.head(response)), promise: nil)
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: written)
        written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}
