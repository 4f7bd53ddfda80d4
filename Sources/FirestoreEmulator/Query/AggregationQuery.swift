import EmulatorCore

/// A `StructuredAggregationQuery`: a query and the aggregations computed over its results.
struct AggregationQuery: Sendable {
    /// The most aggregations one request may ask for.
    static let maximumAggregations = 5

    /// The query whose results (after its offset and limit) are aggregated.
    var query: StructuredQuery
    /// The aggregations, each with a unique alias.
    var aggregations: [Aggregation]

    /// Checks `aggregations` as production does (one to five, unique aliases, a positive `up_to`) and names
    /// the ones without an alias (an empty one) `field_1`, `field_2`... in order, skipping names taken.
    init(query: StructuredQuery, aggregations: [Aggregation]) throws(FirestoreError) {
        guard (1...Self.maximumAggregations).contains(aggregations.count) else {
            throw FirestoreError(
                .invalidArgument,
                "A structured aggregation query must have between 1 and \(Self.maximumAggregations) aggregations, but it has \(aggregations.count).")
        }
        var taken = Set<String>()
        for aggregation in aggregations where !aggregation.alias.isEmpty {
            guard taken.insert(aggregation.alias).inserted else {
                throw FirestoreError(.invalidArgument, "Aggregation alias \"\(aggregation.alias)\" is used more than once.")
            }
        }
        var named: [Aggregation] = []
        var next = 1
        for var aggregation in aggregations {
            if case .count(let upTo?) = aggregation.kind, upTo <= 0 {
                throw FirestoreError(.invalidArgument, "Count up_to must be greater than zero, but it is \(upTo).")
            }
            if aggregation.alias.isEmpty {
                while taken.contains("field_\(next)") { next += 1 }
                aggregation.alias = "field_\(next)"
                next += 1
            }
            named.append(aggregation)
        }
        self.query = query
        self.aggregations = named
    }
}
