import EmulatorCore
import Testing

@testable import FirestoreEmulator

@Suite struct QueryAggregationTests {
    typealias F = QueryFixture

    /// One aggregation's result over documents with `x` set to each of `values`.
    func result(_ kind: Aggregation.Kind, _ values: [FirestoreValue?]) -> FirestoreValue? {
        let documents = values.enumerated().map { F.document("c/d\($0.offset)", $0.element.map { ["x": $0] } ?? [:]) }
        return Aggregation.evaluate([Aggregation(alias: "r", kind: kind)], over: documents)["r"]
    }

    @Test func countsUpToTheBound() {
        #expect(result(.count(upTo: nil), [.integer(1), nil, .null]) == .integer(3))
        #expect(result(.count(upTo: 2), [.integer(1), nil, .null]) == .integer(2))
        #expect(result(.count(upTo: nil), []) == .integer(0))
    }

    /// Answers Google's official emulator gave for these values (conformance/differential/aggregations.py):
    /// integers exactly, doubles with compensated summation in the order they come (1e16 + 1 - 1e16 + 1 is
    /// 1 in that order; the official, whose order varies between runs, answered 1 or 2).
    @Test func sumsAddAsTheOfficialEmulatorAdds() {
        let x = F.field("x")
        #expect(result(.sum(x), [.double(1e16), .double(1), .double(-1e16), .double(1)]) == .double(1))
        #expect(result(.sum(x), [.double(0.1), .double(0.2), .double(0.3)]) == .double(0.6))
        #expect(result(.sum(x), [.integer(.max), .integer(.max), .integer(.min), .double(1)]) == .double(9.223372036854776e18))
        // Integers past 64 bits and back: the exact total.
        #expect(result(.sum(x), [.integer(.max), .integer(.max), .integer(.min), .integer(.min)]) == .integer(-2))
        #expect(result(.sum(x), [.double(1e308), .double(1e308)]) == .double(.infinity))
        #expect(result(.sum(x), [.double(.infinity), .double(-.infinity)])?.isNaN == true)
    }

    @Test func sumsStayIntegersWhileExact() {
        let x = F.field("x")
        guard case .integer(4_294_967_294)? = result(.sum(x), [.integer(2_147_483_647), .integer(2_147_483_647)]) else {
            Issue.record("expected an integer sum")
            return
        }
        guard case .integer(0)? = result(.sum(x), [.string("1"), nil, .null]) else {
            Issue.record("expected an integer zero")
            return
        }
        guard case .double(let overflow)? = result(.sum(x), [.integer(.max), .integer(1)]) else {
            Issue.record("expected a double after overflow")
            return
        }
        #expect(overflow == 9.223372036854775808e18)
        guard case .double(3.5)? = result(.sum(x), [.integer(1), .double(2.5), .boolean(true)]) else {
            Issue.record("expected a double sum")
            return
        }
        #expect(result(.sum(x), [.integer(1), .double(.nan)])?.isNaN == true)
        #expect(result(.sum(x), [.double(.infinity), .double(-.infinity)])?.isNaN == true)
        #expect(result(.sum(x), [.double(.infinity), .integer(1)]) == .double(.infinity))
    }

    @Test func averagesAreDoublesOrNull() {
        let x = F.field("x")
        guard case .double(1.5)? = result(.average(x), [.integer(1), .integer(2), .string("9")]) else {
            Issue.record("expected a double average")
            return
        }
        guard case .null? = result(.average(x), [.string("9"), nil]) else {
            Issue.record("expected null")
            return
        }
        #expect(result(.average(x), [.double(.nan), .integer(1)])?.isNaN == true)
    }

    @Test func decodesAggregationsWithDefaultAliases() throws {
        let json = try JSONValue.parse("""
            {"structuredQuery": {"from": [{"collectionId": "c"}]},
             "aggregations": [{"count": {"upTo": "5"}}, {"alias": "field_2", "sum": {"field": {"fieldPath": "x"}}},
                              {"avg": {"field": {"fieldPath": "y"}}}, {"count": {}}, {"alias": "n", "count": {"upTo": {"value": 3}}}]}
            """)
        let query = try AggregationQuery(json: json, parent: DocumentPath(segments: []))
        #expect(query.query.collectionID == "c")
        #expect(query.aggregations.map(\.alias) == ["field_1", "field_2", "field_3", "field_4", "n"])
        guard case .count(upTo: 5) = query.aggregations[0].kind, case .count(upTo: nil) = query.aggregations[3].kind,
            case .count(upTo: 3) = query.aggregations[4].kind, case .average(let y) = query.aggregations[2].kind, y == F.field("y")
        else {
            Issue.record("unexpected kinds")
            return
        }
    }

    @Test func rejectsBadAggregations() throws {
        func message(_ aggregations: String) throws -> String? {
            let json = try JSONValue.parse(#"{"structuredQuery": {"from": [{"collectionId": "c"}]}, "aggregations": \#(aggregations)}"#)
            do {
                _ = try AggregationQuery(json: json, parent: DocumentPath(segments: []))
                return nil
            } catch {
                return error.message
            }
        }
        #expect(try message(#"[{"alias": "a", "count": {}}, {"alias": "a", "count": {}}]"#) == "Aggregation alias \"a\" is used more than once.")
        #expect(try message("[]") == "A structured aggregation query must have between 1 and 5 aggregations, but it has 0.")
        #expect(try message(#"[{"count": {"upTo": 0}}]"#) == "Count up_to must be greater than zero, but it is 0.")
        #expect(try message(#"[{"count": {}, "sum": {"field": {"fieldPath": "x"}}}]"#) == "Invalid JSON payload received. Oneof field 'operator' is already set. Cannot set 'sum'")
        #expect(try message(#"[{"min": {}}]"#) == "Invalid JSON payload received. Unknown name \"min\" at 'structured_aggregation_query.aggregations[0]': Cannot find field.")
        #expect(try message(#"[{"count": {}, "alias": "x"}, {"count": {}}, {"count": {}}, {"count": {}}, {"count": {}}]"#) == nil)
    }
}
