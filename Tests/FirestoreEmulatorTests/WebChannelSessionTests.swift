import Foundation
import GRPCCore
import Testing

@testable import FirestoreEmulator

/// The WebChannel session state machine and wire format, without I/O.
@Suite struct WebChannelSessionTests {
    @Test func mapsOfARetriedForwardRequestAreDeliveredOnce() {
        var session = WebChannelSession()
        #expect(session.receive(["a", "b"], offset: 0) == ["a", "b"])
        #expect(session.receive(["a", "b"], offset: 0) == [])  // the same POST again
        #expect(session.receive(["b", "c"], offset: 1) == ["c"])  // a retry merged with a new map
        #expect(session.receive(["d"], offset: 3) == ["d"])
    }

    /// Overlapping forward requests (a page served over HTTP/2) can arrive out of order: maps ahead of a
    /// missing one wait for it, then all go in id order.
    @Test func mapsAheadOfAMissingOneWaitForIt() {
        var session = WebChannelSession()
        #expect(session.receive(["a"], offset: 0) == ["a"])
        #expect(session.receive(["d", "e"], offset: 3) == [])
        #expect(session.receive(["c"], offset: 2) == [])
        #expect(session.receive(["d"], offset: 3) == [], "a retry of a waiting map")
        #expect(session.receive(["b", "c"], offset: 1) == ["b", "c", "d", "e"])
        #expect(session.receive(["e", "f"], offset: 4) == ["f"])
    }

    /// A client whose missing map never comes cannot make the session hold maps without end.
    @Test func tooManyMapsWaitingBreakTheSession() {
        var session = WebChannelSession()
        let waiting = Array(repeating: "x", count: WebChannelSession.waitingLimit)
        #expect(session.receive(waiting, offset: 1) == [])
        #expect(session.receive(["y"], offset: WebChannelSession.waitingLimit + 1) == nil)
    }

    @Test func arraysAreNumberedFromOneAndKeptUntilAcknowledged() {
        var session = WebChannelSession()
        #expect(session.queue("[1]") == 1)
        #expect(session.queue("[2]") == 2)
        #expect(session.outbox.map(\.text) == ["[1,[1]]", "[2,[2]]"])
        #expect(session.forwardResponse == "[0,2,14]", "no back channel is open")
        #expect(session.unacknowledgedBytes == 14)
        session.acknowledge(through: 1)
        #expect(session.outbox.map(\.id) == [2])
        #expect(session.unacknowledgedBytes == 7)
        session.acknowledge(through: 5)
        #expect(session.outbox.isEmpty)
        #expect(session.lastArrayID == 2)
    }

    @Test func aNewBackChannelResendsWhatWasNotAcknowledged() {
        var session = WebChannelSession()
        session.queue("[1]")
        session.queue("[2]")
        let first = session.openBackChannel(acknowledging: 0)
        #expect(session.take(for: first, after: 0)?.map(\.id) == [1, 2])
        #expect(session.unsentBytes == 0)
        #expect(session.writtenThrough == 2)
        session.queue("[3]")
        // The first back channel broke after array 1 reached the client.
        let second = session.openBackChannel(acknowledging: 1)
        #expect(session.take(for: first, after: 2) == nil)  // replaced
        #expect(session.take(for: second, after: 1)?.map(\.id) == [2, 3])
        #expect(session.take(for: second, after: 3)?.isEmpty == true)
        session.closeBackChannel(first)  // stale: the second stays open
        #expect(session.backChannel == second)
        session.closeBackChannel(second)
        #expect(session.backChannel == nil)
    }

    @Test func forwardBodiesAreReadAsTheWebSDKWritesThem() {
        let headers = "Authorization:Bearer owner\r\nX-Goog-Api-Client:gl-js/ fire/11\r\n"
            .addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let data = #"{"database":"projects/p/databases/(default)"}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let body = WebChannelWire.ForwardBody(
            parsing: "headers=\(headers)&count=2&ofs=7&req0___data__=\(data)&req1_type=_badmap")
        #expect(body.headers == ["authorization": "Bearer owner", "x-goog-api-client": "gl-js/ fire/11"])
        #expect(body.offset == 7)
        #expect(body.maps == [#"{"database":"projects/p/databases/(default)"}"#])
    }

    @Test func chunksCountUTF16CodeUnits() {
        #expect(WebChannelWire.chunk("[1]") == "3\n[1]")
        #expect(WebChannelWire.chunk("é😀") == "3\né😀")  // 1 + 2 code units, 6 bytes
    }

    @Test func streamErrorsCarryTheStatusName() {
        let payload = WebChannelWire.errorPayload(RPCError(code: .permissionDenied, message: "No."))
        #expect(payload == #"[{"error":{"code":7,"message":"No.","status":"PERMISSION_DENIED"}}]"#)
    }
}
