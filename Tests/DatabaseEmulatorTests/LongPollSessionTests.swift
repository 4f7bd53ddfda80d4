import EmulatorCore
import Foundation
import Logging
import Testing

@testable import DatabaseEmulator

/// The long-polling session in process: the client's encoding, segments reassembled across requests and out
/// of order, packets numbered from the hello, a held poll released by a frame or a newer request.
@Suite struct LongPollSessionTests {
    /// A frame as the SDK encodes it: web-safe base64 with `.` for padding.
    static func encode(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: ".")
    }

    static func session() throws -> LongPollSession {
        let databases = try Databases(projectID: "demo-lp", rulesFiles: [], clock: SystemClock(), logger: Logger(label: "test"))
        let endpoint = LongPollEndpoint(databases: databases)
        return LongPollSession(
            id: "lp1", password: "pw", connection: WireConnection(database: databases.database("demo-lp-default-rtdb")),
            endpoint: endpoint)
    }

    @Test func decodesTheSDKsBase64() {
        for text in ["{\"t\":\"d\"}", "é😀", "ab", "abc", "abcd"] {
            #expect(LongPollSession.decode(Self.encode(text)) == text)
        }
        #expect(LongPollSession.decode("!!!") == nil)
    }

    @Test func reassemblesSegmentsOutOfOrderAndAnswersInPacketOrder() async throws {
        let session = try Self.session()
        session.connection.open(host: "localhost", sessionID: "lp1")
        let hello = await session.poll(serial: 1)
        #expect(hello.hasPrefix("pRTLPCB(0, [{") && hello.contains(#""t":"h""#))
        let message = #"{"t":"d","d":{"r":1,"a":"p","b":{"p":"/a","d":"\#(String(repeating: "x", count: 100))"}}}"#
        let encoded = Self.encode(message)
        let middle = encoded.index(encoded.startIndex, offsetBy: encoded.count / 2)
        // The second half arrives first: nothing happens until the first does.
        #expect(session.receive([.init(number: 1, total: 2, data: String(encoded[middle...]))]))
        #expect(session.receive([.init(number: 0, total: 2, data: String(encoded[..<middle]))]))
        let answer = await session.poll(serial: 2)
        #expect(answer.hasPrefix("pRTLPCB(1, ["))
        #expect(answer.contains(#""r":1"#) && answer.contains(#""s":"ok""#))
    }

    @Test func aNewerPollReleasesTheHeldOne() async throws {
        let session = try Self.session()
        session.connection.open(host: "localhost", sessionID: "lp1")
        _ = await session.poll(serial: 1)
        async let held = session.poll(serial: 2)
        try await Task.sleep(for: .milliseconds(50))
        async let newer = session.poll(serial: 3)
        #expect(await held == "", "the older poll is answered empty")
        try await Task.sleep(for: .milliseconds(50))
        session.end()
        #expect(await newer == "pLPCommand('close');", "the session's end closes the held poll")
    }
}
