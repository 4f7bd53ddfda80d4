import DatabaseEmulator
import EmulatorCore
import EmulatorHTTP
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// What the Emulator UI reads of a node: its first children in key order, each a value or a count.
@Suite struct DatabaseBrowseTests {
    @Test func aNodesFirstChildrenComeInKeyOrderEachAValueOrACount() async throws {
        let emulator = try DatabaseEmulator(projectID: "demo-browse", port: 0)
        let app = Application(responder: emulator.responder)
        let long = String(repeating: "x", count: 250)
        try await app.test(.router) { client in
            let body = #"{"10": 1, "9": "nine", "-1": true, "b": {"x": 1, "y": 2}, "a": "\#(long)", "c": {"z": null}}"#
            let put = try await client.execute(uri: "/n.json?ns=browse", method: .put, body: ByteBuffer(string: body))
            #expect(put.status == .ok)
        }
        let first = try emulator.children(of: "/n", in: "browse", limit: 4)
        #expect(first["count"] == 5)  // "c" held only null, so it is not there
        #expect(
            first["children"] == [
                ["key": "-1", "value": true], ["key": "9", "value": "nine"], ["key": "10", "value": 1],
                ["key": "a", "value": .string(String(long.prefix(200))), "truncated": true],
            ])
        let rest = try emulator.children(of: "n", in: "browse", limit: 1000)
        #expect(rest["children"]?.arrayValue?.last == ["key": "b", "count": 2])
        #expect(try emulator.children(of: "/n/9", in: "browse", limit: 10) == ["count": 0, "value": "nine", "children": []])
        #expect(try emulator.children(of: "/", in: "browse", limit: 10) == ["count": 1, "children": [["key": "n", "count": 5]]])
        #expect(try emulator.children(of: "/nothing", in: "browse", limit: 10) == ["count": 0, "children": []])
        #expect(throws: APIError.self) { try emulator.children(of: "/a.b", in: "browse", limit: 10) }
        #expect(throws: APIError.self) { try emulator.children(of: "/", in: "bad ns!", limit: 10) }
    }
}
