import EmulatorCore
import Foundation
import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing

@testable import EmulatorHTTP

/// A request to `127.0.0.1:8080`.
private func localRequest(_ path: String, method: HTTPRequest.Method = .get, _ fields: HTTPFields = [:]) -> HTTPRequest {
    HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1:8080", path: path, headerFields: fields)
}

/// The handler that answers some requests on the event loop, without a network: what it takes, what it
/// passes on, and that no answer overtakes another.
@Suite struct ImmediateResponseHandlerTests {
    /// Answers `GET /fast...` with the body's length, but passes on `/fast/later` once it has seen it.
    struct Echo: ImmediateResponder {
        func answersImmediately(_ head: HTTPRequest) -> Bool { head.path?.hasPrefix("/fast") == true }

        func respond(to head: HTTPRequest, body: ByteBuffer) -> ImmediateResponse? {
            guard head.path != "/fast/later" else { return nil }
            return .json(["path": .string(head.path ?? ""), "length": .int(Int64(body.readableBytes))])
        }
    }

    func channel(cors: CORSPolicy? = nil) -> EmbeddedChannel {
        EmbeddedChannel(handler: ImmediateResponseHandler(responder: Echo(), access: LocalAccess(), cors: cors))
    }

    static let cors = CORSPolicy(exposedHeaders: ["X-HTTP-Session-Id", "X-Other"], allowsCredentials: true)

    func request(_ path: String, method: HTTPRequest.Method = .get, _ fields: HTTPFields = [:]) -> HTTPRequest {
        localRequest(path, method: method, fields)
    }

    /// The response written for one request: its head and its body as text.
    func response(of channel: EmbeddedChannel) throws -> (HTTPResponse, String)? {
        guard case .head(let head)? = try channel.readOutbound(as: HTTPResponsePart.self),
            case .body(let body)? = try channel.readOutbound(as: HTTPResponsePart.self),
            try channel.readOutbound(as: HTTPResponsePart.self) == .end(nil)
        else { return nil }
        return (head, String(buffer: body))
    }

    @Test func anAcceptedRequestIsAnsweredAndGoesNoFurther() throws {
        let channel = channel()
        try channel.writeInbound(HTTPRequestPart.head(request("/fast", method: .post, [.contentLength: "5"])))
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "ab")))
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "cde")))
        #expect(try response(of: channel) == nil, "nothing before the request ends")
        try channel.writeInbound(HTTPRequestPart.end(nil))
        let (head, body) = try #require(try response(of: channel))
        #expect(head.status == .ok)
        #expect(head.headerFields[.contentType] == "application/json; charset=utf-8")
        #expect(head.headerFields[.contentLength] == String(body.utf8.count))
        #expect(try JSONValue.parse(body) == ["path": "/fast", "length": 5])
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == nil)
    }

    @Test(arguments: [
        ("/slow", HTTPFields()),
        ("/fast", [.origin: "http://localhost:3000"]),  // a browser's, without the server's CORS policy
        ("/fast", [.transferEncoding: "chunked"]),
        ("/fast", [.connection: "close"]),
        ("/fast", [.expect: "100-continue"]),
        ("/fast", [.contentLength: String(ImmediateResponseHandler.bodyLimit + 1)]),
    ] as [(String, HTTPFields)])
    func otherRequestsArePassedOn(path: String, fields: HTTPFields) throws {
        let channel = channel()
        let head = request(path, fields)
        try channel.writeInbound(HTTPRequestPart.head(head))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == .head(head))
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == .end(nil))
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == nil)
    }

    @Test func aBrowsersRequestIsAnsweredWithTheServersCORSHeaders() throws {
        let channel = channel(cors: Self.cors)
        try channel.writeInbound(HTTPRequestPart.head(request("/fast", [.origin: "http://localhost:3000"])))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        let (head, _) = try #require(try response(of: channel))
        #expect(head.status == .ok)
        // What `EmulatorResponder` adds to the same answer.
        var expected = HTTPFields()
        Self.cors.decorate(&expected, origin: "http://localhost:3000")
        #expect(expected.count == 4)
        for field in expected { #expect(head.headerFields[field.name] == field.value) }
        #expect(head.headerFields[.accessControlAllowOrigin] == "http://localhost:3000")
        #expect(head.headerFields[.accessControlExposeHeaders] == "X-HTTP-Session-Id, X-Other")
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == nil)
    }

    @Test(arguments: [
        localRequest("/fast", method: .options, [.origin: "http://localhost:3000", .accessControlRequestMethod: "POST"]),  // a preflight
        localRequest("/fast", [.origin: "http://attacker.example"]),  // a foreign page: the guard's 403
        localRequest("/fast", [.origin: "null"]),
    ])
    func browsersRequestsTheServerMustSeeArePassedOn(head: HTTPRequest) throws {
        let channel = channel(cors: Self.cors)
        try channel.writeInbound(HTTPRequestPart.head(head))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == .head(head))
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == nil)
    }

    @Test func anAnswersOwnHeaderFieldsAreWritten() throws {
        struct Fielded: ImmediateResponder {
            func answersImmediately(_ head: HTTPRequest) -> Bool { true }
            func respond(to head: HTTPRequest, body: ByteBuffer) -> ImmediateResponse? {
                ImmediateResponse(
                    status: 200, contentType: "text/plain", body: ByteBuffer(string: "hi"), headers: [.cacheControl: "no-cache"])
            }
        }
        let channel = EmbeddedChannel(handler: ImmediateResponseHandler(responder: Fielded(), access: LocalAccess(), cors: nil))
        try channel.writeInbound(HTTPRequestPart.head(request("/any")))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        let (head, body) = try #require(try response(of: channel))
        #expect(head.headerFields[.cacheControl] == "no-cache")
        #expect(head.headerFields[.contentType] == "text/plain")
        #expect(head.headerFields[.contentLength] == "2")
        #expect(body == "hi")
    }

    @Test func aForeignHostIsLeftToTheGuard() throws {
        let channel = channel()
        let head = HTTPRequest(method: .get, scheme: "http", authority: "attacker.example", path: "/fast")
        try channel.writeInbound(HTTPRequestPart.head(head))
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == .head(head))
    }

    @Test func noAnswerOvertakesAPassedOnRequest() throws {
        let channel = channel()
        // A request the server's responder answers, then (pipelined) one this handler could answer.
        try channel.writeInbound(HTTPRequestPart.head(request("/slow")))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        try channel.writeInbound(HTTPRequestPart.head(request("/fast")))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        var passed: [HTTPRequestPart] = []
        while let part = try channel.readInbound(as: HTTPRequestPart.self) { passed.append(part) }
        #expect(passed.count == 4, "both went on, in order")
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == nil)
        // Once both responses have ended, requests are taken again.
        for _ in 0..<2 {
            try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
            try channel.writeOutbound(HTTPResponsePart.end(nil))
        }
        while try channel.readOutbound(as: HTTPResponsePart.self) != nil {}
        try channel.writeInbound(HTTPRequestPart.head(request("/fast")))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try response(of: channel)?.0.status == .ok)
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == nil)
    }

    @Test func aRequestTheResponderDeclinesAfterItsBodyGoesOnWhole() throws {
        let channel = channel()
        let head = request("/fast/later", method: .post, [.contentLength: "5"])
        try channel.writeInbound(HTTPRequestPart.head(head))
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "ab")))
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "cde")))
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == nil, "held until it ends")
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == .head(head))
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == .body(ByteBuffer(string: "abcde")))
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == .end(nil))
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == nil)
        // Until its response has ended, a request this handler could answer goes on too: none overtakes it.
        try channel.writeInbound(HTTPRequestPart.head(request("/fast")))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == .head(request("/fast")))
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == .end(nil))
    }

    /// Hummingbird's whole HTTP/1.1 pipeline with the immediate handler, on bytes: a connection that only
    /// carries immediately answered requests is busy, not idle, however long it lasts.
    @Test func aConnectionBusyWithImmediateRequestsIsNotIdle() throws {
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        let http1 = HTTP1Channel(
            responder: { _, _, _ in Issue.record("the responder was asked") },
            configuration: .init(idleTimeout: .milliseconds(100)))
        _ = try ImmediateHTTP1Channel(http1: http1, immediate: Echo(), access: LocalAccess())
            .setup(channel: channel, logger: Logger(label: "test")).wait()
        var answered = 0
        // Hummingbird's idle timer reads the real clock, so the test waits for real.
        func wait(_ milliseconds: Int64) {
            Thread.sleep(forTimeInterval: Double(milliseconds) / 1000)
            channel.embeddedEventLoop.advanceTime(by: .milliseconds(milliseconds))
        }
        for _ in 0..<10 {  // 500 ms of requests 50 ms apart, five idle timeouts' worth
            wait(50)
            try channel.writeInbound(ByteBuffer(string: "GET /fast HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n"))
            var written = ""
            while let bytes = try channel.readOutbound(as: ByteBuffer.self) { written += String(buffer: bytes) }
            if written.hasPrefix("HTTP/1.1 200") { answered += 1 }
        }
        #expect(answered == 10)
        #expect(channel.isActive)
        wait(150)  // truly idle now
        #expect(!channel.isActive)
    }
}
