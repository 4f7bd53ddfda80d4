import EmulatorCore
import Testing

@testable import FirestoreEmulator

@Suite struct ListenSessionTests {
    let database = DatabaseName(project: "p", database: "(default)")

    private func document(_ path: String, _ n: Int64, at micros: Int64) -> Document {
        Document(
            path: DocumentPath(segments: path.split(separator: "/").map(String.init)), fields: ["n": .integer(n)],
            createTime: Timestamp(microseconds: micros), updateTime: Timestamp(microseconds: micros))
    }

    private func query(limit: Int? = nil, where filter: QueryFilter? = nil) -> ListenTarget.Kind {
        var query = StructuredQuery(parent: DocumentPath(segments: []), collectionID: "rooms")
        query.filter = filter
        query.limit = limit
        return .query(query)
    }

    /// A compact rendering of events for assertions.
    private func render(_ events: [ListenEvent]) -> [String] {
        events.map { event in
            switch event {
            case .targetChange(let kind, let ids, let cause, _, let readTime):
                return "\(kind)\(ids)" + (cause != nil ? " cause" : "") + (readTime != nil ? " @\(readTime!.microseconds)" : "")
            case .documentChange(let document, let ids, let removed):
                return "change \(document.path) \(ids) -\(removed)"
            case .documentDelete(let path, let removed, _): return "delete \(path) -\(removed)"
            case .documentRemove(let path, let removed, _): return "remove \(path) -\(removed)"
            case .existenceFilter(let id, let count): return "filter \(id) \(count)"
            }
        }
    }

    @Test func addSendsAddDocumentsCurrentThenSnapshot() {
        var session = ListenSession()
        let events = session.add(
            ListenTarget(id: 2, kind: query()), results: [document("rooms/a", 1, at: 5)], readTime: Timestamp(microseconds: 10), in: database)
        #expect(render(events) == ["add[2]", "change rooms/a [2] -[]", "current[2]", "noChange[] @10"])
    }

    @Test func resumedTargetGetsWhatChangedThenAnExistenceFilter() {
        var session = ListenSession()
        let target = ListenTarget(id: 2, kind: query(), resume: .token(Timestamp(microseconds: 3).resumeToken))
        let previous = [document("rooms/a", 1, at: 1), document("rooms/b", 1, at: 1), document("rooms/c", 1, at: 1)]
        let events = session.add(
            target, results: [document("rooms/a", 1, at: 1), document("rooms/b", 2, at: 5), document("rooms/d", 1, at: 6)],
            readTime: Timestamp(microseconds: 10), in: database,
            resumed: ListenSession.Resumed(previous: previous, deleted: []))
        #expect(render(events) == [
            "add[2]", "change rooms/b [2] -[]", "change rooms/d [2] -[]", "remove rooms/c -[2]", "filter 2 3", "current[2]",
            "noChange[] @10",
        ])
        let deleted = session.add(
            target, results: [], readTime: Timestamp(microseconds: 11), in: database,
            resumed: ListenSession.Resumed(previous: previous.prefix(1).map { $0 }, deleted: [DocumentPath(segments: ["rooms", "a"])]))
        #expect(render(deleted) == ["add[2]", "delete rooms/a -[2]", "filter 2 0", "current[2]", "noChange[] @11"])
    }

    @Test func resumedTargetIsResetAndOnceTargetIsRemoved() {
        var session = ListenSession()
        let resumed = ListenTarget(id: 4, kind: query(), resume: .token(Timestamp(microseconds: 3).resumeToken), once: true)
        let events = session.add(resumed, results: [], readTime: Timestamp(microseconds: 10), in: database)
        #expect(render(events) == ["add[4]", "reset[4]", "current[4]", "noChange[] @10", "remove[4]"])
        #expect(session.targetIDs.isEmpty)
        #expect(Timestamp(resumeToken: Timestamp(microseconds: 3).resumeToken) == Timestamp(microseconds: 3))
    }

    @Test func commitsProduceChangesRemovesAndDeletesInOrder() throws {
        var session = ListenSession()
        let big = QueryFilter.field(FieldPath(segments: ["n"]), .greaterThan, .integer(5))
        _ = session.add(ListenTarget(id: 1, kind: query(where: big)), results: [document("rooms/a", 9, at: 1)], readTime: Timestamp(microseconds: 2), in: database)
        _ = session.add(ListenTarget(id: 3, kind: .documents([DocumentPath(segments: ["rooms", "a"])])), results: [document("rooms/a", 9, at: 1)], readTime: Timestamp(microseconds: 2), in: database)

        let drop = try session.apply(
            [(DocumentPath(segments: ["rooms", "a"]), document("rooms/a", 9, at: 1), document("rooms/a", 1, at: 20))],
            at: Timestamp(microseconds: 20), in: database, rerun: { _ in [] })
        #expect(render(drop) == ["change rooms/a [3] -[1]", "noChange[] @20"])

        let add = try session.apply(
            [(DocumentPath(segments: ["rooms", "b"]), nil, document("rooms/b", 7, at: 30))],
            at: Timestamp(microseconds: 30), in: database, rerun: { _ in [] })
        #expect(render(add) == ["change rooms/b [1] -[]", "noChange[] @30"])

        let delete = try session.apply(
            [(DocumentPath(segments: ["rooms", "b"]), document("rooms/b", 7, at: 30), nil)],
            at: Timestamp(microseconds: 40), in: database, rerun: { _ in [] })
        #expect(render(delete) == ["delete rooms/b -[1]", "noChange[] @40"])

        let elsewhere = try session.apply(
            [(DocumentPath(segments: ["other", "x"]), nil, document("other/x", 9, at: 50))],
            at: Timestamp(microseconds: 50), in: database, rerun: { _ in [] })
        #expect(elsewhere.isEmpty)
        #expect(render(session.remove(1)) == ["remove[1]"])
        #expect(render(session.remove(99)) == ["remove[99]"])
    }

    @Test func limitedQueriesRerunAndSendWhatLeftTheWindow() throws {
        var session = ListenSession()
        _ = session.add(ListenTarget(id: 1, kind: query(limit: 1)), results: [document("rooms/b", 1, at: 1)], readTime: Timestamp(microseconds: 2), in: database)
        let events = try session.apply(
            [(DocumentPath(segments: ["rooms", "a"]), nil, document("rooms/a", 1, at: 10))],
            at: Timestamp(microseconds: 10), in: database, rerun: { _ in [document("rooms/a", 1, at: 10)] })
        #expect(render(events) == ["change rooms/a [1] -[]", "remove rooms/b -[1]", "noChange[] @10"])
    }

    @Test func aHeldSnapshotWaitsUntilOtherTargetsHaveTheCommitsBeforeIt() throws {
        var session = ListenSession()
        _ = session.add(ListenTarget(id: 1, kind: query()), results: [], readTime: Timestamp(microseconds: 2), in: database)
        // Target 3 is read at 20 while the commit at 10 is still on its way to target 1.
        let added = session.add(
            ListenTarget(id: 3, kind: .documents([DocumentPath(segments: ["rooms", "a"])])),
            results: [document("rooms/a", 1, at: 10)], readTime: Timestamp(microseconds: 20), in: database,
            holdingSnapshot: true)
        #expect(render(added) == ["add[3]", "change rooms/a [3] -[]", "current[3]"])
        #expect(session.waitingForCatchUp == 1)
        // The commit reaches target 1 (target 3 already has it) before any snapshot at 20 goes out.
        let late = try session.apply(
            [(DocumentPath(segments: ["rooms", "a"]), nil, document("rooms/a", 1, at: 10))],
            at: Timestamp(microseconds: 10), in: database, rerun: { _ in [] })
        #expect(render(late) == ["change rooms/a [1] -[]", "noChange[] @10"])
        #expect(render(session.caughtUp()) == ["noChange[] @20"])
        #expect(session.waitingForCatchUp == 0)

        // A once target's removal follows its held snapshot; a snapshot already sent later is not repeated.
        let once = ListenTarget(id: 5, kind: query(), once: true)
        #expect(render(session.add(once, results: [], readTime: Timestamp(microseconds: 30), in: database, holdingSnapshot: true)) == [
            "add[5]", "current[5]",
        ])
        _ = try session.apply(
            [(DocumentPath(segments: ["rooms", "b"]), nil, document("rooms/b", 1, at: 40))],
            at: Timestamp(microseconds: 40), in: database, rerun: { _ in [] })
        #expect(render(session.caughtUp()) == ["remove[5]"])
        #expect(session.caughtUp().isEmpty)
    }

    @Test func refusedTargetIsAddedThenRemovedWithACause() {
        var session = ListenSession()
        #expect(render(session.refuse(7, because: .permissionDenied)) == ["add[7]", "remove[7] cause"])
    }
}
