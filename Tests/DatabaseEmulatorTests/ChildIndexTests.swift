import DatabaseTree
import EmulatorCore
import HashTreeCollections
import Synchronization
import Testing

@testable import DatabaseEmulator

/// Queries over a large node whose rules index it read through a child index, which every kind of write
/// keeps current: what they select is what a pass over the node selects.
@Suite struct ChildIndexTests {
    @Test func readsThroughAChildIndexMatchAPassWhileWritesChangeTheChildren() throws {
        let database = try makeDatabase(rules: #"{"rules": {".read": true, ".write": true, "scores": {".indexOn": ["score"]}}}"#)
        var children: [String: JSONValue] = [:]
        for n in 0..<1_200 { children["c\(n)"] = ["score": .int(Int64((n * 37) % 500)), "name": .string("n\(n)")] }
        try database.write(.set(DatabasePath("scores"), .object(children)), auth: .admin)
        let score = DatabaseQuery.Index.child(DatabasePath("score"))
        let queries = [
            DatabaseQuery(index: score, limit: 10), DatabaseQuery(index: score, limit: 10, limitFromLeft: false),
            DatabaseQuery(index: score, start: .init(value: .int(250)), limit: 5),
            DatabaseQuery(index: score, start: .init(value: .int(-5)), end: .init(value: .int(3), inclusive: false)),
            DatabaseQuery(index: score, end: .init(value: .int(499), name: "c100"), limit: 3, limitFromLeft: false),
        ]
        func check(_ step: String) throws {
            let node = database.root.node(at: DatabasePath("scores"))
            for query in queries {
                let read = try database.read(DatabasePath("scores"), query: query, auth: .admin)
                #expect(read == query.window(of: node), "\(step): \(query)")
            }
        }
        try check("built")
        #expect(database.childIndexCount == 1)
        try database.write(.set(DatabasePath("scores/c5/score"), .int(-1)), auth: .admin)
        try check("a child's value")
        try database.write(
            .update(DatabasePath("scores"), [(DatabasePath("c6"), ["score": .int(-2)] as JSONValue), (DatabasePath("c7/score"), JSONValue.null)]), auth: .admin)
        try check("a multi-path update")
        try database.write(.set(DatabasePath("scores/c8"), .null), auth: .admin)
        try database.write(.set(DatabasePath("scores/new"), ["score": .string("text")]), auth: .admin)
        try database.write(.set(DatabasePath("scores/c9/.priority"), .int(3)), auth: .admin)
        try check("a delete, a new child, a priority")
        #expect(database.childIndexCount == 1)
        // The node replaced: the index goes, and a pass answers until a query builds it again.
        try database.write(.set(DatabasePath("scores"), ["a": ["score": .int(1)], "b": ["score": .int(0)]]), auth: .admin)
        #expect(database.childIndexCount == 0)
        try check("replaced")
        // A node whose rules do not index it by a child is not indexed so; by key it always is.
        try database.write(.set(DatabasePath("plain"), .object(children)), auth: .admin)
        _ = try database.read(DatabasePath("plain"), query: DatabaseQuery(index: score, limit: 1), auth: .admin)
        #expect(database.childIndexCount == 0)
        let byKey = DatabaseQuery(index: .key, start: .init(value: .string("c5")), limit: 4)
        let read = try database.read(DatabasePath("plain"), query: byKey, auth: .admin)
        #expect(database.childIndexCount == 1)
        #expect(read == byKey.window(of: database.root.node(at: DatabasePath("plain"))))
        #expect(read.children.keys.sorted() == ["c5", "c50", "c500", "c501"])
    }

    @Test func queryListensOverAnIndexedNodeAreSentThePassesWindowAfterEveryWrite() throws {
        let database = try makeDatabase(rules: #"{"rules": {".read": true, ".write": true, "scores": {".indexOn": ["score"]}}}"#)
        var children: [String: JSONValue] = [:]
        for n in 0..<1_200 { children["c\(n)"] = ["score": .int(Int64((n * 37) % 500))] }
        try database.write(.set(DatabasePath("scores"), .object(children)), auth: .admin)
        let top = DatabaseQuery(index: .child(DatabasePath("score")), limit: 3, limitFromLeft: false)
        let sink = RecordingSink()
        _ = try database.listen(DatabasePath("scores"), query: top, tag: 1, auth: .admin, sink: sink)
        #expect(database.childIndexCount == 1)
        let writes: [WriteRequest] = [
            .set(DatabasePath("scores/c1/score"), .int(1_000)),  // into the window
            .set(DatabasePath("scores/c2/score"), .int(-1)),  // outside it: nothing sent
            .set(DatabasePath("scores/c1"), .null),  // out of it
            .update(DatabasePath("scores"), [(DatabasePath("x"), ["score": .int(999)] as JSONValue), (DatabasePath("y/score"), JSONValue.int(998))]),
        ]
        for write in writes { try database.write(write, auth: .admin) }
        let windows = sink.windows
        #expect(windows.count == 4)
        #expect(windows.last == top.window(of: database.root.node(at: DatabasePath("scores"))))
        #expect(windows.last?.children.count == 3 && windows.last?.children["x"] != nil && windows.last?.children["y"] != nil)
        #expect(database.childIndexCount == 1)
    }
}

/// Keeps the nodes of the overwrites a listen is sent.
private final class RecordingSink: ListenSink {
    private let received = Mutex<[DataNode]>([])

    var windows: [DataNode] { received.withLock { $0 } }

    func deliver(_ delivery: Delivery) {
        guard case .overwrite(_, let node, _) = delivery.event else { return }
        received.withLock { $0.append(node) }
    }
}
