import EmulatorCore
import Foundation
import Testing

/// The request log the Emulator UI follows: numbered entries, a bounded ring, followers that get the kept
/// entries then each new one.
@Suite struct RequestLogTests {
    func entry(_ path: String, allowed: Bool = true) -> RequestLogEntry {
        RequestLogEntry(service: "firestore", method: "get", path: path, uid: nil, allowed: allowed, explanation: "")
    }

    @Test func entriesAreNumberedAndKeptUpToTheCapacity() {
        let log = RequestLog(capacity: 4)
        for index in 1...9 { log.record(entry("/p\(index)")) }
        #expect(log.entries().map(\.id) == [6, 7, 8, 9])
        #expect(log.entries(after: 7).map(\.path) == ["/p8", "/p9"])
        #expect(log.entry(8)?.path == "/p8" && log.entry(1) == nil)
        #expect(log.entries().last?.json["id"] == 9)
        log.clear()
        #expect(log.entries().isEmpty)
        log.record(entry("/after"))
        #expect(log.entries().map(\.id) == [10])
    }

    @Test func aFollowerGetsTheKeptEntriesThenTheNewOnes() async {
        let log = RequestLog()
        log.record(entry("/old"))
        let stream = log.follow()
        log.record(entry("/new", allowed: false))
        var seen: [(String, Bool)] = []
        for await entry in stream {
            seen.append((entry.path, entry.allowed))
            if seen.count == 2 { break }
        }
        #expect(seen.map(\.0) == ["/old", "/new"] && seen.map(\.1) == [true, false])
    }
}
