import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import Testing

@testable import FirestoreEmulator

/// `HeaderBlockCheck` takes and refuses the header blocks NIOHTTP2's own validation takes and refuses: each
/// block is sent by a client that checks nothing to a NIOHTTP2 server that validates, and the check must
/// agree with whether the server passed the block on or reset its stream.
@Suite struct HeaderBlockCheckTests {
    /// Collects the frames the server passes on.
    final class Recorder: ChannelInboundHandler {
        typealias InboundIn = HTTP2Frame
        var headers: [HTTP2StreamID] = []

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let frame = unwrapInboundIn(data)
            if case .headers = frame.payload { headers.append(frame.streamID) }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {}
    }

    /// A client and a validating server, connected in memory.
    struct Connection {
        let client = EmbeddedChannel()
        let server = EmbeddedChannel()
        let recorder = Recorder()
        var nextStream = 1

        init() throws {
            var unchecked = NIOHTTP2Handler.ConnectionConfiguration()
            unchecked.headerBlockValidation = .disabled
            try client.pipeline.syncOperations.addHandler(NIOHTTP2Handler(mode: .client, connectionConfiguration: unchecked))
            try server.pipeline.syncOperations.addHandler(NIOHTTP2Handler(mode: .server))
            try server.pipeline.syncOperations.addHandler(recorder)
            try client.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
            try server.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
            try pump()
        }

        /// Moves bytes both ways until neither side has anything to send.
        func pump() throws {
            var moved = true
            while moved {
                moved = false
                while let bytes = try client.readOutbound(as: ByteBuffer.self) {
                    _ = try? server.writeInbound(bytes)
                    moved = true
                }
                while let bytes = try server.readOutbound(as: ByteBuffer.self) {
                    _ = try? client.writeInbound(bytes)
                    moved = true
                }
            }
        }

        /// Sends `frames` on a new stream; whether the server passed its HEADERS frames on (all of them).
        mutating func passes(_ blocks: [HPACKHeaders]) throws -> Bool {
            let stream = HTTP2StreamID(nextStream)
            nextStream += 2
            for (index, block) in blocks.enumerated() {
                let frame = HTTP2Frame(streamID: stream, payload: .headers(.init(headers: block, endStream: index == blocks.count - 1)))
                client.writeAndFlush(frame, promise: nil)
                try pump()
            }
            return recorder.headers.filter { $0 == stream }.count == blocks.count
        }
    }

    static let valid: [(String, String)] = [
        (":method", "POST"), (":scheme", "http"), (":path", "/google.firestore.v1.Firestore/GetDocument"),
        (":authority", "127.0.0.1:8080"), ("content-type", "application/grpc"), ("te", "trailers"),
        ("user-agent", "grpc-python/1.60 grpc-c/37"), ("authorization", "Bearer owner"),
    ]

    /// Blocks that differ from a valid request in one way each.
    static var requests: [[(String, String)]] {
        var blocks: [[(String, String)]] = [valid, Array(valid.prefix(3)), Array(valid.prefix(2)), [(":method", "CONNECT"), (":authority", "a:1")]]
        blocks.append([(":method", "CONNECT"), (":authority", "a:1"), (":path", "/x")])
        blocks.append([(":method", "CONNECT")])
        for index in valid.indices {
            var missing = valid
            missing.remove(at: index)
            blocks.append(missing)
        }
        let replacements: [(Int, (String, String))] = [
            (0, (":status", "200")), (0, (":protocol", "websocket")), (0, (":unknown", "x")), (1, (":method", "GET")),
            (2, (":path", "")), (2, (":path", "/a b")), (2, (":path", "/a\u{7F}")), (2, (":path", "/é")),
            (4, ("Content-Type", "application/grpc")), (4, ("content type", "x")), (4, ("", "x")), (4, ("x@y", "z")),
            (5, ("te", "gzip")), (5, ("connection", "close")), (5, ("keep-alive", "1")), (5, ("proxy-connection", "x")),
            (5, ("transfer-encoding", "chunked")), (5, ("upgrade", "h2c")), (6, ("user-agent", "a\rb")),
            (6, ("user-agent", "a\nb")), (6, ("user-agent", "a\u{0}b")), (6, ("user-agent", " a\tb é ")),
            (7, ("x-custom!#$%&'*+-.^_`|~09", "ok")),
        ]
        for (index, field) in replacements {
            var changed = valid
            changed[index] = field
            blocks.append(changed)
        }
        blocks.append(valid + [(":authority", "late")])
        blocks.append(valid + [(":method", "POST")])
        blocks.append([valid[4]] + valid)
        return blocks
    }

    /// `fields` as the server decodes them (HPACK carries names lowercased), or `nil` when they do not
    /// decode at all (an empty name: the connection fails before any header block is judged).
    static func received(_ fields: [(String, String)]) -> HPACKHeaders? {
        var encoder = HPACKEncoder(allocator: ByteBufferAllocator())
        var decoder = HPACKDecoder(allocator: ByteBufferAllocator())
        var bytes = ByteBuffer()
        guard (try? encoder.encode(headers: HPACKHeaders(fields), to: &bytes)) != nil else { return nil }
        return try? decoder.decodeHeaders(from: &bytes)
    }

    /// Judges `fields` as `kind` both ways, each on a connection of its own (a connection error would end the
    /// ones after it); `before` goes first on the stream.
    func expectAgreement(_ fields: [(String, String)], _ kind: HeaderBlockCheck.Kind, after before: [HPACKHeaders] = []) throws {
        var connection = try Connection()
        let passed = try connection.passes(before + [HPACKHeaders(fields)])
        guard let received = Self.received(fields) else {
            #expect(!passed, "\(fields)")
            return
        }
        #expect(HeaderBlockCheck.isWellFormed(received, kind) == passed, "\(fields)")
    }

    @Test func requestBlocksAreJudgedAsNIOHTTP2JudgesThem() throws {
        for fields in Self.requests { try expectAgreement(fields, .request) }
    }

    @Test func trailerBlocksAreJudgedAsNIOHTTP2JudgesThem() throws {
        let trailers: [[(String, String)]] = [
            [], [("grpc-status", "0")], [(":path", "/x")], [(":status", "200")], [("Grpc-Status", "0")],
            [("connection", "close")], [("te", "gzip")], [("x", "a\nb")], [("x", "a b")], [("x@y", "1")],
        ]
        for fields in trailers { try expectAgreement(fields, .trailers, after: [HPACKHeaders(Self.valid)]) }
    }
}
