import EmulatorCore
import Testing

@testable import FirestoreEmulator

@Suite struct QueryExecutionTests {
    typealias F = QueryFixture

    /// Counts how many documents a scan pulls.
    final class PullCounter {
        var pulled = 0
    }

    /// Names of the results of `query` over `documents`.
    func names(_ query: StructuredQuery, _ documents: [Document], inNameOrder: Bool = false) -> [String] {
        query.run(over: documents, in: F.database, candidatesInOrder: inNameOrder && query.normalizedOrder == [QueryOrder(field: .documentName)]).map(\.path.description)
    }

    @Test func normalizedOrderAddsInequalityFieldsThenName() {
        let filter = QueryFilter.composite(.and, [
            .field(F.field("z"), .greaterThan, .integer(1)),
            .composite(.or, [.field(F.field("b"), .notEqual, .integer(1)), .unary(F.field("a"), .isNotNull)]),
            .field(F.field("y"), .equal, .integer(1)),
            .field(.documentName, .greaterThan, F.reference("c/a")),
        ])
        let query = F.query(filter, orderBy: [QueryOrder(field: F.field("z"), descending: true)])
        #expect(
            query.normalizedOrder == [
                QueryOrder(field: F.field("z"), descending: true), QueryOrder(field: F.field("a"), descending: true),
                QueryOrder(field: F.field("b"), descending: true), QueryOrder(field: .documentName, descending: true),
            ])
        #expect(F.query().normalizedOrder == [QueryOrder(field: .documentName)])
        let explicitName = F.query(orderBy: [QueryOrder(field: .documentName, descending: true)])
        #expect(explicitName.normalizedOrder == [QueryOrder(field: .documentName, descending: true)])
    }

    @Test func ordersAcrossTypesWithNameAsTieBreaker() {
        let documents = [
            F.document("c/e", ["x": .string("a")]), F.document("c/d", ["x": .integer(2)]),
            F.document("c/c", ["x": .double(1.0)]), F.document("c/b", ["x": .integer(1)]),
            F.document("c/a", ["x": .null]), F.document("c/f", ["y": .integer(0)]),
            F.document("c/g", ["x": .double(.nan)]),
        ]
        let ascending = F.query(orderBy: [QueryOrder(field: F.field("x"))])
        #expect(names(ascending, documents) == ["c/a", "c/g", "c/b", "c/c", "c/d", "c/e"])
        let descending = F.query(orderBy: [QueryOrder(field: F.field("x"), descending: true)])
        #expect(names(descending, documents) == ["c/e", "c/d", "c/c", "c/b", "c/g", "c/a"])
        #expect(ascending.precedes(documents[3], documents[2]))
        #expect(!ascending.precedes(documents[2], documents[3]))
    }

    @Test func cursorsIncludeOrExcludeTheirPosition() {
        let documents = (1...5).map { F.document("c/d\($0)", ["x": .integer(Int64($0 / 2))]) }
        // x: d1=0, d2=1, d3=1, d4=2, d5=2
        func run(start: QueryCursor? = nil, end: QueryCursor? = nil, descending: Bool = false) -> [String] {
            var query = F.query(orderBy: [QueryOrder(field: F.field("x"), descending: descending)])
            query.startAt = start
            query.endAt = end
            return names(query, documents)
        }
        #expect(run(start: QueryCursor(values: [.integer(1)], before: true)) == ["c/d2", "c/d3", "c/d4", "c/d5"])
        #expect(run(start: QueryCursor(values: [.integer(1)], before: false)) == ["c/d4", "c/d5"])
        #expect(run(end: QueryCursor(values: [.integer(1)], before: false)) == ["c/d1", "c/d2", "c/d3"])
        #expect(run(end: QueryCursor(values: [.integer(1)], before: true)) == ["c/d1"])
        #expect(run(start: QueryCursor(values: [.integer(1), F.reference("c/d2")], before: false)) == ["c/d3", "c/d4", "c/d5"])
        #expect(run(start: QueryCursor(values: [.double(1.0)], before: true), end: QueryCursor(values: [.integer(1)], before: false)) == ["c/d2", "c/d3"])
        #expect(run(start: QueryCursor(values: [.integer(1)], before: false), descending: true) == ["c/d1"])
        #expect(run(end: QueryCursor(values: [.integer(2), F.reference("c/d4")], before: false), descending: true) == ["c/d5", "c/d4"])
        // A cursor value of another type sorts by type: every number is before a string.
        #expect(run(start: QueryCursor(values: [.string("")], before: true)) == [])
    }

    @Test func nameCursorsCompareWithPaths() {
        let documents = ["c/__id10__", "c/__id2__", "c/a", "c/b"].map { F.document($0) }
        var query = F.query()
        query.startAt = QueryCursor(values: [F.reference("c/__id10__")], before: false)
        #expect(names(query, documents) == ["c/a", "c/b"])
        query.startAt = QueryCursor(values: [.reference("projects/a/databases/(default)/documents/c/z")], before: true)
        #expect(names(query, documents) == ["c/__id2__", "c/__id10__", "c/a", "c/b"])
        query.startAt = QueryCursor(values: [.string("zzz")], before: true)
        #expect(names(query, documents) == ["c/__id2__", "c/__id10__", "c/a", "c/b"])
    }

    @Test func offsetAndLimitApplyAfterCursors() {
        let documents = (0..<10).map { F.document("c/d\($0)", ["x": .integer(Int64(9 - $0))]) }
        var query = F.query(orderBy: [QueryOrder(field: F.field("x"))])
        query.startAt = QueryCursor(values: [.integer(2)], before: false)
        query.offset = 2
        query.limit = 3
        #expect(names(query, documents) == ["c/d4", "c/d3", "c/d2"])
        query.limit = 0
        #expect(names(query, documents) == [])
        query.limit = nil
        query.offset = 20
        #expect(names(query, documents) == [])
    }

    @Test func limitKeepsTheBestAcrossManyCandidates() {
        var generator = SplitMix64(seed: 7)
        let documents = (0..<2_000).map { F.document("c/d\($0)", ["x": .integer(Int64.random(in: 0..<500, using: &generator))]) }
        var query = F.query(orderBy: [QueryOrder(field: F.field("x"), descending: true)])
        query.offset = 5
        query.limit = 17
        let all = names(F.query(orderBy: query.orderBy), documents)
        #expect(names(query, documents) == Array(all[5..<22]))
    }

    @Test func nameOrderStreamsAndStopsEarly() {
        let documents = (0..<100).map { F.document("c/d" + String(1000 + $0).dropFirst(), ["x": .integer(Int64($0 % 3))]) }
        let counter = PullCounter()
        let candidates = documents.lazy.map { document -> Document in
            counter.pulled += 1
            return document
        }
        var query = F.query(.field(F.field("x"), .equal, .integer(0)))
        query.limit = 2
        query.offset = 1
        query.startAt = QueryCursor(values: [F.reference("c/d010")], before: true)
        let results = query.run(over: candidates, in: F.database, candidatesInOrder: true)
        #expect(results.map(\.path.description) == ["c/d015", "c/d018"])
        #expect(counter.pulled == 19)

        counter.pulled = 0
        query.limit = nil
        query.endAt = QueryCursor(values: [F.reference("c/d020")], before: true)
        #expect(query.run(over: candidates, in: F.database, candidatesInOrder: true).count == 2)
        #expect(counter.pulled == 21)
    }

    @Test func projectionKeepsSelectedFields() {
        let document = F.document("c/a", [
            "a": .integer(1), "b": .map(["c": .integer(2), "d": .integer(3)]), "e": .string("x"),
        ])
        var query = F.query()
        query.projection = [F.field("b.c"), F.field("a"), F.field("missing"), F.field("e.f")]
        let result = query.run(over: [document], in: F.database, candidatesInOrder: false)
        #expect(result == [Document(path: document.path, fields: ["a": .integer(1), "b": .map(["c": .integer(2)])],
            createTime: document.createTime, updateTime: document.updateTime)])
        query.projection = [.documentName]
        #expect(query.run(over: [document], in: F.database, candidatesInOrder: false).first?.fields == [:])
        query.projection = [F.field("b"), F.field("b.c")]
        #expect(query.run(over: [document], in: F.database, candidatesInOrder: false).first?.fields == ["b": document.fields["b"]!])
    }
}
