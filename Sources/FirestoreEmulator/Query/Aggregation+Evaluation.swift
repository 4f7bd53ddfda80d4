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

/// The total of one field's numbers over documents, added up as Google's official emulator adds them
/// (asked side by side: conformance/differential/aggregations.py): the integers exactly, the doubles with
/// Kahan's compensated summation in the order they come, then the integers' total as one more double. A
/// total of integers alone therefore does not depend on the documents' order; one with doubles can, in
/// its last bits.
struct NumericTotal {
    /// The integers' exact sum (2^64 of them cannot overflow it).
    private var integers: Int128 = 0
    /// The doubles' compensated sum, the compensation, and their plain sum (which stands when the
    /// compensated one is NaN from infinities).
    private var doubles = (sum: 0.0, compensation: 0.0, plain: 0.0)
    /// Whether a double was added (the sum is then a double).
    private var sawDouble = false
    /// How many numbers were added.
    private var count = 0

    /// Nothing added yet.
    init() {}

    /// Totals the numbers at `field` of `documents`, in their order.
    init(of field: FieldPath, over documents: [Document]) {
        for document in documents {
            if let value = FirestoreValue.value(at: field, in: document.fields) { add(value) }
        }
    }

    /// Whether only integers were added: the total is then the same in any order.
    var isOrderFree: Bool { !sawDouble }

    /// Adds `value` if it is a number.
    mutating func add(_ value: FirestoreValue) {
        switch value {
        case .integer(let value):
            count += 1
            integers += Int128(value)
        case .double(let value):
            count += 1
            sawDouble = true
            Self.add(value, to: &doubles)
        default: break
        }
    }

    /// The sum: an integer while only integers were added and their sum fits in 64 bits, else a double.
    var sum: FirestoreValue {
        if !sawDouble, let exact = Int64(exactly: integers) { return .integer(exact) }
        return .double(total)
    }

    /// The mean, the sum over the count, as a double; `null` when there was no number.
    var average: FirestoreValue {
        guard count > 0 else { return .null }
        return .double(total / Double(count))
    }

    /// The sum as a double.
    private var total: Double {
        guard sawDouble else { return Double(integers) }
        var doubles = self.doubles
        Self.add(Double(integers), to: &doubles)
        return doubles.sum.isNaN && doubles.plain.isInfinite ? doubles.plain : doubles.sum
    }

    /// One step of Kahan's summation.
    private static func add(_ value: Double, to doubles: inout (sum: Double, compensation: Double, plain: Double)) {
        doubles.plain += value
        let corrected = value - doubles.compensation
        let sum = doubles.sum + corrected
        doubles.compensation = (sum - doubles.sum) - corrected
        doubles.sum = sum
    }
}
