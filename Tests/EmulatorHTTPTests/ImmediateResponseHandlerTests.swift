import EmulatorCore
import Foundation
import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import Testing

@testable import EmulatorHTTP

/// The handler that answers some requests on the event loop, on bytes through NIO's HTTP/1.1 decoder and
/// encoder, without a network: what it takes, what it passes on, what it writes, and that no answer
/// overtakes another.
@Suite struct ImmediateResponseHandlerTests {
    /// Answers `/fast...` with the body's length, but passes on `/fast/later` once it has seen it.
    struct Echo: ImmediateResponder {
        func answersImmediately(_ request: ImmediateRequest) -> Bool { request.path.hasPrefix("/fast") }

        func respond(to request: ImmediateRequest, body: ByteBuffer) -> ImmediateResponse? {
            guard request.path != "/fast/later" else { return nil }
            return .json([
                "path": .string(request.path), "query": .string(request.query), "length": .int(Int64(body.readableBytes)),
                "authorization": request.authorization.map { .string($0) } ?? .null,
            ])
        }
    }

    static let cors = CORSPolicy(exposedHeaders: ["X-HTTP-Session-Id", "X-Other"], allowsCredentials: true)

    /// NIO's HTTP/1.1 server pipeline as Hummingbird configures it (no pipelining assistance) with the
    /// handler installed as the server installs it. Requests the
    /// handler passes on come out as `HTTPServerRequestPart`s; everything written, as bytes.
    func channel(
        _ responder: any ImmediateResponder = Echo(), cors: CORSPolicy? = nil, idleTimeout: TimeAmount? = nil
    ) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withPipeliningAssistance: false, withErrorHandling: false)
        try ImmediateResponseHandler.install(
            on: channel.pipeline.syncOperations, responder: responder, access: LocalAccess(), cors: cors,
            idleTimeout: idleTimeout)
        return channel
    }

    /// A request's bytes: `method target HTTP/1.1`, `Host: 127.0.0.1:8080` unless `fields` has one, then
    /// `fields` in order.
    func request(_ target: String, method: String = "GET", _ fields: [(String, String)] = [], version: String = "HTTP/1.1")
        -> ByteBuffer
    {
        var text = "\(method) \(target) \(version)\r\n"
        if !fields.contains(where: { $0.0.lowercased() == "host" }) { text += "Host: 127.0.0.1:8080\r\n" }
        for (name, value) in fields { text += "\(name): \(value)\r\n" }
        return ByteBuffer(string: text + "\r\n")
    }

    /// A response read back from its bytes.
    struct WrittenResponse {
        var status: Int
        var fields: [(name: String, value: String)]
        var body: String

        subscript(_ name: String) -> String? {
            fields.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    /// Everything written so far, as text.
    func written(_ channel: EmbeddedChannel) throws -> String {
        var text = ""
        while let bytes = try channel.readOutbound(as: ByteBuffer.self) { text += String(buffer: bytes) }
        return text
    }

    /// The one response written so far (nil when nothing was).
    func response(of channel: EmbeddedChannel) throws -> WrittenResponse? {
        let text = try written(channel)
        guard !text.isEmpty else { return nil }
        let split = try #require(text.range(of: "\r\n\r\n"))
        var lines = text[..<split.lowerBound].components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        let fields = lines.map { line in
            let colon = line.firstIndex(of: ":")!
            return (String(line[..<colon]), String(line[line.index(colon, offsetBy: 2)...]))
        }
        return WrittenResponse(status: Int(statusLine[1])!, fields: fields, body: String(text[split.upperBound...]))
    }

    /// The parts passed on so far.
    func passedOn(_ channel: EmbeddedChannel) throws -> [HTTPServerRequestPart] {
        var parts: [HTTPServerRequestPart] = []
        while let part = try channel.readInbound(as: HTTPServerRequestPart.self) { parts.append(part) }
        return parts
    }

    @Test func anAcceptedRequestIsAnsweredAndGoesNoFurther() throws {
        let channel = try channel()
        try channel.writeInbound(request("/fast?a=1&b", method: "POST", [("Content-Length", "5"), ("Authorization", "Bearer owner")]))
        try channel.writeInbound(ByteBuffer(string: "ab"))
        #expect(try response(of: channel) == nil, "nothing before the request ends")
        try channel.writeInbound(ByteBuffer(string: "cde"))
        let response = try #require(try response(of: channel))
        #expect(response.status == 200)
        #expect(response["Content-Type"] == "application/json; charset=utf-8")
        #expect(response["Content-Length"] == String(response.body.utf8.count))
        #expect(
            try JSONValue.parse(response.body)
                == ["path": "/fast", "query": "a=1&b", "length": 5, "authorization": "Bearer owner"])
        #expect(try passedOn(channel).isEmpty)
    }

    @Test(arguments: [
        ("/slow", "GET", [], "HTTP/1.1"),
        ("/fast", "GET", [("Origin", "http://localhost:3000")], "HTTP/1.1"),  // a browser's, without the server's CORS policy
        ("/fast", "POST", [("Transfer-Encoding", "chunked")], "HTTP/1.1"),
        ("/fast", "GET", [("Connection", "close")], "HTTP/1.1"),
        ("/fast", "GET", [("Expect", "100-continue")], "HTTP/1.1"),
        ("/fast", "GET", [("Upgrade", "websocket"), ("Connection", "Upgrade")], "HTTP/1.1"),
        ("/fast", "POST", [("Content-Length", String(ImmediateResponseHandler.bodyLimit + 1))], "HTTP/1.1"),
        ("/fast", "GET", [], "HTTP/1.0"),
        ("http://127.0.0.1:8080/fast", "GET", [], "HTTP/1.1"),  // absolute form: the server's conversion reads it
        ("/fast", "HEAD", [], "HTTP/1.1"),
        ("/fast", "GET", [("Authorization", "Bearer a"), ("Authorization", "Bearer b")], "HTTP/1.1"),
    ] as [(String, String, [(String, String)], String)])
    func otherRequestsArePassedOn(target: String, method: String, fields: [(String, String)], version: String) throws {
        let channel = try channel()
        try channel.writeInbound(request(target, method: method, fields, version: version))
        let parts = try passedOn(channel)
        guard case .head(let head)? = parts.first else {
            Issue.record("the head was not passed on")
            return
        }
        #expect(head.uri == target)
        #expect(try written(channel).isEmpty)
    }

    @Test func headerNamesAreReadInAnyCase() throws {
        let channel = try channel(cors: Self.cors)
        try channel.writeInbound(
            request("/fast", method: "POST", [
                ("HOST", "localhost:8080"), ("content-LENGTH", "2"), ("AUTHORIZATION", "Bearer x"),
                ("connection", "Keep-Alive"), ("ORIGIN", "http://localhost:3000"),
            ]))
        try channel.writeInbound(ByteBuffer(string: "{}"))
        let response = try #require(try response(of: channel))
        #expect(try JSONValue.parse(response.body)["authorization"] == "Bearer x")
        #expect(try JSONValue.parse(response.body)["length"] == 2)
        #expect(response["Access-Control-Allow-Origin"] == "http://localhost:3000")
    }

    @Test func aBrowsersRequestIsAnsweredWithTheServersCORSHeaders() throws {
        let channel = try channel(cors: Self.cors)
        try channel.writeInbound(request("/fast", [("Origin", "http://localhost:3000")]))
        let response = try #require(try response(of: channel))
        #expect(response.status == 200)
        // What `EmulatorResponder` adds to the same answer.
        var expected = HTTPFields()
        Self.cors.decorate(&expected, origin: "http://localhost:3000")
        #expect(expected.count == 4)
        for field in expected { #expect(response[field.name.rawName] == field.value) }
        #expect(response["Access-Control-Allow-Origin"] == "http://localhost:3000")
        #expect(response["Access-Control-Expose-Headers"] == "X-HTTP-Session-Id, X-Other")
        #expect(try passedOn(channel).isEmpty)
    }

    @Test(arguments: [
        ("OPTIONS", [("Origin", "http://localhost:3000"), ("Access-Control-Request-Method", "POST")]),  // a preflight
        ("GET", [("Origin", "http://attacker.example")]),  // a foreign page: the guard's 403
        ("GET", [("Origin", "null")]),
    ] as [(String, [(String, String)])])
    func browsersRequestsTheServerMustSeeArePassedOn(method: String, fields: [(String, String)]) throws {
        let channel = try channel(cors: Self.cors)
        try channel.writeInbound(request("/fast", method: method, fields))
        guard case .head(let head)? = try passedOn(channel).first else {
            Issue.record("the head was not passed on")
            return
        }
        #expect(head.method.rawValue == method)
        #expect(try written(channel).isEmpty)
    }

    @Test func anAnswersOwnHeaderFieldsAreWritten() throws {
        struct Fielded: ImmediateResponder {
            func answersImmediately(_ request: ImmediateRequest) -> Bool { true }
            func respond(to request: ImmediateRequest, body: ByteBuffer) -> ImmediateResponse? {
                ImmediateResponse(
                    status: 200, contentType: "text/plain", body: ByteBuffer(string: "hi"), headers: [.cacheControl: "no-cache"])
            }
        }
        let channel = try channel(Fielded())
        try channel.writeInbound(request("/any"))
        let response = try #require(try response(of: channel))
        #expect(response["Cache-Control"] == "no-cache")
        #expect(response["Content-Type"] == "text/plain")
        #expect(response["Content-Length"] == "2")
        #expect(response.body == "hi")
    }

    /// The bytes written for an answer are the bytes NIO's encoder wrote for the same response when the
    /// handler wrote `HTTPResponse` parts.
    @Test(arguments: [200, 400, 404, 409, 412, 429, 500, 501, 503])
    func anAnswerIsWrittenAsNIOsEncoderWritesIt(status: Int) throws {
        let response = ImmediateResponse(
            status: status, contentType: "application/json; charset=utf-8", body: ByteBuffer(string: #"{"a":1}"#),
            headers: [.cacheControl: "no-cache", .init("X-HTTP-Session-Id")!: "abc"])
        var cors = HTTPFields()
        Self.cors.decorate(&cors, origin: "http://localhost:3000")

        let encoder = EmbeddedChannel()
        try encoder.pipeline.syncOperations.addHandler(HTTPResponseEncoder())
        try encoder.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
        var fields = response.headers
        fields[.contentType] = response.contentType
        fields[.contentLength] = String(response.body.readableBytes)
        fields.append(contentsOf: cors)
        try encoder.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .init(code: status), headerFields: fields)))
        try encoder.writeOutbound(HTTPResponsePart.body(response.body))
        try encoder.writeOutbound(HTTPResponsePart.end(nil))
        let expected = try written(encoder)

        #expect(String(buffer: response.encoded(then: cors, allocator: ByteBufferAllocator())) == expected)
    }

    @Test func aForeignHostIsLeftToTheGuard() throws {
        let channel = try channel()
        try channel.writeInbound(request("/fast", [("Host", "attacker.example")]))
        guard case .head(let head)? = try passedOn(channel).first else {
            Issue.record("the head was not passed on")
            return
        }
        #expect(head.headers["Host"] == ["attacker.example"])
    }

    @Test func noAnswerOvertakesAPassedOnRequest() throws {
        let channel = try channel()
        // A request the server's responder answers, then (pipelined) one this handler could answer.
        var both = request("/slow")
        var fast = request("/fast")
        both.writeBuffer(&fast)
        try channel.writeInbound(both)
        #expect(try passedOn(channel).count == 4, "both went on, in order")
        #expect(try written(channel).isEmpty)
        // Once both responses have ended, requests are taken again.
        for _ in 0..<2 {
            try channel.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: ["Content-Length": "0"])))
            try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        }
        #expect(try written(channel).components(separatedBy: "HTTP/1.1 200 OK").count == 3)
        try channel.writeInbound(request("/fast"))
        #expect(try response(of: channel)?.status == 200)
        #expect(try passedOn(channel).isEmpty)
    }

    @Test func aRequestTheResponderDeclinesAfterItsBodyGoesOnWhole() throws {
        let channel = try channel()
        try channel.writeInbound(request("/fast/later", method: "POST", [("Content-Length", "5")]))
        try channel.writeInbound(ByteBuffer(string: "ab"))
        #expect(try passedOn(channel).isEmpty, "held until it ends")
        try channel.writeInbound(ByteBuffer(string: "cde"))
        let parts = try passedOn(channel)
        #expect(parts.count == 3)
        guard parts.count == 3, case .head(let head) = parts[0], case .body(let body) = parts[1], case .end(nil) = parts[2]
        else { return }
        #expect(head.uri == "/fast/later")
        #expect(head.headers["Content-Length"] == ["5"])
        #expect(String(buffer: body) == "abcde")
        #expect(try written(channel).isEmpty)
        // Until its response has ended, a request this handler could answer goes on too: none overtakes it.
        try channel.writeInbound(request("/fast"))
        #expect(try passedOn(channel).count == 2)
        #expect(try written(channel).isEmpty)
    }

    @Test func aQuiesceWhileATakenRequestsBodyArrivesWaitsForItsAnswer() throws {
        let channel = try channel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try channel.writeInbound(request("/fast", method: "POST", [("Content-Length", "2")]))
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        #expect(channel.isActive, "the request is still coming")
        try channel.writeInbound(ByteBuffer(string: "{}"))
        #expect(try response(of: channel)?.status == 200)
        #expect(!channel.isActive, "closed once answered")
    }

    /// Hummingbird's whole HTTP/1.1 pipeline with the immediate handler, on bytes: a connection that only
    /// carries immediately answered requests is busy, not idle, however long it lasts.
    @Test func aConnectionBusyWithImmediateRequestsIsNotIdle() throws {
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        _ = try ImmediateHTTP1Channel(
            responder: { _, _, _ in Issue.record("the responder was asked") },
            configuration: .init(idleTimeout: .milliseconds(100)), immediate: Echo(), access: LocalAccess()
        ).setup(channel: channel, logger: Logger(label: "test")).wait()
        var answered = 0
        // The idle timer reads the real clock, so the test waits for real.
        func wait(_ milliseconds: Int64) {
            Thread.sleep(forTimeInterval: Double(milliseconds) / 1000)
            channel.embeddedEventLoop.advanceTime(by: .milliseconds(milliseconds))
        }
        for _ in 0..<10 {  // 500 ms of requests 50 ms apart, five idle timeouts' worth
            wait(50)
            try channel.writeInbound(ByteBuffer(string: "GET /fast HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n"))
            if try written(channel).hasPrefix("HTTP/1.1 200") { answered += 1 }
        }
        #expect(answered == 10)
        #expect(channel.isActive)
        wait(150)  // truly idle now
        #expect(!channel.isActive)
    }

    /// A passed-on request being answered keeps its connection open past the idle timeout; once its
    /// response ends, the connection's idle time starts again.
    @Test func aConnectionAnsweringAPassedOnRequestIsNotIdle() throws {
        let channel = try channel(idleTimeout: .milliseconds(100))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        func wait(_ milliseconds: Int64) {
            Thread.sleep(forTimeInterval: Double(milliseconds) / 1000)
            channel.embeddedEventLoop.advanceTime(by: .milliseconds(milliseconds))
        }
        try channel.writeInbound(request("/slow"))
        #expect(try passedOn(channel).count == 2)
        wait(250)
        #expect(channel.isActive, "its response is still being made")
        try channel.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: ["Content-Length": "0"])))
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        wait(50)
        #expect(channel.isActive)
        wait(100)
        #expect(!channel.isActive)
    }

    /// A request whose body stalls is idle: its connection closes.
    @Test func aStalledBodyIsIdle() throws {
        let channel = try channel(idleTimeout: .milliseconds(100))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try channel.writeInbound(request("/fast", method: "POST", [("Content-Length", "10")]))
        Thread.sleep(forTimeInterval: 0.15)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(150))
        #expect(!channel.isActive)
    }
}

/// The one-pass read of a taken request's header fields agrees with HTTPTypes' reading of the same fields
/// (what the handler read before): seeded random field lists of the names that matter, in any case,
/// repeated or not.
@Suite struct PlainFieldsTests {
    static let names = [
        "Host", "host", "HOST", "Origin", "origin", "Expect", "Upgrade", "Connection", "connection", "Authorization",
        "AUTHORIZATION", "Content-Length", "content-length", "Transfer-Encoding", "X-Other", "Hosts", "Origins", "Authorizatio",
        "Content-Lengths", "Expects",
    ]
    static let values = ["keep-alive", "Keep-Alive", "close", "127.0.0.1:8080", "http://localhost:3000", "Bearer owner", "5", "chunked", ""]

    /// What HTTPTypes makes of `fields`: the request's fields to pass on, or the ones the responder gets.
    func expected(_ fields: [(String, String)]) -> PlainFields? {
        let converted = HTTPFields(HTTPHeaders(fields), splitCookie: false)
        func count(_ name: HTTPField.Name) -> Int { converted[fields: name].count }
        let connections = converted[fields: .connection].map(\.value)
        guard converted[.expect] == nil, converted[.upgrade] == nil, converted[.transferEncoding] == nil,
            connections.allSatisfy({ $0.lowercased() == "keep-alive" }), count(.origin) <= 1, count(.authorization) <= 1,
            count(.contentLength) <= 1
        else { return nil }
        var plain = PlainFields()
        plain.host = HTTPHeaders(fields)["Host"].first  // what NIOHTTPTypes takes as the authority
        plain.origin = converted[.origin]
        plain.authorization = converted[.authorization]
        plain.contentLength = converted[.contentLength]
        return plain
    }

    func read(_ fields: [(String, String)]) -> PlainFields? {
        var plain = PlainFields()
        for (name, value) in fields { guard plain.read(name, value) else { return nil } }
        return plain
    }

    @Test func seededRandomFieldListsAreReadAsHTTPTypesReadsThem() {
        var generator = SplitMix64(seed: 16)
        for _ in 0..<2_000 {
            let fields = (0..<Int.random(in: 0..<6, using: &generator)).map { _ in
                (Self.names.randomElement(using: &generator)!, Self.values.randomElement(using: &generator)!)
            }
            let (got, want) = (read(fields), expected(fields))
            #expect(got?.host == want?.host && got?.origin == want?.origin, "\(fields)")
            #expect(got?.authorization == want?.authorization && got?.contentLength == want?.contentLength, "\(fields)")
            #expect((got == nil) == (want == nil), "\(fields)")
        }
    }
}
