import EmulatorCore
import Testing

@testable import FirestoreEmulator

/// Runs thousands of random queries over random documents and compares `StructuredQuery.run` with a
/// deliberately naive evaluation written here: every filter spelled out on full values (names built as
/// reference strings), a full sort, cursors by linear scan, then slicing.
@Suite struct QueryRandomizedTests {
    typealias F = QueryFixture

    static let ids = ["a", "b", "B", "aa", "é", "__id2__", "__id10__", "z", "m1", "m2", "0", "_"]
    static let fieldNames = ["a", "b", "m.x"]
    static let pool: [FirestoreValue] = [
        .null, .boolean(false), .boolean(true), .integer(-1), .integer(0), .integer(1), .integer(2), .integer(.max),
        .double(1.0), .double(1.5), .double(-0.0), .double(.nan), .double(.infinity), .double(-.infinity),
        .string(""), .string("a"), .string("b"), .timestamp(seconds: 5, nanos: 1),
        .array([]), .array([.integer(1)]), .array([.integer(1), .string("a")]), .array([.null]), .array([.double(.nan)]),
        .map(["x": .integer(1)]), .bytes([1]), F.reference("c/a"), .geoPoint(latitude: 1, longitude: 2),
    ]

    @Test func runAgreesWithANaiveEvaluation() {
        var random = SplitMix64(seed: 0x5EED)
        var mismatches = 0
        var nonEmpty = 0
        for index in 0..<5_000 {
            let documents = Self.documents(using: &random)
            let query = Self.query(over: documents, using: &random)
            let inNameOrder = Bool.random(using: &random)
            let candidates = inNameOrder ? documents.sorted { $0.path < $1.path } : documents.shuffled(using: &random)
            let actual = query.run(over: candidates, in: F.database, candidatesInOrder: inNameOrder && query.normalizedOrder == [QueryOrder(field: .documentName)])
            let expected = Naive(query: query).run(documents)
            if !actual.isEmpty { nonEmpty += 1 }
            let same = actual.count == expected.count
                && zip(actual, expected).allSatisfy {
                    $0.path == $1.path && FirestoreValue.compare(.map($0.fields), .map($1.fields)) == 0
                }
            if !same {
                mismatches += 1
                Issue.record("case \(index): \(query)\nexpected \(expected.map(\.path.description))\nactual   \(actual.map(\.path.description))")
                if mismatches > 5 { return }
            }
        }
        // The generator must exercise the engine: most cases return something.
        #expect(nonEmpty > 1_200)
    }

    /// The same through a store whose queries use field indexes from the first document on (so every plan
    /// is exercised), the documents changing between queries, so the indexes are kept current by writes
    /// (inserts, updates, deletes) rather than built once.
    @Test func indexedPlansAgreeWithANaiveEvaluationAsDocumentsChange() throws {
        let store = try FirestoreStore(clock: SystemClock(), indexThreshold: 0)
        var random = SplitMix64(seed: 0x1DE5)
        var stored = Set<DocumentPath>()
        var mismatches = 0
        var nonEmpty = 0
        var countedOnIndex = 0
        var totaledOnIndex = 0
        for round in 0..<1_500 {
            let documents = Self.documents(using: &random)
            var writes = documents.map { Write(path: $0.path, operation: .update(fields: $0.fields)) }
            writes += stored.subtracting(documents.map(\.path)).map { Write(path: $0, operation: .delete) }
            if !writes.isEmpty { _ = try store.commit(F.database, writes: writes) { _, _, _ in } }
            stored = Set(documents.map(\.path))
            for _ in 0..<3 {
                var query = Self.query(over: documents, using: &random)
                // A third are collection group queries: every collection named `c` (`c` and `p/q/c`).
                query.allDescendants = Int.random(in: 0..<3, using: &random) == 0
                // Random sums, averages and counts of the matches: on an index where one serves, else over them.
                let aggregations = (0..<Int.random(in: 1...3, using: &random)).map { position in
                    let field = Self.fieldNames.map(F.field).randomElement(using: &random)!
                    let kinds: [Aggregation.Kind] = [.count(upTo: nil), .sum(field), .average(field)]
                    return Aggregation(alias: "f\(position)", kind: kinds.randomElement(using: &random)!)
                }
                let ((actual, counted, totaled, evaluated), _) = try store.read(F.database) {
                    (view: inout DatabaseView) throws(FirestoreError) -> ([Document], Int?, [String: FirestoreValue]?, [String: FirestoreValue]) in
                    let results = view.run(query)
                    return (results, view.indexedCount(of: query), view.indexedAggregates(aggregations, of: query), Aggregation.evaluate(aggregations, over: results))
                }
                if let totaled {
                    totaledOnIndex += 1
                    #expect(FirestoreValue.compare(.map(totaled), .map(evaluated)) == 0, "round \(round): \(aggregations) of \(query)")
                }
                // The store answers from the queried collection only (the generator puts some elsewhere).
                let collection = query.parent.appending(query.collectionID)
                let expected = Naive(query: query).run(documents.filter { query.allDescendants || $0.path.parent == collection })
                if !actual.isEmpty { nonEmpty += 1 }
                if counted != nil { countedOnIndex += 1 }
                let same = actual.count == expected.count && (counted ?? expected.count) == expected.count
                    && zip(actual, expected).allSatisfy {
                        $0.path == $1.path && FirestoreValue.compare(.map($0.fields), .map($1.fields)) == 0
                    }
                if !same {
                    mismatches += 1
                    Issue.record("counted \(counted.map(String.init) ?? "-"), round \(round): \(query)\nexpected \(expected.map(\.path.description))\nactual   \(actual.map(\.path.description))")
                    if mismatches > 5 { return }
                }
            }
        }
        #expect(nonEmpty > 1_000)
        #expect(countedOnIndex > 50, "counts on an index: \(countedOnIndex)")
        #expect(totaledOnIndex > 50, "aggregations on an index: \(totaledOnIndex)")
        // The plans used the indexes: single-field ones for each field queried, composite ones for equalities
        // with orders, and writes kept them since.
        let (indexed, _) = try store.read(F.database) { (view: inout DatabaseView) throws(FirestoreError) -> Set<String> in
            Set(view.state.collections[DocumentPath(segments: ["c"])]?.fieldIndexes.keys.map { key in
                key.fields.map { "\($0.path)\($0.elements ? "[]" : "")" }.joined(separator: ",")
            } ?? [])
        }
        #expect(indexed.isSuperset(of: ["a", "b", "m.x", "a[]", "b[]", "m.x[]"]), "\(indexed.sorted())")
        #expect(indexed.filter { $0.contains(",") }.count > 10, "\(indexed.sorted())")
    }

    // MARK: - Random inputs

    static func documents(using random: inout SplitMix64) -> [Document] {
        var documents: [Document] = []
        for id in ids where Int.random(in: 0..<10, using: &random) < 8 {
            var fields: [String: FirestoreValue] = [:]
            for name in ["a", "b"] where Bool.random(using: &random) || Bool.random(using: &random) {
                fields[name] = pool.randomElement(using: &random)!
            }
            switch Int.random(in: 0..<4, using: &random) {
            case 0: fields["m"] = .map(["x": pool.randomElement(using: &random)!])
            case 1: fields["m"] = pool.randomElement(using: &random)!
            default: break
            }
            let parent = Int.random(in: 0..<5, using: &random) == 0 ? "p/q/c" : "c"
            documents.append(F.document("\(parent)/\(id)", fields))
        }
        return documents
    }

    static func query(over documents: [Document], using random: inout SplitMix64) -> StructuredQuery {
        var query = F.query()
        if Int.random(in: 0..<4, using: &random) > 0 { query.filter = filter(depth: 0, using: &random) }
        var fields = (fieldNames.map(F.field) + [.documentName]).shuffled(using: &random)
        for _ in 0..<Int.random(in: 0...2, using: &random) {
            query.orderBy.append(QueryOrder(field: fields.removeLast(), descending: Bool.random(using: &random)))
        }
        let order = query.normalizedOrder
        if Bool.random(using: &random) { query.startAt = cursor(order, documents, using: &random) }
        if Bool.random(using: &random) { query.endAt = cursor(order, documents, using: &random) }
        if Bool.random(using: &random) { query.offset = Int.random(in: 0...3, using: &random) }
        if Bool.random(using: &random) { query.limit = Int.random(in: 0...5, using: &random) }
        if Int.random(in: 0..<5, using: &random) == 0 {
            query.projection = Array(fieldNames.map(F.field).shuffled(using: &random).prefix(Int.random(in: 0...2, using: &random)))
        }
        return query
    }

    static func filter(depth: Int, using random: inout SplitMix64) -> QueryFilter {
        let roll = Int.random(in: 0..<10, using: &random)
        if roll < 2, depth < 2 {
            let filters = (0..<Int.random(in: 1...3, using: &random)).map { _ in filter(depth: depth + 1, using: &random) }
            return .composite(Bool.random(using: &random) ? .and : .or, filters)
        }
        if roll < 3 {
            return .unary(F.field(fieldNames.randomElement(using: &random)!), UnaryOperator.allCases.randomElement(using: &random)!)
        }
        let op = FieldOperator.allCases.randomElement(using: &random)!
        if roll < 5 {
            let reference = { (random: inout SplitMix64) in F.reference("c/" + ids.randomElement(using: &random)!) }
            switch op {
            case .in, .notIn:
                return .field(.documentName, op, .array((0..<Int.random(in: 1...3, using: &random)).map { _ in reference(&random) }))
            case .arrayContains, .arrayContainsAny:
                break
            default:
                return .field(.documentName, op, reference(&random))
            }
        }
        let field = F.field(fieldNames.randomElement(using: &random)!)
        switch op {
        case .in, .notIn, .arrayContainsAny:
            return .field(field, op, .array((0..<Int.random(in: 1...3, using: &random)).map { _ in pool.randomElement(using: &random)! }))
        default:
            return .field(field, op, pool.randomElement(using: &random)!)
        }
    }

    /// A cursor at a random document's position (ties likely) or at random values, for a prefix of `order`.
    static func cursor(_ order: [QueryOrder], _ documents: [Document], using random: inout SplitMix64) -> QueryCursor {
        let count = Int.random(in: 0...order.count, using: &random)
        let source = documents.randomElement(using: &random)
        let values = order.prefix(count).map { order -> FirestoreValue in
            if order.field == .documentName {
                return F.reference("c/" + ids.randomElement(using: &random)!)
            }
            if let source, Int.random(in: 0..<3, using: &random) > 0,
                let value = FirestoreValue.value(at: order.field, in: source.fields)
            {
                return value
            }
            return pool.randomElement(using: &random)!
        }
        return QueryCursor(values: values, before: Bool.random(using: &random))
    }
}

/// The reference evaluation: obviously correct, slow, and independent of the engine's plan.
private struct Naive {
    let query: StructuredQuery
    let database = QueryFixture.database

    func run(_ documents: [Document]) -> [Document] {
        let order = normalizedOrder()
        var results = documents.filter { document in
            order.allSatisfy { value(document, $0.field) != nil } && (query.filter.map { matches($0, document) } ?? true)
        }
        results.sort { compare($0, $1, order) < 0 }
        if let start = query.startAt {
            results = results.filter { document in
                let result = compare(document, start.values, order)
                return start.before ? result >= 0 : result > 0
            }
        }
        if let end = query.endAt {
            results = results.filter { document in
                let result = compare(document, end.values, order)
                return end.before ? result < 0 : result <= 0
            }
        }
        results = Array(results.dropFirst(query.offset))
        if let limit = query.limit { results = Array(results.prefix(limit)) }
        guard let projection = query.projection else { return results }
        return results.map { document in
            var projected = document
            projected.fields = [:]
            for path in projection {
                guard let value = value(document, path) else { continue }
                projected.fields = set(value, at: path.segments, in: projected.fields)
            }
            return projected
        }
    }

    func normalizedOrder() -> [QueryOrder] {
        var inequalities: [FieldPath] = []
        func collect(_ filter: QueryFilter) {
            switch filter {
            case .field(let field, let op, _):
                if [.lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .notEqual, .notIn].contains(op) {
                    inequalities.append(field)
                }
            case .unary(let field, let op):
                if op == .isNotNull || op == .isNotNaN { inequalities.append(field) }
            case .composite(_, let filters):
                filters.forEach(collect)
            }
        }
        if let filter = query.filter { collect(filter) }
        var order = query.orderBy
        let descending = order.last?.descending ?? false
        for field in Set(inequalities).sorted(by: { $0.description.utf8.lexicographicallyPrecedes($1.description.utf8) })
        where field != .documentName && !order.contains(where: { $0.field == field }) {
            order.append(QueryOrder(field: field, descending: descending))
        }
        if !order.contains(where: { $0.field == .documentName }) {
            order.append(QueryOrder(field: .documentName, descending: descending))
        }
        return order
    }

    func value(_ document: Document, _ field: FieldPath) -> FirestoreValue? {
        if field == .documentName { return .reference(database.documentsRoot + "/" + document.path.segments.joined(separator: "/")) }
        var current: [String: FirestoreValue]? = document.fields
        var found: FirestoreValue?
        for segment in field.segments {
            guard let map = current, let next = map[segment] else { return nil }
            found = next
            if case .map(let inner) = next { current = inner } else { current = nil }
        }
        return found
    }

    func matches(_ filter: QueryFilter, _ document: Document) -> Bool {
        switch filter {
        case .composite(.and, let filters): return filters.allSatisfy { matches($0, document) }
        case .composite(.or, let filters): return filters.contains { matches($0, document) }
        case .unary(let field, let op):
            guard let value = value(document, field) else { return false }
            let isNull = value.typeOrder == 0
            switch op {
            case .isNaN: return value.isNaN
            case .isNull: return isNull
            case .isNotNaN: return !isNull && !value.isNaN
            case .isNotNull: return !isNull
            }
        case .field(let field, let op, let operand):
            guard let value = value(document, field) else { return false }
            let isNull = value.typeOrder == 0
            let sameType = value.typeOrder == operand.typeOrder
            let order = FirestoreValue.compare(value, operand)
            let list: [FirestoreValue]
            if case .array(let values) = operand { list = values } else { list = [] }
            let elements: [FirestoreValue]
            if case .array(let values) = value { elements = values } else { elements = [] }
            let isArray = value.typeOrder == 9
            switch op {
            case .lessThan: return sameType && order < 0
            case .lessThanOrEqual: return sameType && order <= 0
            case .greaterThan: return sameType && order > 0
            case .greaterThanOrEqual: return sameType && order >= 0
            case .equal: return value == operand
            case .notEqual: return !isNull && !(value == operand)
            case .arrayContains: return isArray && elements.contains { $0 == operand }
            case .arrayContainsAny: return isArray && elements.contains { element in list.contains { $0 == element } }
            case .in: return list.contains { $0 == value }
            case .notIn: return !isNull && !list.contains { $0.typeOrder == 0 } && !list.contains { $0 == value }
            }
        }
    }

    func compare(_ a: Document, _ b: Document, _ order: [QueryOrder]) -> Int {
        compare(a, order.map { value(b, $0.field)! }, order)
    }

    func compare(_ document: Document, _ values: [FirestoreValue], _ order: [QueryOrder]) -> Int {
        for (value, order) in zip(values, order) {
            let result = FirestoreValue.compare(self.value(document, order.field)!, value)
            if result != 0 { return order.descending ? -result : result }
        }
        return 0
    }

    func set(_ value: FirestoreValue, at path: [String], in fields: [String: FirestoreValue]) -> [String: FirestoreValue] {
        var fields = fields
        if path.count == 1 {
            fields[path[0]] = value
        } else {
            var inner: [String: FirestoreValue] = [:]
            if case .map(let existing)? = fields[path[0]] { inner = existing }
            fields[path[0]] = .map(set(value, at: Array(path.dropFirst()), in: inner))
        }
        return fields
    }
}
