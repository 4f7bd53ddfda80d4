import EmulatorCore
import Testing

@testable import FirestoreEmulator

/// Documents, references and queries shared by the query engine's tests.
enum QueryFixture {
    /// The database every fixture lives in.
    static let database = DatabaseName(project: "p", database: "(default)")

    /// A document at `path` (below the documents root) with `fields`.
    static func document(_ path: String, _ fields: [String: FirestoreValue] = [:]) -> Document {
        Document(
            path: DocumentPath(segments: path.split(separator: "/").map(String.init)), fields: fields,
            createTime: Timestamp(seconds: 1, nanos: 0), updateTime: Timestamp(seconds: 2, nanos: 0))
    }

    /// A reference to `path` in `database`.
    static func reference(_ path: String) -> FirestoreValue {
        .reference(database.documentsRoot + "/" + path)
    }

    /// A parsed field path.
    static func field(_ text: String) -> FieldPath {
        FieldPath(parsing: text)!
    }

    /// A query on collection `c` at the root with `filter`.
    static func query(_ filter: QueryFilter? = nil, orderBy: [QueryOrder] = []) -> StructuredQuery {
        StructuredQuery(parent: DocumentPath(segments: []), collectionID: "c", filter: filter, orderBy: orderBy)
    }

    /// Decodes a `structuredQuery` JSON text over the root.
    static func query(json text: String) throws -> StructuredQuery {
        try StructuredQuery(json: JSONValue.parse(text), parent: DocumentPath(segments: []))
    }

    /// Whether a document with `fields` matches `filter`.
    static func matches(_ filter: QueryFilter, _ fields: [String: FirestoreValue]) -> Bool {
        query(filter).matches(document("c/d", fields), in: database)
    }

    /// Whether a document with `x` set to `value` (or without `x` when `nil`) matches `x <op> operand`.
    static func matches(_ value: FirestoreValue?, _ op: FieldOperator, _ operand: FirestoreValue) -> Bool {
        matches(.field(field("x"), op, operand), value.map { ["x": $0] } ?? [:])
    }
}

@Suite struct QueryMatchingTests {
    typealias F = QueryFixture

    @Test func rangeFiltersOnlyCompareWithinATypeClass() {
        #expect(F.matches(.integer(2), .greaterThan, .integer(1)))
        #expect(F.matches(.double(1.5), .greaterThan, .integer(1)))
        #expect(F.matches(.integer(2), .greaterThan, .double(1.5)))
        #expect(!F.matches(.integer(1), .greaterThan, .integer(1)))
        #expect(F.matches(.integer(1), .greaterThanOrEqual, .double(1.0)))
        #expect(!F.matches(.string("a"), .greaterThan, .integer(1)))
        #expect(!F.matches(.boolean(true), .greaterThan, .integer(1)))
        #expect(!F.matches(.null, .lessThan, .integer(1)))
        #expect(!F.matches(nil, .lessThan, .integer(1)))
        #expect(F.matches(.string("b"), .lessThan, .string("c")))
        #expect(!F.matches(.string("b"), .lessThan, .integer(100)))
        // NaN sorts below every other number, as the SDKs evaluate it.
        #expect(F.matches(.double(.nan), .lessThan, .integer(1)))
        #expect(!F.matches(.double(.nan), .greaterThan, .double(-.infinity)))
        #expect(F.matches(.timestamp(seconds: 5, nanos: 0), .lessThanOrEqual, .timestamp(seconds: 5, nanos: 0)))
        #expect(F.matches(.array([.integer(1), .integer(2)]), .greaterThan, .array([.integer(1)])))
    }

    @Test func equalityIsValueEquality() {
        #expect(F.matches(.integer(1), .equal, .double(1.0)))
        #expect(F.matches(.double(-0.0), .equal, .integer(0)))
        #expect(!F.matches(.integer(1), .equal, .string("1")))
        #expect(!F.matches(.double(.nan), .equal, .double(.nan)))
        #expect(F.matches(.null, .equal, .null))
        #expect(!F.matches(nil, .equal, .null))
        let map = FirestoreValue.map(["a": .integer(1), "b": .double(2)])
        #expect(F.matches(map, .equal, .map(["b": .integer(2), "a": .integer(1)])))
        #expect(!F.matches(.array([.integer(1), .integer(2)]), .equal, .array([.integer(2), .integer(1)])))
    }

    @Test func notEqualExcludesMissingAndNull() {
        #expect(F.matches(.integer(2), .notEqual, .integer(1)))
        #expect(F.matches(.string("1"), .notEqual, .integer(1)))
        #expect(!F.matches(.double(1), .notEqual, .integer(1)))
        #expect(!F.matches(.null, .notEqual, .integer(1)))
        #expect(!F.matches(nil, .notEqual, .integer(1)))
        #expect(F.matches(.double(.nan), .notEqual, .integer(1)))
    }

    @Test func notInNeedsAPresentNonNullFieldAndNoNullOperand() {
        let list = FirestoreValue.array([.integer(1), .string("a")])
        #expect(F.matches(.integer(2), .notIn, list))
        #expect(!F.matches(.double(1), .notIn, list))
        #expect(!F.matches(.string("a"), .notIn, list))
        #expect(!F.matches(.null, .notIn, list))
        #expect(!F.matches(nil, .notIn, list))
        #expect(!F.matches(.integer(2), .notIn, .array([.integer(1), .null])))
    }

    @Test func inAndArrayMembership() {
        let list = FirestoreValue.array([.integer(1), .string("a"), .null])
        #expect(F.matches(.double(1), .in, list))
        #expect(F.matches(.null, .in, list))
        #expect(!F.matches(.integer(2), .in, list))
        #expect(!F.matches(nil, .in, list))
        #expect(!F.matches(.array([.integer(1)]), .in, list))
        #expect(F.matches(.array([.integer(1)]), .in, .array([.array([.integer(1)])])))

        #expect(F.matches(.array([.string("x"), .integer(1)]), .arrayContains, .double(1)))
        #expect(!F.matches(.array([.string("x")]), .arrayContains, .string("y")))
        #expect(!F.matches(.string("x"), .arrayContains, .string("x")))
        #expect(F.matches(.array([.null]), .arrayContains, .null))

        #expect(F.matches(.array([.string("x"), .integer(1)]), .arrayContainsAny, .array([.integer(5), .integer(1)])))
        #expect(!F.matches(.array([.string("x")]), .arrayContainsAny, .array([.integer(5)])))
        #expect(!F.matches(.integer(5), .arrayContainsAny, .array([.integer(5)])))
    }

    @Test func unaryFilters() {
        let x = F.field("x")
        #expect(F.matches(.unary(x, .isNaN), ["x": .double(.nan)]))
        #expect(!F.matches(.unary(x, .isNaN), ["x": .integer(1)]))
        #expect(!F.matches(.unary(x, .isNaN), [:]))
        #expect(F.matches(.unary(x, .isNull), ["x": .null]))
        #expect(!F.matches(.unary(x, .isNull), [:]))
        #expect(F.matches(.unary(x, .isNotNaN), ["x": .string("s")]))
        #expect(!F.matches(.unary(x, .isNotNaN), ["x": .double(.nan)]))
        #expect(!F.matches(.unary(x, .isNotNaN), ["x": .null]))
        #expect(!F.matches(.unary(x, .isNotNaN), [:]))
        #expect(F.matches(.unary(x, .isNotNull), ["x": .double(.nan)]))
        #expect(!F.matches(.unary(x, .isNotNull), ["x": .null]))
        #expect(!F.matches(.unary(x, .isNotNull), [:]))
    }

    @Test func compositeFiltersNest() {
        let a = QueryFilter.field(F.field("a"), .equal, .integer(1))
        let b = QueryFilter.field(F.field("b"), .equal, .integer(2))
        let c = QueryFilter.field(F.field("c"), .equal, .integer(3))
        let filter = QueryFilter.composite(.or, [.composite(.and, [a, b]), .composite(.and, [c])])
        #expect(F.matches(filter, ["a": .integer(1), "b": .integer(2)]))
        #expect(F.matches(filter, ["c": .integer(3)]))
        #expect(!F.matches(filter, ["a": .integer(1), "c": .integer(4)]))
        #expect(F.matches(.composite(.and, []), [:]))
    }

    @Test func nestedFieldsAndMaps() {
        let filter = QueryFilter.field(F.field("m.`a.b`"), .equal, .integer(1))
        #expect(F.matches(filter, ["m": .map(["a.b": .integer(1)])]))
        #expect(!F.matches(filter, ["m": .map(["a": .map(["b": .integer(1)])])]))
    }

    @Test func documentsLackingAnOrderedFieldAreExcluded() {
        let ordered = F.query(orderBy: [QueryOrder(field: F.field("x"))])
        #expect(ordered.matches(F.document("c/d", ["x": .null]), in: F.database))
        #expect(!ordered.matches(F.document("c/d", ["y": .integer(1)]), in: F.database))
        // An inequality inside OR still orders by its field, so documents without it drop out.
        let or = F.query(
            .composite(.or, [.field(F.field("a"), .greaterThan, .integer(1)), .field(F.field("b"), .equal, .integer(1))]))
        #expect(!or.matches(F.document("c/d", ["b": .integer(1)]), in: F.database))
        #expect(or.matches(F.document("c/d", ["a": .integer(0), "b": .integer(1)]), in: F.database))
    }

    @Test func nameFiltersCompareDocumentPaths() {
        let document = F.document("c/b")
        func matches(_ op: FieldOperator, _ operand: FirestoreValue) -> Bool {
            F.query(.field(.documentName, op, operand)).matches(document, in: F.database)
        }
        #expect(matches(.equal, F.reference("c/b")))
        #expect(!matches(.equal, F.reference("c/a")))
        #expect(matches(.greaterThan, F.reference("c/a")))
        #expect(matches(.lessThan, F.reference("c/b/sub/x")))
        #expect(matches(.lessThan, F.reference("c/__id2__")) == false)
        #expect(matches(.in, .array([F.reference("c/a"), F.reference("c/b")])))
        #expect(matches(.notIn, .array([F.reference("c/a")])))
        #expect(matches(.notEqual, F.reference("c/a")))
        // A reference into another database never equals a name, and orders by its database.
        #expect(!matches(.equal, .reference("projects/q/databases/(default)/documents/c/b")))
        #expect(matches(.lessThan, .reference("projects/q/databases/(default)/documents/c/a")))
        #expect(!matches(.equal, .string("c/b")))
    }
}
