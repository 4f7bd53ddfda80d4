import EmulatorCore
import Testing

@testable import FirestoreEmulator

/// Which queries need an index production would have to be told about, and what it says when one is missing.
@Suite struct IndexRequirementTests {
    private func field(_ name: String) -> FieldPath { FieldPath(segments: name.split(separator: ".").map(String.init)) }
    private func equal(_ name: String) -> QueryFilter { .field(field(name), .equal, .string("x")) }
    private func greater(_ name: String) -> QueryFilter { .field(field(name), .greaterThan, .integer(1)) }
    private func contains(_ name: String) -> QueryFilter { .field(field(name), .arrayContains, .string("x")) }
    private func and(_ filters: QueryFilter...) -> QueryFilter { .composite(.and, filters) }
    private func order(_ name: String, descending: Bool = false) -> QueryOrder { QueryOrder(field: field(name), descending: descending) }

    private func query(
        _ filter: QueryFilter? = nil, orderBy: [QueryOrder] = [], group: Bool = false, collection: String = "cities"
    ) -> StructuredQuery {
        StructuredQuery(parent: DocumentPath(segments: []), collectionID: collection, allDescendants: group, filter: filter, orderBy: orderBy)
    }

    private func definitions(_ json: String) throws -> IndexDefinitions { try IndexDefinitions(json: json) }

    @Test func singleFieldIndexesServeEqualitiesMergedAndOneOrder() {
        let none = IndexDefinitions()
        for served in [
            query(), query(nil, orderBy: [order("population", descending: true)]), query(equal("state")),
            query(and(equal("state"), equal("name"), contains("regions"))), query(greater("population")),
            query(and(greater("population"), .field(field("population"), .lessThan, .integer(9)))),
            query(equal("state"), orderBy: [order("state")]), query(.field(field("state"), .in, .array([.string("CA")]))),
            query(and(equal("state"), .field(.documentName, .greaterThan, .string("projects/p/databases/(default)/documents/cities/a")))),
        ] {
            #expect(served.missingIndex(in: none) == nil, "\(served)")
        }
    }

    @Test func anEqualityWithAnOrderOrARangeOnAnotherFieldNeedsACompositeIndex() {
        let none = IndexDefinitions()
        let ordered = query(equal("country"), orderBy: [order("population")])
        #expect(ordered.missingIndex(in: none) == .composite(CompositeIndex(collectionGroup: "cities", scope: .collection, fields: [
            IndexField(path: field("country"), kind: .ascending), IndexField(path: field("population"), kind: .ascending),
        ])))
        let range = query(and(equal("country"), greater("population")))
        #expect(range.missingIndex(in: none) == ordered.missingIndex(in: none))
        let twoOrders = query(nil, orderBy: [order("a"), order("b", descending: true)])
        #expect(twoOrders.missingIndex(in: none) == .composite(CompositeIndex(collectionGroup: "cities", scope: .collection, fields: [
            IndexField(path: field("a"), kind: .ascending), IndexField(path: field("b"), kind: .descending),
            IndexField(path: .documentName, kind: .descending),
        ])))
        let arrayAndRange = query(and(contains("regions"), greater("population")))
        #expect(arrayAndRange.missingIndex(in: none) != nil)
    }

    /// The links production printed for two such queries (quoted in public projects' notes): the same
    /// `create_composite` value, byte for byte.
    @Test func theConsoleLinkCarriesTheIndexAsProductionEncodesIt() throws {
        let tickets = query(
            .field(field("providerId"), .equal, .string("p1")), orderBy: [order("attendanceDate", descending: true)], collection: "tickets")
        let missing = try #require(tickets.missingIndex(in: IndexDefinitions()))
        #expect(
            missing.message(in: DatabaseName(project: "central-provedor-35ef4", database: "(default)"))
                == "The query requires an index. You can create it here: https://console.firebase.google.com/v1/r/project/central-provedor-35ef4/firestore/indexes?create_composite=ClZwcm9qZWN0cy9jZW50cmFsLXByb3ZlZG9yLTM1ZWY0L2RhdGFiYXNlcy8oZGVmYXVsdCkvY29sbGVjdGlvbkdyb3Vwcy90aWNrZXRzL2luZGV4ZXMvXxABGg4KCnByb3ZpZGVySWQQARoSCg5hdHRlbmRhbmNlRGF0ZRACGgwKCF9fbmFtZV9fEAI")
        let ads = query(and(equal("status"), .field(field("endDate"), .greaterThanOrEqual, .integer(0))), collection: "advertisements")
        guard case .composite(let index) = ads.missingIndex(in: IndexDefinitions()) else {
            Issue.record("expected a composite index")
            return
        }
        #expect(
            index.linkToken(in: DatabaseName(project: "khuyoot-app01", database: "(default)"))
                == "ClRwcm9qZWN0cy9raHV5b290LWFwcDAxL2RhdGFiYXNlcy8oZGVmYXVsdCkvY29sbGVjdGlvbkdyb3Vwcy9hZHZlcnRpc2VtZW50cy9pbmRleGVzL18QARoKCgZzdGF0dXMQARoLCgdlbmREYXRlEAE")
    }

    @Test func declaredIndexesServeTheirQueriesExactlyOrMerged() throws {
        let declared = try definitions(#"""
            {"indexes": [
              {"collectionGroup": "cities", "queryScope": "COLLECTION", "fields": [
                {"fieldPath": "country", "order": "ASCENDING"}, {"fieldPath": "population", "order": "DESCENDING"}]},
              {"collectionGroup": "cities", "queryScope": "COLLECTION", "fields": [
                {"fieldPath": "state", "order": "ASCENDING"}, {"fieldPath": "population", "order": "DESCENDING"}]},
              {"collectionGroup": "cities", "queryScope": "COLLECTION", "fields": [
                {"fieldPath": "regions", "arrayConfig": "CONTAINS"}, {"fieldPath": "name", "order": "ASCENDING"},
                {"fieldPath": "__name__", "order": "ASCENDING"}]}
            ], "fieldOverrides": []}
            """#)
        #expect(query(equal("country"), orderBy: [order("population", descending: true)]).missingIndex(in: declared) == nil)
        // Production keeps each direction apart: the ascending order needs an index of its own.
        #expect(query(equal("country"), orderBy: [order("population")]).missingIndex(in: declared) != nil)
        // Merged: (country, population desc) and (state, population desc) serve both equalities.
        #expect(query(and(equal("country"), equal("state")), orderBy: [order("population", descending: true)]).missingIndex(in: declared) == nil)
        #expect(query(and(equal("country"), equal("mayor")), orderBy: [order("population", descending: true)]).missingIndex(in: declared) != nil)
        #expect(query(contains("regions"), orderBy: [order("name")]).missingIndex(in: declared) == nil)
        // An index of a collection does not serve a collection group query of the same id.
        #expect(query(equal("country"), orderBy: [order("population", descending: true)], group: true).missingIndex(in: declared) != nil)
    }

    @Test func collectionGroupQueriesAndExemptFieldsNeedSingleFieldIndexes() throws {
        let museums = query(equal("type"), group: true, collection: "landmarks")
        let missing = try #require(museums.missingIndex(in: IndexDefinitions()))
        #expect(missing == .singleField(collectionGroup: "landmarks", path: field("type"), SingleFieldIndex(kind: .ascending, scope: .collectionGroup)))
        #expect(missing.message(in: DatabaseName(project: "p", database: "(default)")).hasPrefix(
            "The query requires a COLLECTION_GROUP_ASC index for collection landmarks and field type. You can create it here: https://console.firebase.google.com/v1/r/project/p/firestore/indexes?create_exemption="))
        #expect(missing.json.key == "fieldOverrides")
        let overridden = try definitions(#"""
            {"indexes": [], "fieldOverrides": [
              {"collectionGroup": "landmarks", "fieldPath": "type", "indexes": [
                {"order": "ASCENDING", "queryScope": "COLLECTION"}, {"order": "ASCENDING", "queryScope": "COLLECTION_GROUP"}]},
              {"collectionGroup": "cities", "fieldPath": "description", "indexes": []}
            ]}
            """#)
        #expect(museums.missingIndex(in: overridden) == nil)
        #expect(query(group: true, collection: "landmarks").missingIndex(in: IndexDefinitions()) == nil)
        // An exempt field has no index at all.
        #expect(query(equal("description")).missingIndex(in: overridden) != nil)
        #expect(query(equal("population")).missingIndex(in: overridden) == nil)
    }

    @Test func anOrQueryNeedsWhatEachDisjunctionNeeds() {
        let either = QueryFilter.composite(.or, [equal("a"), equal("b")])
        #expect(query(either).missingIndex(in: IndexDefinitions()) == nil)
        #expect(query(either, orderBy: [order("c")]).missingIndex(in: IndexDefinitions()) == .composite(CompositeIndex(
            collectionGroup: "cities", scope: .collection,
            fields: [IndexField(path: field("a"), kind: .ascending), IndexField(path: field("c"), kind: .ascending)])))
        #expect(StructuredQuery.disjunctions(of: and(either, .composite(.or, [equal("c"), equal("d")]))).count == 4)
        // Each disjunction starts from the query's orders: an equality on `a` fixes the order on `a` in its
        // own disjunction only.
        #expect(query(either, orderBy: [order("a")]).missingIndex(in: IndexDefinitions()) == .composite(CompositeIndex(
            collectionGroup: "cities", scope: .collection,
            fields: [IndexField(path: field("b"), kind: .ascending), IndexField(path: field("a"), kind: .ascending)])))
    }

    @Test func anIndexesFileThatCannotBeReadNamesTheEntry() {
        #expect(throws: ConfigError("indexes[0]: collectionGroup is required")) { try IndexDefinitions(json: #"{"indexes": [{"fields": []}]}"#) }
        #expect(throws: ConfigError("indexes[0].fields[0]: expected \"order\": ASCENDING or DESCENDING, or \"arrayConfig\": CONTAINS")) {
            try IndexDefinitions(json: #"{"indexes": [{"collectionGroup": "c", "fields": [{"fieldPath": "a", "order": "UP"}]}]}"#)
        }
        #expect(throws: ConfigError("indexes[0].queryScope: expected COLLECTION or COLLECTION_GROUP, got \"ALL\"")) {
            try IndexDefinitions(json: #"{"indexes": [{"collectionGroup": "c", "queryScope": "ALL", "fields": [{"fieldPath": "a", "order": "ASCENDING"}]}]}"#)
        }
    }

    @Test func strictModeRefusesWhatTheOtherModeRunsAndBothRememberTheIndex() throws {
        let database = DatabaseName(project: "p", database: "(default)")
        let needing = query(equal("country"), orderBy: [order("population")])
        let lenient = FirestoreIndexes()
        try lenient.check(needing, in: database)
        try lenient.check(needing, in: database)
        #expect(lenient.missing(project: "p") == [
            "indexes": [[
                "collectionGroup": "cities", "queryScope": "COLLECTION",
                "fields": [["fieldPath": "country", "order": "ASCENDING"], ["fieldPath": "population", "order": "ASCENDING"]],
            ]],
            "fieldOverrides": [],
        ])
        let strict = FirestoreIndexes(strict: true)
        #expect(throws: FirestoreError.self) { try strict.check(needing, in: database) }
        do {
            try strict.check(needing, in: database)
        } catch {
            #expect(error.status == .failedPrecondition && error.message.hasPrefix("The query requires an index. You can create it here: "))
        }
        try strict.check(query(equal("country")), in: database)
    }
}
