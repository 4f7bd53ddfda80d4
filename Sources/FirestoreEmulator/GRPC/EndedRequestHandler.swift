import NIOCore
import NIOHTTP2

/// Sits first on each gRPC stream: when a call's HEADERS frame also ends the stream (a request with no
/// message), tells the handlers behind grpc-swift's that the request stream has ended. grpc-swift's stream
/// handler records the end but does not pass it on, so the call would wait for a message for ever, and the
/// client for an answer; with it, the call fails as a unary call without a message must (grpc-swift's
/// status for it), at once.
final class EndedRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias InboundOut = HTTP2Frame.FramePayload

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        context.fireChannelRead(data)
        if case .headers(let headers) = frame, headers.endStream {
            context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        }
        // Only the first frame can be the request's headers; after it the handler has nothing to do.
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
