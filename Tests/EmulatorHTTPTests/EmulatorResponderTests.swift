import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import Testing

@testable import EmulatorHTTP

/// What every emulator's responder adds to a response, without a network.
@Suite struct EmulatorResponderTests {
    func respond(_ fields: HTTPFields) async throws -> Response {
        let responder = EmulatorResponder { _, _ in Response(status: .ok) }
        let request = Request(
            head: HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:8080", path: "/", headerFields: fields),
            body: RequestBody(buffer: ByteBuffer()))
        let context = EmulatorContext(source: .init(channel: EmbeddedChannel(), logger: Logger(label: "test")))
        return try await responder.respond(to: request, context: context)
    }

    @Test(arguments: ["close", "Close", "keep-alive, close", " TE , close "])
    func aRequestThatClosesItsConnectionIsToldSo(connection: String) async throws {
        #expect(try await respond([.connection: connection]).headers[.connection] == "close")
    }

    @Test(arguments: [nil, "keep-alive", "closed"] as [String?])
    func otherRequestsAreNot(connection: String?) async throws {
        var fields = HTTPFields()
        if let connection { fields[.connection] = connection }
        #expect(try await respond(fields).headers[.connection] == nil)
    }
}
