extension Aggregation {
    /// The aggregation result fields, by alias, over a query's results (after its offset and limit), with
    /// production's types: count → `integerValue`; sum → `integerValue` while every summed value is an integer
    /// and the total fits in 64 bits, else `doubleValue` (IEEE: NaN and infinities propagate); avg →
    /// `doubleValue`, or `nullValue` when no result has a number there. Values that are not numbers (and
    /// missing fields) are ignored by sum and avg.
    ///
    /// As production, a request with several aggregations only considers the documents that have every
    /// field the sums and averages name (so `count()` beside `sum("x")` counts documents with `x`).
    static func evaluate(_ aggregations: [Aggregation], over results: [Document]) -> [String: FirestoreValue] {
        let named = aggregations.compactMap(\.field)
        let considered = aggregations.count > 1 && !named.isEmpty
            ? results.filter { document in named.allSatisfy { FirestoreValue.value(at: $0, in: document.fields) != nil } }
            : results
        var totals: [FieldPath: NumericTotal] = [:]
        for field in named where totals[field] == nil { totals[field] = NumericTotal(of: field, over: considered) }
        return evaluate(aggregations, count: considered.count, totals: totals)
    }

    /// The results of `aggregations` over `count` documents (those with every field a sum or an average
    /// names) whose numbers at each such field add up to `totals` of it.
    static func evaluate(_ aggregations: [Aggregation], count: Int, totals: [FieldPath: NumericTotal]) -> [String: FirestoreValue] {
        var fields: [String: FirestoreValue] = [:]
        for aggregation in aggregations {
            switch aggregation.kind {
            case .count(let upTo): fields[aggregation.alias] = .integer(upTo.map { min($0, Int64(count)) } ?? Int64(count))
            case .sum(let field): fields[aggregation.alias] = (totals[field] ?? NumericTotal()).sum
            case .average(let field): fields[aggregation.alias] = (totals[field] ?? NumericTotal()).average
            }
        }
        return fields
    }

    /// The field a sum or average reads.
    var field: FieldPath? {
        switch kind {
        case .count: return nil
        case .sum(let field), .average(let field): return field
        }
    }
}

/// The running total of one field's numbers over documents.
struct NumericTotal {
    /// The exact total while every number so far is an integer and the total fits; `nil` once it is a double.
    private var integerTotal: Int64? = 0
    /// The total once it is a double.
    private var doubleTotal = 0.0
    /// How many numbers were added.
    private var count = 0

    /// Nothing added yet.
    init() {}

    /// Totals the numbers at `field` of `documents`.
    init(of field: FieldPath, over documents: [Document]) {
        for document in documents {
            if let value = FirestoreValue.value(at: field, in: document.fields) { add(value) }
        }
    }

    /// Whether the total is exact: only integers were added, and their sum fits in 64 bits (so the order
    /// they came in does not matter).
    var isExact: Bool { integerTotal != nil }

    /// Adds `value` if it is a number.
    mutating func add(_ value: FirestoreValue) {
        switch value {
        case .integer(let value): add(integer: value)
        case .double(let value): add(double: value)
        default: break
        }
    }

    /// Adds an integer, exactly while the total stays an integer.
    private mutating func add(integer value: Int64) {
        count += 1
        guard let total = integerTotal else {
            doubleTotal += Double(value)
            return
        }
        let (sum, overflow) = total.addingReportingOverflow(value)
        if overflow {
            integerTotal = nil
            doubleTotal = Double(total) + Double(value)
        } else {
            integerTotal = sum
        }
    }

    /// Adds a double; the total is a double from then on.
    private mutating func add(double value: Double) {
        count += 1
        if let total = integerTotal {
            integerTotal = nil
            doubleTotal = Double(total)
        }
        doubleTotal += value
    }

    /// The sum: an integer while exact, else a double.
    var sum: FirestoreValue {
        integerTotal.map(FirestoreValue.integer) ?? .double(doubleTotal)
    }

    /// The mean as a double, `null` when there was no number.
    var average: FirestoreValue {
        guard count > 0 else { return .null }
        return .double((integerTotal.map(Double.init) ?? doubleTotal) / Double(count))
    }
}
