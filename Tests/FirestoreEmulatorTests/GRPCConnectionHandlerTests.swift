import GRPCCore
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import Testing

@testable import FirestoreEmulator

/// The handler that serves every gRPC call of an HTTP/2 connection on its event loop, without a network:
/// frames in, frames out, as NIOHTTP2's connection handler hands them over and takes them.
@Suite struct GRPCConnectionHandlerTests {
    /// Answers `/test.Echo/Echo` with the request and "!", `/test.Echo/Fail` with NOT_FOUND, and serves
    /// `/test.Echo/Chat` as a stream.
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
            switch path {
            case "/test.Echo/Echo": { message, _ in .messages([Array(message.readableBytesView), Array("!".utf8)]) }
            case "/test.Echo/Fail": { _, _ in .failure(RPCError(code: .notFound, message: "no 100% sure: é")) }
            default: nil
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
            framed.writeGRPCPrefix(length: message.readableBytes)
            framed.writeImmutableBuffer(message)
            output.send(framed: framed)
        }

        func requestsEnded() { output.finish(nil) }

        func closed() { isClosed = true }
    }

    func channel(_ responder: Echo = Echo()) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(GRPCConnectionHandler(responder: responder))
        return channel
    }

    /// Reads `frames` as one read of the connection (reads, then read complete), as NIOHTTP2 hands them on.
    func read(_ channel: EmbeddedChannel, _ frames: HTTP2Frame...) {
        for frame in frames { channel.pipeline.syncOperations.fireChannelRead(NIOAny(frame)) }
        channel.pipeline.syncOperations.fireChannelReadComplete()
    }

    func headers(_ path: String, _ extra: HPACKHeaders = [:], stream: Int = 1, endStream: Bool = false, method: String = "POST")
        -> HTTP2Frame
    {
        var headers: HPACKHeaders = [
            ":method": method, ":scheme": "http", ":path": path, ":authority": "localhost",
            "content-type": "application/grpc", "te": "trailers",
        ]
        headers.add(contentsOf: extra)
        return HTTP2Frame(streamID: HTTP2StreamID(stream), payload: .headers(.init(headers: headers, endStream: endStream)))
    }

    /// A DATA frame with `bytes`, framed as one gRPC message when `framed`.
    func data(_ bytes: String, framed: Bool = true, stream: Int = 1, endStream: Bool = true) -> HTTP2Frame {
        data(Array(bytes.utf8), framed: framed, stream: stream, endStream: endStream)
    }

    func data(_ bytes: [UInt8], framed: Bool = true, flag: UInt8 = 0, stream: Int = 1, endStream: Bool = true) -> HTTP2Frame {
        var buffer = ByteBuffer()
        if framed {
            buffer.writeInteger(flag)
            buffer.writeInteger(UInt32(bytes.count))
        }
        buffer.writeBytes(bytes)
        return HTTP2Frame(streamID: HTTP2StreamID(stream), payload: .data(.init(data: .byteBuffer(buffer), endStream: endStream)))
    }

    /// The frames written and flushed, in order; the WINDOW_UPDATEs giving request bytes back only when
    /// `windowUpdates`.
    func written(_ channel: EmbeddedChannel, windowUpdates: Bool = false) throws -> [HTTP2Frame] {
        var frames: [HTTP2Frame] = []
        while let frame = try channel.readOutbound(as: HTTP2Frame.self) {
            if case .windowUpdate = frame.payload, !windowUpdates { continue }
            frames.append(frame)
        }
        return frames
    }

    /// The status trailers of `frames` (the last HEADERS frame ending its stream).
    func status(_ frames: [HTTP2Frame]) -> HPACKHeaders? {
        for frame in frames.reversed() {
            if case .headers(let headers) = frame.payload, headers.endStream { return headers.headers }
        }
        return nil
    }

    @Test func aCallIsAnsweredWithHeadersMessagesAndTrailersOnceItsRequestEnds() throws {
        let channel = try channel()
        read(channel, headers("/test.Echo/Echo"), HTTP2Frame(streamID: 1, payload: .windowUpdate(windowSizeIncrement: 5)))
        var first = data("hel", framed: false, endStream: false)
        if case .data(var payload) = first.payload, case .byteBuffer(let bytes) = payload.data {
            var prefixed = ByteBuffer()
            prefixed.writeGRPCPrefix(length: 5)
            prefixed.writeImmutableBuffer(bytes)
            payload.data = .byteBuffer(prefixed)
            first.payload = .data(payload)
        }
        read(channel, first)
        #expect(try written(channel).isEmpty)
        read(channel, data("lo", framed: false))
        let frames = try written(channel)
        guard frames.count == 3, case .headers(let head) = frames[0].payload, case .data(let body) = frames[1].payload,
            case .headers(let trailers) = frames[2].payload, case .byteBuffer(var bytes) = body.data
        else {
            Issue.record("unexpected frames \(frames)")
            return
        }
        #expect(frames.allSatisfy { $0.streamID == 1 })
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
        let channel = try channel()
        read(channel, headers("/test.Echo/Fail"), data("x"))
        let frames = try written(channel)
        guard frames.count == 1, case .headers(let trailers) = frames[0].payload else {
            Issue.record("unexpected frames \(frames)")
            return
        }
        #expect(trailers.endStream)
        #expect(trailers.headers.first(name: ":status") == "200")
        #expect(trailers.headers.first(name: "grpc-status") == "5")
        #expect(trailers.headers.first(name: "grpc-message") == "no 100%25 sure: %C3%A9")
    }

    @Test func callsOnManyStreamsInOneReadAreAnsweredWithOneFlushWhenTheReadEnds() throws {
        let channel = try channel()
        let pipeline = channel.pipeline.syncOperations
        for stream in [1, 3, 5] {
            pipeline.fireChannelRead(NIOAny(headers("/test.Echo/Echo", stream: stream)))
            pipeline.fireChannelRead(NIOAny(data("s\(stream)", stream: stream)))
        }
        #expect(try written(channel).isEmpty, "nothing goes out before the read is complete")
        pipeline.fireChannelReadComplete()
        let frames = try written(channel)
        #expect(frames.map(\.streamID) == [1, 1, 1, 3, 3, 3, 5, 5, 5])
    }

    @Test func anAnswerIsDroppedWhenTheClientResetsItsStreamLaterInTheSameRead() throws {
        // The client ends its request and resets the stream in one TCP read (a cancelled grpc-swift call
        // does): NIOHTTP2 hands the frames on one by one, and an answer written between them would reach a
        // client that has forgotten the stream, which it takes as a connection error (STREAM_CLOSED).
        let channel = try channel()
        let pipeline = channel.pipeline.syncOperations
        pipeline.fireChannelRead(NIOAny(headers("/test.Echo/Echo", stream: 1)))
        pipeline.fireChannelRead(NIOAny(data("a", stream: 1)))
        pipeline.fireChannelRead(NIOAny(headers("/test.Echo/Echo", stream: 3)))
        pipeline.fireChannelRead(NIOAny(data("b", stream: 3)))
        pipeline.fireUserInboundEventTriggered(StreamClosedEvent(streamID: 1, reason: .cancel))
        pipeline.fireChannelReadComplete()
        #expect(try written(channel).map(\.streamID) == [3, 3, 3])
    }

    @Test(arguments: [
        ("/test.Other/Echo", [String](), "12", "Method not found: test.Other/Echo"),
        ("/test.Echo/Echo", ["a", "b"], "13", "Too many requests"),
        ("/test.Echo/Echo", [], "13", "Half-closed without a request"),
    ])
    func callsRefusedInGRPCJavasWords(path: String, messages: [String], code: String, message: String) throws {
        let channel = try channel()
        var frames = [headers(path, endStream: messages.isEmpty)]
        for (index, text) in messages.enumerated() { frames.append(data(text, endStream: index == messages.count - 1)) }
        for frame in frames { channel.pipeline.syncOperations.fireChannelRead(NIOAny(frame)) }
        channel.pipeline.syncOperations.fireChannelReadComplete()
        let trailers = try #require(status(try written(channel)))
        #expect(trailers.first(name: "grpc-status") == code)
        #expect(trailers.first(name: "grpc-message") == message)
    }

    @Test func aRequestEndingInsideAMessageIsRefused() throws {
        let channel = try channel()
        read(channel, headers("/test.Echo/Echo"), data("abc", framed: false))
        let trailers = try #require(status(try written(channel)))
        #expect(trailers.first(name: "grpc-status") == "13")
        #expect(trailers.first(name: "grpc-message") == "Encountered end-of-stream mid-frame")
    }

    @Test func aCallEndedWhileItsClientStillSendsIsResetWithNoError() throws {
        let channel = try channel()
        read(channel, headers("/test.Echo/Echo"), data("a", endStream: false), data("b", endStream: false))
        let frames = try written(channel)
        #expect(status(frames)?.first(name: "grpc-message") == "Too many requests")
        guard case .rstStream(let code)? = frames.last?.payload else {
            Issue.record("no RST_STREAM after the trailers: \(frames)")
            return
        }
        #expect(code == .noError)
    }

    @Test func aMalformedHeaderBlockResetsItsStreamWithProtocolError() throws {
        // NIOHTTP2's own validation is off; the handler checks a client's blocks (see `HeaderBlockCheck`).
        let channel = try channel()
        read(channel, headers("/test.Echo/Echo", ["connection": "close"], stream: 1, endStream: true))
        read(channel, headers("/test.Echo/Echo", stream: 3), data("a", stream: 3, endStream: false))
        read(channel, HTTP2Frame(streamID: 3, payload: .headers(.init(headers: [":path": "/x"], endStream: true))))
        read(channel, headers("/test.Echo/Echo", stream: 5), data("b", stream: 5))
        let frames = try written(channel)
        let resets = frames.compactMap { frame -> HTTP2StreamID? in
            guard case .rstStream(let code) = frame.payload, code == .protocolError else { return nil }
            return frame.streamID
        }
        #expect(resets == [1, 3])
        #expect(frames.filter { $0.streamID == 5 }.count == 3)
        #expect(frames.allSatisfy { $0.streamID == 5 || { if case .rstStream = $0.payload { true } else { false } }($0) })
    }

    @Test func otherMethodsAndContentTypesAreRefusedAtTheHTTPLevel() throws {
        let channel = try channel()
        read(channel, headers("/test.Echo/Echo", endStream: true, method: "GET"))
        #expect(status(try written(channel))?.first(name: ":status") == "405")
        var json = headers("/test.Echo/Echo", stream: 3, endStream: true)
        if case .headers(var payload) = json.payload {
            payload.headers.replaceOrAdd(name: "content-type", value: "application/json")
            json.payload = .headers(payload)
        }
        read(channel, json)
        #expect(status(try written(channel))?.first(name: ":status") == "415")
    }

    @Test func gzipAndDeflateRequestsAreDecompressedAndOtherEncodingsRefused() throws {
        // "hello hello hello", gzip and zlib.
        let gzip: [UInt8] = [
            31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 203, 72, 205, 201, 201, 87, 200, 64, 144, 0, 128, 136, 249, 229, 17, 0, 0, 0,
        ]
        let zlib: [UInt8] = [120, 156, 203, 72, 205, 201, 201, 87, 200, 64, 144, 0, 58, 46, 6, 125]
        for (encoding, bytes) in [("gzip", gzip), ("deflate", zlib)] {
            let channel = try channel()
            read(channel, headers("/test.Echo/Echo", ["grpc-encoding": encoding]), data(bytes, flag: 1))
            let frames = try written(channel)
            guard frames.count == 3, case .data(let body) = frames[1].payload, case .byteBuffer(var answer) = body.data else {
                Issue.record("\(encoding): unexpected frames \(frames)")
                continue
            }
            answer.moveReaderIndex(forwardBy: 5)
            #expect(answer.readString(length: 17) == "hello hello hello", "\(encoding)")
        }
        let channel = try channel()
        read(channel, headers("/test.Echo/Echo", ["grpc-encoding": "snappy"]), data(gzip, flag: 1))
        let trailers = try #require(status(try written(channel)))
        #expect(trailers.first(name: "grpc-status") == "12")
        #expect(trailers.first(name: "grpc-message") == "Can't find decompressor for snappy")
        #expect(trailers.first(name: "grpc-accept-encoding")?.contains("gzip") == true)
    }

    @Test func aStreamGetsEachMessageAsItArrivesAndWritesWhenItWants() throws {
        let echo = Echo()
        let channel = try channel(echo)
        read(channel, headers("/test.Echo/Chat"))
        guard case .headers(let head)? = try written(channel).first?.payload else {
            Issue.record("no response headers")
            return
        }
        #expect(head.headers.first(name: ":status") == "200" && !head.endStream)
        // Two messages, the second split across frames.
        var bytes = ByteBuffer()
        for text in ["one", "two"] {
            bytes.writeGRPCMessage(Array(text.utf8))
        }
        let split = bytes.readableBytes - 2
        read(channel, HTTP2Frame(streamID: 1, payload: .data(.init(data: .byteBuffer(bytes.getSlice(at: 0, length: split)!)))))
        read(channel, HTTP2Frame(streamID: 1, payload: .data(.init(data: .byteBuffer(bytes.getSlice(at: split, length: 2)!)))))
        #expect(echo.chats.all.first?.received == ["one", "two"])
        #expect(try written(channel).count == 2)
        // Outside a read, a write goes out at once.
        echo.chats.all.first?.receive(ByteBuffer(string: "three"))
        #expect(try written(channel).count == 1)
        read(channel, data("", framed: false))
        let trailers = try #require(status(try written(channel)))
        #expect(trailers.first(name: "grpc-status") == "0")
    }

    @Test func aStreamHearsWhenItsStreamClosesOrTheConnectionCloses() throws {
        let echo = Echo()
        let channel = try channel(echo)
        read(channel, headers("/test.Echo/Chat", stream: 1), headers("/test.Echo/Chat", stream: 3))
        channel.pipeline.fireUserInboundEventTriggered(StreamClosedEvent(streamID: 1, reason: .cancel))
        #expect(echo.chats.all.map(\.isClosed) == [true, false])
        _ = try channel.finish()
        #expect(echo.chats.all.map(\.isClosed) == [true, true])
    }

    @Test func aCompressedMessageWithoutAnEncodingEndsAStreamWithInternal() throws {
        let echo = Echo()
        let channel = try channel(echo)
        read(channel, headers("/test.Echo/Chat"), data(Array("x".utf8), flag: 1, endStream: false))
        let trailers = try #require(status(try written(channel)))
        #expect(trailers.first(name: "grpc-status") == String(RPCError.Code.internalError.rawValue))
        #expect(echo.chats.all.first?.received == [])
    }

    @Test func aStreamingCallEndsWithDeadlineExceededWhenItsTimeoutPasses() throws {
        let echo = Echo()
        let channel = try channel(echo)
        read(channel, headers("/test.Echo/Chat", ["grpc-timeout": "1S"]))
        _ = try written(channel)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(900))
        #expect(try written(channel).isEmpty)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(200))
        let frames = try written(channel)
        #expect(status(frames)?.first(name: "grpc-status") == String(RPCError.Code.deadlineExceeded.rawValue))
        #expect(echo.chats.all.first?.isClosed == true)
    }

    @Test func requestBytesAreGivenBackToTheClientAsTheyAreConsumed() throws {
        let echo = Echo()
        let channel = try channel(echo)
        read(channel, headers("/test.Echo/Chat"))
        _ = try written(channel)
        let message = [UInt8](repeating: 0x61, count: 300_000)
        read(channel, data(message, endStream: false))
        let updates = try written(channel, windowUpdates: true).compactMap { frame -> (HTTP2StreamID, Int)? in
            guard case .windowUpdate(let increment) = frame.payload else { return nil }
            return (frame.streamID, increment)
        }
        #expect(updates.map(\.0) == [1])
        #expect(updates.map(\.1) == [300_005])
        #expect(echo.chats.all.first?.received.first?.count == 300_000)
        // The connection's window, as NIOHTTP2 reports it, is refilled when it falls below half.
        channel.pipeline.fireUserInboundEventTriggered(
            NIOHTTP2WindowUpdatedEvent(streamID: .rootStream, inboundWindowSize: 600_000, outboundWindowSize: 65_535))
        #expect(try written(channel, windowUpdates: true).isEmpty)
        channel.pipeline.fireUserInboundEventTriggered(
            NIOHTTP2WindowUpdatedEvent(streamID: .rootStream, inboundWindowSize: 65_535 - 300_005, outboundWindowSize: 65_535))
        let refill = try written(channel, windowUpdates: true)
        guard refill.count == 1, case .windowUpdate(let increment) = refill[0].payload else {
            Issue.record("no connection WINDOW_UPDATE: \(refill)")
            return
        }
        #expect(refill[0].streamID == .rootStream)
        #expect(increment == (1 << 20) - (65_535 - 300_005))
    }
}
