import GRPCCore
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import Testing

@testable import FirestoreEmulator

/// The handler that answers some gRPC calls on a stream's event loop, without a network: what it answers,
/// how, and the frames it hands on untouched when it does not.
@Suite struct ImmediateCallHandlerTests {
    /// Answers `/test.Echo/Echo` with the request twice, `/test.Echo/Fail` with NOT_FOUND, and passes on
    /// `/test.Echo/Later`.
    struct Echo: ImmediateGRPCResponder {
        /// What the streams of `/test.Echo/Chat` saw.
        let chats = Chats()

        /// Serves `/test.Echo/Chat` as a stream that answers each message with itself and ends with OK when
        /// the client ends its requests.
        func immediateStream(path: String, headers: HPACKHeaders, output: any ImmediateGRPCStreamOutput)
            -> (any ImmediateGRPCStream)?
        {
            guard path == "/test.Echo/Chat" else { return nil }
            let chat = Chat(output: output)
            chats.all.append(chat)
            return chat
        }

        func immediateAnswerer(path: String) -> ImmediateGRPCAnswerer? {
            guard path.hasPrefix("/test.Echo/"), !["/test.Echo/Stream", "/test.Echo/Chat"].contains(path) else { return nil }
            return { message, _ in
                switch path {
                case "/test.Echo/Echo": return .messages([Array(message.readableBytesView), Array("!".utf8)])
                case "/test.Echo/Fail": return .failure(RPCError(code: .notFound, message: "no 100% sure: é"))
                default: return .passOn
                }
            }
        }
    }

    /// The chats served, in order.
    final class Chats: @unchecked Sendable {
        var all: [Chat] = []
    }

    /// One `/test.Echo/Chat` stream.
    final class Chat: ImmediateGRPCStream {
        let output: any ImmediateGRPCStreamOutput
        var received: [String] = []
        var isClosed = false

        init(output: any ImmediateGRPCStreamOutput) { self.output = output }

        func receive(_ message: ByteBuffer) {
            received.append(String(buffer: message))
            var framed = output.allocator.buffer(capacity: message.readableBytes + 5)
            framed.writeInteger(UInt8(0))
            framed.writeInteger(UInt32(message.readableBytes))
            framed.writeImmutableBuffer(message)
            output.send(framed: framed)
        }

        func requestsEnded() { output.finish(nil) }

        func closed() { isClosed = true }
    }

    /// Records what reaches the handlers behind.
    final class Behind: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTP2Frame.FramePayload
        var frames: [HTTP2Frame.FramePayload] = []

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            frames.append(unwrapInboundIn(data))
        }
    }

    func channel(_ responder: Echo = Echo()) throws -> (EmbeddedChannel, Behind) {
        let behind = Behind()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([ImmediateCallHandler(responder: responder), behind])
        return (channel, behind)
    }

    func headers(_ path: String, _ extra: HPACKHeaders = [:], endStream: Bool = false) -> HTTP2Frame.FramePayload {
        var headers: HPACKHeaders = [
            ":method": "POST", ":scheme": "http", ":path": path, ":authority": "localhost",
            "content-type": "application/grpc", "te": "trailers",
        ]
        headers.add(contentsOf: extra)
        return .headers(.init(headers: headers, endStream: endStream))
    }

    /// A DATA frame with `bytes`, framed as one gRPC message when `framed`.
    func data(_ bytes: String, framed: Bool = true, endStream: Bool = true) -> HTTP2Frame.FramePayload {
        var buffer = ByteBuffer()
        if framed {
            buffer.writeInteger(UInt8(0))
            buffer.writeInteger(UInt32(bytes.utf8.count))
        }
        buffer.writeString(bytes)
        return .data(.init(data: .byteBuffer(buffer), endStream: endStream))
    }

    /// The frames written, in order.
    func written(_ channel: EmbeddedChannel) throws -> [HTTP2Frame.FramePayload] {
        var frames: [HTTP2Frame.FramePayload] = []
        while let frame = try channel.readOutbound(as: HTTP2Frame.FramePayload.self) { frames.append(frame) }
        return frames
    }

    @Test func aCallIsAnsweredWithHeadersMessagesAndTrailersOnceItsRequestEnds() throws {
        let (channel, behind) = try channel()
        try channel.writeInbound(headers("/test.Echo/Echo"))
        try channel.writeInbound(HTTP2Frame.FramePayload.windowUpdate(windowSizeIncrement: 5))  // grpcio sends one
        try channel.writeInbound(data("hel", framed: false, endStream: false).withPrefix(length: 5))
        #expect(try written(channel).isEmpty)
        try channel.writeInbound(data("lo", framed: false))
        let frames = try written(channel)
        #expect(behind.frames.isEmpty)
        guard frames.count == 3, case .headers(let head) = frames[0], case .data(let body) = frames[1],
            case .headers(let trailers) = frames[2], case .byteBuffer(var bytes) = body.data
        else {
            Issue.record("unexpected frames \(frames)")
            return
        }
        #expect(head.headers.first(name: ":status") == "200")
        #expect(head.headers.first(name: "content-type") == "application/grpc")
        #expect(!head.endStream)
        #expect(bytes.readInteger(as: UInt8.self) == 0)
        #expect(bytes.readInteger(as: UInt32.self) == 5)
        #expect(bytes.readString(length: 5) == "hello")
        #expect(bytes.readInteger(as: UInt8.self) == 0)
        #expect(bytes.readInteger(as: UInt32.self) == 1)
        #expect(bytes.readString(length: 1) == "!")
        #expect(trailers.headers.first(name: "grpc-status") == "0")
        #expect(trailers.endStream)
    }

    @Test func aFailureIsATrailersOnlyResponseWithItsMessagePercentEncoded() throws {
        let (channel, _) = try channel()
        try channel.writeInbound(headers("/test.Echo/Fail"))
        try channel.writeInbound(data("x"))
        let frames = try written(channel)
        guard frames.count == 1, case .headers(let trailers) = frames[0] else {
            Issue.record("unexpected frames \(frames)")
            return
        }
        #expect(trailers.endStream)
        #expect(trailers.headers.first(name: ":status") == "200")
        #expect(trailers.headers.first(name: "grpc-status") == "5")
        #expect(trailers.headers.first(name: "grpc-message") == "no 100%25 sure: %C3%A9")
    }

    @Test(arguments: [
        ["/test.Echo/Stream"],  // not answered immediately
        ["/test.Echo/Echo", "grpc-encoding", "gzip"],  // a compressed request
        ["/test.Echo/Echo", "grpc-accept-encoding", "gzip,identity"],  // prefers compressed responses
        ["/test.Other/Echo"],
    ])
    func callsItDoesNotAnswerPassOnUntouched(call: [String]) throws {
        let (channel, behind) = try channel()
        let extra: HPACKHeaders = call.count == 3 ? [call[1]: call[2]] : [:]
        try channel.writeInbound(headers(call[0], extra))
        try channel.writeInbound(data("hi"))
        #expect(try written(channel).isEmpty)
        #expect(behind.frames.count == 2)
        #expect(throws: (any Error).self) { try channel.pipeline.syncOperations.handler(type: ImmediateCallHandler.self) }
    }

    @Test func aRequestThatIsNotExactlyOneMessageOrIsPassedOnReachesTheHandlersBehindInOrder() throws {
        for (path, frames) in [
            ("/test.Echo/Later", [data("a")]),  // the responder passes it on
            ("/test.Echo/Echo", [data("a", endStream: false), data("b")]),  // two messages
            ("/test.Echo/Echo", [data("abc", framed: false)]),  // a short prefix
        ] {
            let (channel, behind) = try channel()
            try channel.writeInbound(headers(path))
            for frame in frames { try channel.writeInbound(frame) }
            #expect(try written(channel).isEmpty)
            #expect(behind.frames.count == 1 + frames.count)
            if case .headers(let first)? = behind.frames.first {
                #expect(first.headers.first(name: ":path") == path)
            } else {
                Issue.record("the headers did not come first")
            }
        }
    }

    @Test func anAnswerWaitsForTheEndOfTheReadAndIsDroppedWhenTheClientResetsTheStreamInIt() throws {
        // The HTTP/2 layer hands a stream its frames once the connection's read is done, when it has
        // already closed a stream the client reset: a frame written to that stream then would be an error
        // for the whole connection.
        let (channel, _) = try channel()
        let pipeline = channel.pipeline.syncOperations
        pipeline.fireChannelRead(NIOAny(headers("/test.Echo/Echo")))
        pipeline.fireChannelRead(NIOAny(data("hi")))
        #expect(try written(channel).isEmpty)
        pipeline.fireChannelRead(NIOAny(HTTP2Frame.FramePayload.rstStream(.cancel)))
        pipeline.fireChannelReadComplete()
        #expect(try written(channel).isEmpty)
    }

    @Test func aStreamGetsEachMessageAsItArrivesAndWritesWhenItWants() throws {
        let echo = Echo()
        let (channel, behind) = try channel(echo)
        try channel.writeInbound(headers("/test.Echo/Chat"))
        guard case .headers(let head)? = try written(channel).first else {
            Issue.record("no response headers")
            return
        }
        #expect(head.headers.first(name: ":status") == "200" && !head.endStream)
        // Two messages, the second split across frames.
        var bytes = ByteBuffer()
        for text in ["one", "two"] {
            bytes.writeInteger(UInt8(0))
            bytes.writeInteger(UInt32(text.utf8.count))
            bytes.writeString(text)
        }
        let split = bytes.readableBytes - 2
        try channel.writeInbound(HTTP2Frame.FramePayload.data(.init(data: .byteBuffer(bytes.getSlice(at: 0, length: split)!))))
        try channel.writeInbound(HTTP2Frame.FramePayload.data(.init(data: .byteBuffer(bytes.getSlice(at: split, length: 2)!))))
        #expect(echo.chats.all.first?.received == ["one", "two"])
        #expect(try written(channel).count == 2)
        try channel.writeInbound(data("", framed: false))
        guard case .headers(let trailers)? = try written(channel).last else {
            Issue.record("no trailers")
            return
        }
        #expect(trailers.headers.first(name: "grpc-status") == "0" && trailers.endStream)
        #expect(behind.frames.isEmpty)
    }

    @Test func aStreamHearsWhenItsStreamCloses() throws {
        let echo = Echo()
        let (channel, _) = try channel(echo)
        try channel.writeInbound(headers("/test.Echo/Chat"))
        _ = try channel.finish()
        #expect(echo.chats.all.first?.isClosed == true)
    }

    @Test func aCompressedMessageWithoutAnEncodingEndsAStreamWithInternal() throws {
        let echo = Echo()
        let (channel, _) = try channel(echo)
        try channel.writeInbound(headers("/test.Echo/Chat"))
        var bytes = ByteBuffer()
        bytes.writeInteger(UInt8(1))
        bytes.writeInteger(UInt32(1))
        bytes.writeString("x")
        try channel.writeInbound(HTTP2Frame.FramePayload.data(.init(data: .byteBuffer(bytes))))
        guard case .headers(let trailers)? = try written(channel).last else {
            Issue.record("no trailers")
            return
        }
        #expect(trailers.headers.first(name: "grpc-status") == String(RPCError.Code.internalError.rawValue))
        #expect(trailers.endStream)
        #expect(echo.chats.all.first?.received == [])
    }

    @Test func aStreamingCallWithADeadlineIsGRPCSwifts() throws {
        let echo = Echo()
        let (channel, behind) = try channel(echo)
        try channel.writeInbound(headers("/test.Echo/Chat", ["grpc-timeout": "1S"]))
        #expect(echo.chats.all.isEmpty)
        #expect(behind.frames.count == 1)
    }

    @Test func headersThatEndTheStreamPassOn() throws {
        let (channel, behind) = try channel()
        try channel.writeInbound(headers("/test.Echo/Echo", endStream: true))
        #expect(try written(channel).isEmpty)
        #expect(behind.frames.count == 1)
    }
}

extension HTTP2Frame.FramePayload {
    /// A DATA frame with a gRPC message prefix announcing `length` bytes in front of its bytes.
    fileprivate func withPrefix(length: UInt32) -> Self {
        guard case .data(var data) = self, case .byteBuffer(let bytes) = data.data else { return self }
        var prefixed = ByteBuffer()
        prefixed.writeInteger(UInt8(0))
        prefixed.writeInteger(length)
        prefixed.writeImmutableBuffer(bytes)
        data.data = .byteBuffer(prefixed)
        return .data(data)
    }
}
