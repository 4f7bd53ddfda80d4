import EmulatorCore
import Testing

@testable import FirestoreEmulator

/// Which index a query reads and how: the chat app's queries (an equality or array-contains with an order on
/// another field) read a composite index's range in their order, so they touch what they return; shapes an
/// index cannot order still read a bounded superset that the query sorts.
@Suite struct IndexPlanTests {
    typealias F = QueryFixture

    /// Messages of three conversations, timestamps interleaved; each message's sender's ids in `readBy`.
    static func messages() -> [Document] {
        (0..<30).map { n in
            F.document("c/m\(n)", [
                "conversationId": .string("conv\(n % 3)"), "timestamp": .integer(Int64(n)),
                "readBy": .array([.string("u\(n % 2)"), .string("u\(n % 5)")]),
            ])
        }
    }

    /// A store holding `documents`, and `query`'s plan with the entries its first range yields.
    static func read(_ query: StructuredQuery, over documents: [Document]) throws -> (plan: IndexPlan, entries: [String], results: [String]) {
        let store = try FirestoreStore(clock: SystemClock())
        _ = try store.commit(F.database, writes: documents.map { Write(path: $0.path, operation: .update(fields: $0.fields)) }) { _, _, _ in }
        let plan = try #require(IndexPlan(query))
        let (read, _) = try store.read(F.database) { (view: inout DatabaseView) throws(FirestoreError) -> ([String]?, [String]) in
            let index = view.state.fieldIndex(plan.key, in: DocumentPath(segments: ["c"]), minimumCount: 0)
            let entries = index.map { index in plan.prefixes.flatMap { plan.ids(in: index, prefix: $0) } }
            return (entries, view.run(query).map { $0.path.lastSegment ?? "" })
        }
        return (plan, try #require(read.0), read.1)
    }

    static func fields(_ plan: IndexPlan) -> [String] {
        plan.key.fields.map { "\($0.path)\($0.elements ? "[]" : "")" }
    }

    @Test func anEqualityOrderedByAnotherFieldReadsACompositeIndexInItsOrder() throws {
        var query = F.query(.field(F.field("conversationId"), .equal, .string("conv1")), orderBy: [QueryOrder(field: F.field("timestamp"), descending: true)])
        query.limit = 3
        let (plan, entries, results) = try Self.read(query, over: Self.messages())
        #expect(Self.fields(plan) == ["conversationId", "timestamp"])
        #expect(plan.inOrder && plan.descending)
        // The range holds the conversation's messages only, newest first: the first three are the answer.
        #expect(entries == stride(from: 28, through: 1, by: -3).map { "m\($0)" })
        #expect(results == ["m28", "m25", "m22"])
    }

    @Test func anArrayContainsOrderedByAnotherFieldReadsACompositeIndexInItsOrder() throws {
        let query = F.query(
            .composite(.and, [.field(F.field("readBy"), .arrayContains, .string("u3")), .field(F.field("timestamp"), .lessThan, .integer(20))]),
            orderBy: [QueryOrder(field: F.field("timestamp"), descending: true)])
        let (plan, entries, results) = try Self.read(query, over: Self.messages())
        #expect(Self.fields(plan) == ["readBy[]", "timestamp"])
        #expect(plan.inOrder)
        // The range stops at the bound: from 19 down, the messages u3 read.
        #expect(entries == ["m18", "m13", "m8", "m3"])
        #expect(results == entries)
    }

    @Test func severalEqualitiesFixTheirFieldsInOneOrderWhateverTheFiltersOrder() throws {
        let documents = (0..<12).map { n in F.document("c/d\(n)", ["a": .integer(Int64(n % 2)), "b": .integer(Int64(n % 3)), "t": .integer(Int64(n))]) }
        let forward = F.query(.composite(.and, [.field(F.field("b"), .equal, .integer(1)), .field(F.field("a"), .equal, .integer(0))]), orderBy: [QueryOrder(field: F.field("t"))])
        let backward = F.query(.composite(.and, [.field(F.field("a"), .equal, .integer(0)), .field(F.field("b"), .equal, .integer(1))]), orderBy: [QueryOrder(field: F.field("t"))])
        let (one, entries, results) = try Self.read(forward, over: documents)
        let (other, _, _) = try Self.read(backward, over: documents)
        #expect(one.key == other.key)
        #expect(Self.fields(one) == ["a", "b", "t"])
        #expect(entries == ["d4", "d10"])
        #expect(results == entries)
    }

    @Test func anArrayContainsAnyListYieldsEachDocumentOnce() throws {
        let query = F.query(.field(F.field("readBy"), .arrayContainsAny, .array([.string("u0"), .string("u1"), .string("u0")])), orderBy: [])
        let (plan, entries, results) = try Self.read(query, over: Self.messages())
        #expect(plan.deduplicates && !plan.inOrder)
        #expect(plan.prefixes.count == 2)
        // Each message is in one range or both (u0 by n % 2 and n % 5): the entries repeat, the results do not.
        #expect(entries.count > 30)
        #expect(results == Self.messages().map { $0.path.lastSegment! }.sorted { DocumentIDOrder.precedes($0, $1) })
    }

    @Test func ordersInTwoDirectionsIndexTheFirstAndSortTheRest() throws {
        let query = F.query(nil, orderBy: [QueryOrder(field: F.field("conversationId")), QueryOrder(field: F.field("timestamp"), descending: true)])
        let (plan, _, results) = try Self.read(query, over: Self.messages())
        #expect(Self.fields(plan) == ["conversationId"])
        #expect(!plan.inOrder)
        #expect(results.prefix(3) == ["m27", "m24", "m21"])
    }

    @Test func anInListReadsARangePerValueAndTheQuerySortsThem() throws {
        var query = F.query(
            .field(F.field("conversationId"), .in, .array([.string("conv2"), .string("conv0")])), orderBy: [QueryOrder(field: F.field("timestamp"))])
        query.limit = 4
        let (plan, entries, results) = try Self.read(query, over: Self.messages())
        #expect(Self.fields(plan) == ["conversationId", "timestamp"])
        #expect(plan.prefixes.count == 2 && !plan.inOrder)
        #expect(entries.count == 20)
        #expect(results == ["m0", "m2", "m3", "m5"])
    }

    @Test func anOrQueryReadsEachDisjunctionsRangesOnce() throws {
        let either = F.query(
            .composite(.or, [.field(F.field("conversationId"), .equal, .string("conv1")), .field(F.field("timestamp"), .lessThan, .integer(3))]),
            orderBy: [QueryOrder(field: F.field("timestamp"), descending: true)])
        let plans = try #require(IndexPlan.disjunctions(of: either))
        #expect(plans.map(Self.fields) == [["conversationId", "timestamp"], ["timestamp"]])
        // Both read in the query's order, so their ranges are merged and a limit stops the read early.
        #expect(plans.allSatisfy { $0.inOrder })
        let (_, _, results) = try Self.read(F.query(.field(F.field("timestamp"), .lessThan, .integer(3))), over: Self.messages())
        #expect(results == ["m0", "m1", "m2"])
        let store = try FirestoreStore(clock: SystemClock())
        _ = try store.commit(F.database, writes: Self.messages().map { Write(path: $0.path, operation: .update(fields: $0.fields)) }) { _, _, _ in }
        let (found, _) = try store.read(F.database) { (view: inout DatabaseView) throws(FirestoreError) -> [String] in
            view.run(either).map { $0.path.lastSegment ?? "" }
        }
        // m1 is in both disjunctions, once in the results.
        #expect(found == ["m28", "m25", "m22", "m19", "m16", "m13", "m10", "m7", "m4", "m2", "m1", "m0"])
        // A disjunction that bounds nothing would read its whole index: such a query is scanned.
        let unbounded = F.query(.composite(.or, [.field(F.field("conversationId"), .equal, .string("conv1")), .field(F.field("timestamp"), .notEqual, .integer(3))]))
        #expect(IndexPlan.disjunctions(of: unbounded) == nil)
    }

    @Test func aCollectionGroupQueryMergesItsCollectionsRangesInItsOrder() throws {
        let store = try FirestoreStore(clock: SystemClock())
        let documents = (0..<12).map { n in F.document("rooms/r\(n % 3)/messages/m\(n)", ["timestamp": .integer(Int64(n)), "kind": .string(n % 2 == 0 ? "text" : "file")]) }
        _ = try store.commit(F.database, writes: documents.map { Write(path: $0.path, operation: .update(fields: $0.fields)) }) { _, _, _ in }
        var newest = StructuredQuery(parent: DocumentPath(segments: []), collectionID: "messages", allDescendants: true, orderBy: [QueryOrder(field: F.field("timestamp"), descending: true)])
        newest.limit = 4
        var files = newest
        files.filter = .field(F.field("kind"), .equal, .string("file"))
        let ((all, onlyFiles, indexed), _) = try store.read(F.database) { (view: inout DatabaseView) throws(FirestoreError) -> ([String], [String], Int) in
            (view.run(newest).map { $0.path.description }, view.run(files).map { $0.path.lastSegment ?? "" },
             view.state.collections.values.reduce(0) { $0 + $1.fieldIndexes.count })
        }
        #expect(all == ["rooms/r2/messages/m11", "rooms/r1/messages/m10", "rooms/r0/messages/m9", "rooms/r2/messages/m8"])
        #expect(onlyFiles == ["m11", "m9", "m7", "m5"])
        // Each room's messages got an index by timestamp and one by kind then timestamp.
        #expect(indexed == 6)
    }

    @Test func anIndexBuiltOutsideTheLockCatchesUpWithWritesMadeMeanwhile() throws {
        let database = DatabaseState(name: F.database)
        let horizon = Timestamp(seconds: 0, nanos: 0)
        var time = 10
        func record(_ id: String, _ fields: [String: FirestoreValue]?) {
            time += 1
            let path = DocumentPath(segments: ["c", id])
            let document = fields.map { Document(path: path, fields: $0, createTime: Timestamp(seconds: Int64(time), nanos: 0), updateTime: Timestamp(seconds: Int64(time), nanos: 0)) }
            database.record(document, at: path, time: Timestamp(seconds: Int64(time), nanos: 0), horizon: horizon)
        }
        for n in 0..<50 { record("d\(n)", ["group": .integer(Int64(n % 4)), "n": .integer(Int64(n))]) }
        let collectionPath = DocumentPath(segments: ["c"])
        let key = IndexKey([IndexedField(path: F.field("group")), IndexedField(path: F.field("n"))])
        let snapshot = try #require(database.collection(at: collectionPath))
        let built = snapshot.buildIndex(key)
        // Meanwhile: a value changes, a document goes, another loses the field, new ones come.
        record("d1", ["group": .integer(3), "n": .integer(1)])
        record("d2", nil)
        record("d3", ["group": .integer(3)])
        record("e1", ["group": .integer(0), "n": .integer(-1)])
        database.install(built, key: key, in: collectionPath, builtFrom: snapshot)
        let installed = try #require(database.collection(at: collectionPath)?.fieldIndexes[key])
        let fresh = try #require(database.collection(at: collectionPath)).buildIndex(key)
        let describe = { (index: FieldIndex) -> [String] in
            guard case .composite(let entries) = index else { return [] }
            return entries.map { "\($0.id)=\($0.first),\($0.rest)" }
        }
        #expect(describe(installed) == describe(fresh))
        #expect(installed.count == 49)
        // Writes after the install keep it current as any index.
        record("d4", nil)
        #expect(database.collection(at: collectionPath)?.fieldIndexes[key]?.count == 48)
    }

    @Test func largeCollectionsGetTheirIndexesBeforeTheQueryTakesTheLock() throws {
        let store = try FirestoreStore(clock: SystemClock())
        for batch in 0..<(FirestoreStore.offLockIndexMinimum / 500 + 1) {
            let writes = (0..<500).map { i in
                let n = batch * 500 + i
                return Write(path: DocumentPath(segments: ["c", "d\(n)"]), operation: .update(fields: ["group": .integer(Int64(n % 10)), "n": .integer(Int64(n))]))
            }
            _ = try store.commit(F.database, writes: writes) { _, _, _ in }
        }
        var query = F.query(.field(F.field("group"), .equal, .integer(7)), orderBy: [QueryOrder(field: F.field("n"), descending: true)])
        query.limit = 2
        store.prepareIndexes(for: query, in: F.database)
        let ((keys, results), _) = try store.read(F.database) { (view: inout DatabaseView) throws(FirestoreError) -> ([IndexKey], [String]) in
            (Array(view.state.collection(at: DocumentPath(segments: ["c"]))?.fieldIndexes.keys ?? [:].keys), view.run(query).map { $0.path.lastSegment ?? "" })
        }
        #expect(keys == [IndexKey([IndexedField(path: F.field("group")), IndexedField(path: F.field("n"))])])
        #expect(results == ["d10497", "d10487"])
    }

    @Test func aGroupOfManyCollectionsMergesInOrderWithoutALimit() throws {
        let store = try FirestoreStore(clock: SystemClock())
        let documents = (0..<1_000).map { n in F.document("rooms/r\(n % 200)/messages/m\(n)", ["timestamp": .integer(Int64((n * 7_919) % 1_000))]) }
        _ = try store.commit(F.database, writes: documents.map { Write(path: $0.path, operation: .update(fields: $0.fields)) }) { _, _, _ in }
        let oldestFirst = StructuredQuery(parent: DocumentPath(segments: []), collectionID: "messages", allDescendants: true, orderBy: [QueryOrder(field: F.field("timestamp"))])
        let (times, _) = try store.read(F.database) { (view: inout DatabaseView) throws(FirestoreError) -> [Int64] in
            view.run(oldestFirst).map { if case .integer(let time)? = $0.fields["timestamp"] { time } else { -1 } }
        }
        #expect(times == Array(0..<1_000))
    }

    @Test func countsOnACompositeIndexAreExactOrNotTakenFromIt() throws {
        let store = try FirestoreStore(clock: SystemClock())
        _ = try store.commit(F.database, writes: Self.messages().map { Write(path: $0.path, operation: .update(fields: $0.fields)) }) { _, _, _ in }
        let conversation = QueryFilter.field(F.field("conversationId"), .equal, .string("conv1"))
        let recent = QueryFilter.field(F.field("timestamp"), .greaterThanOrEqual, .integer(10))
        let either = QueryFilter.composite(.or, [.field(F.field("timestamp"), .equal, .integer(1)), .field(F.field("timestamp"), .equal, .integer(4))])
        let ((ranged, nested, nan), _) = try store.read(F.database) { (view: inout DatabaseView) throws(FirestoreError) -> (Int?, Int?, Int?) in
            (
                view.indexedCount(of: F.query(.composite(.and, [conversation, recent]))),
                view.indexedCount(of: F.query(.composite(.and, [conversation, either]))),
                view.indexedCount(of: F.query(.field(F.field("timestamp"), .in, .array([.double(.nan), .integer(1)]))))
            )
        }
        // conv1 from 10 on: 10, 13, 16, 19, 22, 25, 28.
        #expect(ranged == 7)
        // An OR inside the AND, or a NaN the index holds equal to NaN: counted by running the query.
        #expect(nested == nil && nan == nil)
    }
}
