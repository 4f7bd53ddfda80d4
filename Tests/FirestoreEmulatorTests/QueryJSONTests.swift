import EmulatorCore
import Testing

@testable import FirestoreEmulator

@Suite struct QueryJSONTests {
    typealias F = QueryFixture

    /// The message of the INVALID_ARGUMENT (or other) error decoding `text` throws.
    func error(_ text: String, status: GoogleStatus = .invalidArgument) throws -> String? {
        do {
            _ = try F.query(json: text)
            return nil
        } catch let error as FirestoreError {
            #expect(error.status == status)
            return error.message
        }
    }

    @Test func decodesAFullQuery() throws {
        let query = try F.query(json: """
            {"select": {"fields": [{"fieldPath": "a"}, {"fieldPath": "`b.c`.d"}]},
             "from": [{"collectionId": "rooms", "allDescendants": true}],
             "where": {"compositeFilter": {"op": "AND", "filters": [
                {"fieldFilter": {"field": {"fieldPath": "age"}, "op": "GREATER_THAN", "value": {"integerValue": "3"}}},
                {"unaryFilter": {"op": "IS_NOT_NULL", "field": {"fieldPath": "name"}}},
                {"compositeFilter": {"op": "OR", "filters": [
                    {"fieldFilter": {"field": {"fieldPath": "__name__"}, "op": "IN",
                     "value": {"arrayValue": {"values": [{"referenceValue": "projects/p/databases/(default)/documents/rooms/a"}]}}}}]}}]}},
             "orderBy": [{"field": {"fieldPath": "age"}, "direction": "DESCENDING"}, {"field": {"fieldPath": "name"}}],
             "startAt": {"values": [{"integerValue": "9"}], "before": true},
             "end_at": {"values": [{"integerValue": "4"}]},
             "offset": 2, "limit": {"value": 10}}
            """)
        #expect(query.collectionID == "rooms")
        #expect(query.allDescendants)
        #expect(query.projection == [F.field("a"), FieldPath(segments: ["b.c", "d"])])
        #expect(query.orderBy == [QueryOrder(field: F.field("age"), descending: true), QueryOrder(field: F.field("name"))])
        #expect(query.startAt?.values == [.integer(9)])
        #expect(query.startAt?.before == true)
        #expect(query.endAt?.before == false)
        #expect(query.offset == 2)
        #expect(query.limit == 10)
        guard case .composite(.and, let filters)? = query.filter, filters.count == 3,
            case .field(let field, .greaterThan, .integer(3)) = filters[0], field == F.field("age"),
            case .unary(_, .isNotNull) = filters[1], case .composite(.or, let inner) = filters[2],
            case .field(.documentName, .in, _) = inner.first
        else {
            Issue.record("unexpected filter \(String(describing: query.filter))")
            return
        }
    }

    @Test func acceptsProtoJSONVariants() throws {
        let query = try F.query(json: """
            {"from": [{"collection_id": "c"}], "order_by": [{"field": {"field_path": "a"}, "direction": 2}],
             "where": {"field_filter": {"field": {"fieldPath": "a"}, "op": 5, "value": {"nullValue": null}}},
             "limit": "7", "offset": "1", "startAt": null}
            """)
        #expect(query.orderBy == [QueryOrder(field: F.field("a"), descending: true)])
        #expect(query.limit == 7)
        #expect(query.offset == 1)
        #expect(query.startAt == nil)
        guard case .field(_, .equal, .null)? = query.filter else {
            Issue.record("unexpected filter")
            return
        }
    }

    @Test func rejectsMalformedJSON() throws {
        #expect(
            try error(#"{"from": [{"collectionId": "c"}], "xyz": 1}"#)
                == "Invalid JSON payload received. Unknown name \"xyz\" at 'structured_query': Cannot find field.")
        #expect(
            try error(#"{"from": [{"collectionId": "c"}], "where": {"fieldFilter": {"field": {"fieldPath": "a"}, "op": "LIKE", "value": {"nullValue": null}}}}"#)
                == "Invalid value at 'structured_query.where.field_filter.op' (type.googleapis.com/google.firestore.v1.StructuredQuery.FieldFilter.Operator), \"LIKE\"")
        #expect(
            try error(#"{"from": [{"collectionId": "c"}], "limit": "ten"}"#)
                == "Invalid value at 'structured_query.limit' (TYPE_INT32), \"ten\"")
        #expect(
            try error(#"{"from": [{"collectionId": "c"}], "offset": 4294967296}"#)
                == "Invalid value at 'structured_query.offset' (TYPE_INT32), 4294967296")
        #expect(
            try error(#"{"from": [{"collectionId": "c"}], "orderBy": [{"field": {"fieldPath": "a", "x": 1}}]}"#)
                == "Invalid JSON payload received. Unknown name \"x\" at 'structured_query.order_by[0].field': Cannot find field.")
        #expect(
            try error(#"{"from": [{"collectionId": "c"}], "where": {"fieldFilter": {"field": {"fieldPath": "a"}, "op": "EQUAL", "value": {"integerValue": "1"}}, "unaryFilter": {"op": "IS_NAN", "field": {"fieldPath": "a"}}}}"#)
                == "Invalid JSON payload received. Oneof field 'filter_type' is already set. Cannot set 'unaryFilter'")
        #expect(
            try error(#"{"from": [{"collectionId": "c"}], "orderBy": [{"field": {"fieldPath": "a..b"}}]}"#)
                == "Invalid property path \"a..b\".")
        #expect(try error(#"{"from": [{"collectionId": "c"}], "select": {"fields": [{"fieldPath": "0foo"}]}}"#) == "Invalid property path \"0foo\".")
        #expect(try error(#"{"from": [{"collectionId": "c"}], "findNearest": {}}"#) == "FindNearest.limit must be a positive integer of no more than 1000")
    }

    @Test func rejectsBadSelectors() throws {
        #expect(
            try error(#"{"from": [{"collectionId": "a"}, {"collectionId": "b"}]}"#)
                == "StructuredQuery.from cannot have more than one collection selector.")
        #expect(try error(#"{"from": [{"collectionId": "__x__"}]}"#) == "Resource id \"__x__\" is invalid because it is reserved.")
        #expect(try error(#"{}"#) == "A query must select a collection: from[0].collection_id is empty.")
        #expect(try error(#"{"from": [{"allDescendants": true}]}"#) == nil)
    }

    @Test func rejectsBadListOperands() throws {
        func filter(_ op: String, _ value: String) -> String {
            #"{"from": [{"collectionId": "c"}], "where": {"fieldFilter": {"field": {"fieldPath": "a"}, "op": "\#(op)", "value": \#(value)}}}"#
        }
        #expect(try error(filter("IN", #"{"integerValue": "1"}"#)) == "'IN' requires an ArrayValue.")
        #expect(try error(filter("NOT_IN", #"{"arrayValue": {}}"#)) == "'NOT_IN' requires an non-empty ArrayValue.")
        let values = (0..<31).map { #"{"integerValue": "\#($0)"}"# }.joined(separator: ",")
        let eleven = (0..<11).map { #"{"integerValue": "\#($0)"}"# }.joined(separator: ",")
        #expect(try error(filter("ARRAY_CONTAINS_ANY", #"{"arrayValue": {"values": [\#(values)]}}"#)) == "'ARRAY_CONTAINS_ANY' supports up to 30 comparison values.")
        #expect(try error(filter("NOT_IN", #"{"arrayValue": {"values": [\#(eleven)]}}"#)) == "'NOT_IN' supports up to 10 comparison values.")
        #expect(try error(filter("IN", #"{"arrayValue": {"values": [\#(eleven)]}}"#)) == nil)
    }

    @Test func rejectsFilterCombinationsProductionRejects() {
        let a = QueryFilter.field(F.field("a"), .notEqual, .integer(1))
        let b = QueryFilter.field(F.field("b"), .notIn, .array([.integer(1)]))
        let c = QueryFilter.field(F.field("c"), .in, .array([.integer(1), .integer(2)]))
        let d = QueryFilter.field(F.field("d"), .arrayContains, .integer(1))
        let e = QueryFilter.field(F.field("e"), .arrayContainsAny, .array([.integer(1)]))
        let many = QueryFilter.field(F.field("f"), .in, .array((0..<6).map { .integer($0) }))
        func message(_ filter: QueryFilter) -> String? {
            do {
                try F.query(filter).validate()
                return nil
            } catch {
                return error.message
            }
        }
        let negations = "Only a single 'NOT_EQUAL', 'NOT_IN', 'IS_NOT_NAN', or 'IS_NOT_NULL' filter allowed per query."
        #expect(message(.composite(.and, [a, b])) == negations)
        #expect(message(.composite(.or, [a, .unary(F.field("x"), .isNotNull)])) == negations)
        #expect(message(.composite(.and, [b, c])) == "'NOT_IN' cannot be used in the same query with 'IN', 'ARRAY_CONTAINS_ANY' or 'OR'.")
        #expect(message(.composite(.or, [b, d])) == "'NOT_IN' cannot be used in the same query with 'IN', 'ARRAY_CONTAINS_ANY' or 'OR'.")
        #expect(message(.composite(.and, [b, .composite(.or, [d])])) == nil)
        #expect(message(.composite(.and, [d, e])) == "A maximum of 1 'ARRAY_CONTAINS' filter is allowed per disjunction.")
        #expect(message(.composite(.or, [d, e])) == nil)
        #expect(message(.composite(.and, [many, many])) == "Too many disjunctions after normalization. Result had 31 disjunctions which is more than the maximum of 30")
        #expect(message(.composite(.and, [many, c])) == nil)
        #expect(message(.composite(.or, [])) == "Composite filter must have at least one sub-filter.")
    }

    @Test func rejectsBadNameOperands() {
        func message(_ filter: QueryFilter) -> String? {
            do {
                try F.query(filter).validate()
                return nil
            } catch {
                return error.message
            }
        }
        #expect(message(.field(.documentName, .equal, .string("a"))) == "__key__ filter value must be a Key")
        #expect(message(.field(.documentName, .in, .array([F.reference("c/a"), .string("b")]))) == "__key__ filter value must be a Key")
        #expect(message(.unary(.documentName, .isNull)) == "__key__ filter value must be a Key")
        #expect(message(.field(.documentName, .arrayContains, F.reference("c/a"))) == "the name __key__ is reserved")
        let collection = F.database.documentsRoot + "/c"
        #expect(message(.field(.documentName, .equal, .reference(collection))) == "Resource name \"\(collection)\" lacks \"/\" at index \(collection.count).")
        #expect(message(.field(.documentName, .greaterThanOrEqual, F.reference("c/__id-9223372036854775808__"))) == nil)
        #expect(message(.field(.documentName, .equal, F.reference("other/x"))) == nil)
    }

    @Test func rejectsBadOrdersAndCursors() throws {
        #expect(
            try error(#"{"from": [{"collectionId": "c"}], "orderBy": [{"field": {"fieldPath": "a"}}, {"field": {"fieldPath": "a"}}]}"#)
                == "order by clause cannot contain duplicate fields a")
        #expect(
            try error(#"{"from": [{"collectionId": "c"}], "orderBy": [{"field": {"fieldPath": "__name__"}}, {"field": {"fieldPath": "a"}}]}"#)
                == "Order by clause cannot contain more fields after the key a")
        #expect(
            try error(#"{"from": [{"collectionId": "c"}], "where": {"fieldFilter": {"field": {"fieldPath": "b"}, "op": "GREATER_THAN", "value": {"integerValue": "1"}}}, "orderBy": [{"field": {"fieldPath": "__name__"}}]}"#)
                == "Order by clause cannot contain more fields after the key b")
        #expect(
            try error(#"{"from": [{"collectionId": "c"}], "orderBy": [{"field": {"fieldPath": "a"}}], "startAt": {"values": [{"integerValue": "1"}, {"referenceValue": "projects/p/databases/(default)/documents/c/a"}]}}"#)
                == "Cursor has too many values.")
        #expect(
            try error(#"{"from": [{"collectionId": "c"}], "orderBy": [{"field": {"fieldPath": "__name__"}}], "startAt": {"values": [{"stringValue": "a"}]}}"#)
                == "Cursor __key__ value is not a document reference.")
        #expect(
            try error(#"{"from": [{"collectionId": "c"}], "orderBy": [{"field": {"fieldPath": "__name__"}}], "endAt": {"values": [{"referenceValue": "projects/p/databases/(default)/documents/c"}]}}"#)
                == "Document parent name \"projects/p/databases/(default)/documents/c\" lacks \"/\" at index 42.")
        #expect(
            try error(#"{"from": [{"collectionId": "c"}], "orderBy": [{"field": {"fieldPath": "__name__"}}], "endAt": {"values": [{"referenceValue": "projects/p/databases/(default)/documents/other/x"}]}}"#)
                == nil)
        #expect(try error(#"{"from": [{"collectionId": "c"}], "offset": -1}"#) == "offset is negative")
        #expect(try error(#"{"from": [{"collectionId": "c"}], "limit": -1}"#) == "limit is negative")
    }
}
