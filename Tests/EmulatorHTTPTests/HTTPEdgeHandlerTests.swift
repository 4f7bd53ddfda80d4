import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import Testing

@testable import EmulatorHTTP

/// The channel handlers that keep malformed or unwelcome HTTP/1.1 from hanging a client, without a network.
@Suite struct HTTPEdgeHandlerTests {
    @Test func connectIsRefusedAndTheConnectionClosed() throws {
        let channel = EmbeddedChannel(handler: ConnectRefusalHandler())
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        let connect = HTTPRequest(method: .connect, scheme: nil, authority: "127.0.0.1:80", path: nil)
        try channel.writeInbound(HTTPRequestPart.head(connect))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == nil, "the request goes no further")
        guard case .head(let response)? = try channel.readOutbound(as: HTTPResponsePart.self) else {
            Issue.record("no response head")
            return
        }
        #expect(response.status == .methodNotAllowed)
        #expect(response.headerFields[.contentLength] == "0")
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == .end(nil))
        #expect(!channel.isActive, "closed after the answer")
    }

    @Test func otherMethodsPassThrough() throws {
        let channel = EmbeddedChannel(handler: ConnectRefusalHandler())
        let get = HTTPRequest(method: .get, scheme: "http", authority: "localhost", path: "/")
        try channel.writeInbound(HTTPRequestPart.head(get))
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == .head(get))
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == nil)
    }

    @Test func anUpgradeToAnUnservedProtocolBecomesAPlainRequestThatCloses() throws {
        let channel = EmbeddedChannel(handler: UnsupportedUpgradeFilter(protocols: ["websocket"]))
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/x.json")
        head.headers = ["Host": "localhost", "Connection": "Upgrade, HTTP2-Settings", "Upgrade": "h2c", "HTTP2-Settings": "AAMA"]
        try channel.writeInbound(HTTPServerRequestPart.head(head))
        guard case .head(let passed)? = try channel.readInbound(as: HTTPServerRequestPart.self) else {
            Issue.record("no head passed on")
            return
        }
        #expect(passed.headers["Upgrade"].isEmpty)
        #expect(passed.headers["Connection"] == ["close"])
        #expect(passed.uri == "/x.json")
    }

    @Test func aWebSocketUpgradeIsLeftForTheUpgrader() throws {
        let channel = EmbeddedChannel(handler: UnsupportedUpgradeFilter(protocols: ["websocket"]))
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/.ws?v=5")
        head.headers = ["Host": "localhost", "Connection": "Upgrade", "Upgrade": "WebSocket"]
        try channel.writeInbound(HTTPServerRequestPart.head(head))
        #expect(try channel.readInbound(as: HTTPServerRequestPart.self) == .head(head))
    }

    @Test func aParseErrorBeforeTheUpgradeDecisionIsAnswered400() throws {
        let channel = EmbeddedChannel(handler: UpgradeParseErrorHandler())
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        channel.pipeline.fireErrorCaught(HTTPParserError.invalidVersion)
        guard case .head(let response)? = try channel.readOutbound(as: HTTPServerResponsePart.self) else {
            Issue.record("no response head")
            return
        }
        #expect(response.status == .badRequest)
        #expect(response.headers["Connection"] == ["close"])
        #expect(!channel.isActive)
    }

    @Test func theGuardLeavesOnceTheRequestIsRead() throws {
        let channel = EmbeddedChannel(handler: UpgradeParseErrorHandler())
        try channel.writeInbound(ByteBuffer(string: "anything"))
        #expect(throws: (any Error).self) { try channel.pipeline.syncOperations.handler(type: UpgradeParseErrorHandler.self) }
        #expect(try channel.readInbound(as: ByteBuffer.self) == ByteBuffer(string: "anything"))
    }

    @Test func bodyFaultsAreTheClients() {
        #expect(ClientFault(HTTPParserError.invalidEOFState)?.message.contains("ended before") == true)
        #expect(ClientFault(HTTPParserError.invalidChunkSize) != nil)
        #expect(ClientFault(HTTPParserError.headerOverflow) != nil)
        #expect(ClientFault(CancellationError()) == nil)
    }
}
