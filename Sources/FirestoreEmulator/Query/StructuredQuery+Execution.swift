extension StructuredQuery {
    /// The orders actually applied, as production and the SDKs normalize `order_by`: the explicit orders, then
    /// every field of an inequality filter (`<`, `<=`, `>`, `>=`, `!=`, NOT_IN, IS_NOT_NULL, IS_NOT_NAN) not
    /// already ordered, in field path order, with the direction of the last explicit order (ascending if none),
    /// then `__name__` in that direction unless explicitly ordered.
    var normalizedOrder: [QueryOrder] {
        var orders = orderBy
        let descending = orderBy.last?.descending ?? false
        var implicit = Set<FieldPath>()
        filter?.collectInequalityFields(into: &implicit)
        implicit.subtract(orderBy.map(\.field))
        implicit.remove(.documentName)
        orders += implicit.sorted().map { QueryOrder(field: $0, descending: descending) }
        if !orderBy.contains(where: { $0.field == .documentName }) {
            orders.append(QueryOrder(field: .documentName, descending: descending))
        }
        return orders
    }

    /// Whether `document` (of `database`) satisfies the filter and has every field of the normalized order;
    /// cursors, offset and limit aside. The collection is not checked: the store picks the candidates.
    func matches(_ document: Document, in database: DatabaseName) -> Bool {
        QueryPlan(self, in: database).matches(document)
    }

    /// Whether `a` sorts before `b` under the normalized order (a missing ordered field sorts first).
    func precedes(_ a: Document, _ b: Document) -> Bool {
        Self.precedes(a, b, along: normalizedOrder)
    }

    /// Whether `a` sorts before `b` under `order` (a normalized order).
    static func precedes(_ a: Document, _ b: Document, along order: [QueryOrder]) -> Bool {
        let result = QueryPlan.compare(along: order, count: order.count) {
            QueryPlan.Key.compare(QueryPlan.Key(of: a, at: order[$0].field), QueryPlan.Key(of: b, at: order[$0].field))
        }
        return result < 0
    }

    /// Runs the query over `candidates` (the documents of the queried collection or collection group, in any
    /// order): filter, normalized order, cursors, offset, limit (or the vector search), then projection.
    ///
    /// When `candidatesInOrder` is true (the candidates come in the query's normalized order: name order for
    /// a query ordered by name only, a field index's order for one ordered by that field), documents stream
    /// through with no sort and the scan stops at the end cursor or once the limit is reached; otherwise a
    /// limit keeps only the best `offset + limit` documents while scanning instead of sorting every match.
    func run(over candidates: some Sequence<Document>, in database: DatabaseName, candidatesInOrder: Bool)
        -> [Document]
    {
        let plan = QueryPlan(self, in: database)
        let skipped = max(offset, 0)
        let kept = limit.map { max($0, 0) }
        let results: [Document]
        if let findNearest {
            results = findNearest.nearest(among: plan.ordered(candidates, keepingFirst: nil), in: database)
        } else if candidatesInOrder {
            results = plan.stream(candidates, skipping: skipped, keeping: kept)
        } else {
            var count: Int?
            if let kept {
                let (total, overflow) = skipped.addingReportingOverflow(kept)
                count = overflow ? .max : total
            }
            results = Array(plan.ordered(candidates, keepingFirst: count).dropFirst(skipped))
        }
        guard let projection else { return results }
        return results.map { $0.masked(by: projection) }
    }
}

extension QueryPlan {
    /// Candidates already in name order: the matches between the cursors, after `offset` of them, at most
    /// `limit`, stopping as soon as nothing more can qualify.
    fileprivate func stream(_ candidates: some Sequence<Document>, skipping offset: Int, keeping limit: Int?)
        -> [Document]
    {
        guard limit != 0 else { return [] }
        var results: [Document] = []
        var skipped = 0
        var started = start == nil
        for document in candidates {
            guard isBeforeEnd(document) else { break }
            if !started {
                guard isAfterStart(document) else { continue }
                // In name order every later candidate is past the start cursor too.
                started = true
            }
            guard matches(document) else { continue }
            if skipped < offset {
                skipped += 1
                continue
            }
            results.append(document)
            if results.count == limit { break }
        }
        return results
    }

    /// The matches between the cursors in query order, only the first `count` of them when given: candidates
    /// are buffered with their keys and, whenever twice `count` accumulate, sorted and cut back to `count`,
    /// after which a candidate that does not beat the last one kept is dropped at once.
    fileprivate func ordered(_ candidates: some Sequence<Document>, keepingFirst count: Int?) -> [Document] {
        guard count != 0 else { return [] }
        var kept: [(keys: [Key], document: Document)] = []
        var worstKept: [Key]?
        let precedes = { (a: (keys: [Key], document: Document), b: (keys: [Key], document: Document)) in
            compare(a.keys, b.keys) < 0
        }
        for document in candidates where matches(document) && isWithinBounds(document) {
            if let worstKept, compare(document, to: worstKept) >= 0 { continue }
            kept.append((keys(of: document), document))
            if let count, kept.count / 2 >= count {
                kept.sort(by: precedes)
                kept.removeLast(kept.count - count)
                worstKept = kept.last?.keys
            }
        }
        kept.sort(by: precedes)
        return kept.prefix(count ?? kept.count).map(\.document)
    }
}

extension QueryFilter {
    /// Adds the fields this filter constrains with an inequality, at any depth (inside OR too).
    fileprivate func collectInequalityFields(into fields: inout Set<FieldPath>) {
        switch self {
        case .field(let field, let op, _):
            switch op {
            case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .notEqual, .notIn: fields.insert(field)
            case .equal, .arrayContains, .in, .arrayContainsAny: break
            }
        case .unary(let field, let op):
            switch op {
            case .isNotNaN, .isNotNull: fields.insert(field)
            case .isNaN, .isNull: break
            }
        case .composite(_, let filters):
            for filter in filters { filter.collectInequalityFields(into: &fields) }
        }
    }
}
