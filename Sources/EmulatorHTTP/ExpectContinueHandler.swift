import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers `Expect: 100-continue` with an interim `100 Continue`, as production and the official emulators
/// (Node) do, so clients that wait for it (curl, Java, .NET) send large upload bodies at once instead of
/// after a second's timeout. The request goes on without the `Expect` header.
final class ExpectContinueHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var request) = unwrapInboundIn(data),
            request.headerFields[.expect]?.lowercased() == "100-continue"
        else {
            context.fireChannelRead(data)
            return
        }
        request.headerFields[.expect] = nil
        context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
        context.fireChannelRead(wrapInboundOut(.head(request)))
    }
}
