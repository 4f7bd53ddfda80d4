import SecurityRules

/// What a query's filter guarantees about every document it can return, as the rules see it when they
/// decide a list ("rules are not filters"): for each way the filter can be satisfied, the field values it
/// pins down and the other conditions it puts on fields. `a == 1` pins `a` to 1; `tags array-contains "x"`
/// pins `tags` to a list holding "x"; `a in [1, 2]` and OR composites are separate alternatives, each of
/// which must satisfy the rules. `a > 18`, `a != 3` and `a not-in [...]` narrow `a` to a range of values:
/// the rules must hold for every value in it, which `values(of:for:literals:)` samples.
struct QueryConstraints {
    /// A field's range, `!=` or `not-in` condition.
    typealias Condition = (field: FieldPath, op: FieldOperator, operand: FirestoreValue)

    /// One alternative: field values every matching document has, and the conditions (ranges, `!=`,
    /// `not-in`) every matching document's fields meet.
    struct Alternative {
        var pinned: [FieldPath: FirestoreValue] = [:]
        var conditions: [Condition] = []

        /// Both alternatives at once (an AND of them); `self`'s pinned values win.
        func merging(_ other: Alternative) -> Alternative {
            Alternative(pinned: pinned.merging(other.pinned) { first, _ in first }, conditions: conditions + other.conditions)
        }

        /// The fields narrowed by conditions and not pinned.
        var rangedFields: [FieldPath] {
            var fields: [FieldPath] = []
            for condition in conditions where pinned[condition.field] == nil && !fields.contains(condition.field) {
                fields.append(condition.field)
            }
            return fields
        }
    }

    /// The alternatives; a query without filters has one empty alternative.
    private(set) var alternatives: [Alternative]

    /// The most alternatives expanded before giving up on `in`/OR branches (then only what every branch
    /// shares is kept, which can only make the rules stricter).
    static let limit = 64

    /// The constraints of `filter`.
    init(_ filter: QueryFilter?) {
        alternatives = filter.map(Self.expand) ?? [Alternative()]
        if alternatives.isEmpty || alternatives.count > Self.limit { alternatives = [Alternative()] }
    }

    private static func expand(_ filter: QueryFilter) -> [Alternative] {
        switch filter {
        case .field(let field, .equal, let value):
            return [Alternative(pinned: [field: value])]
        case .field(let field, .arrayContains, let value):
            return [Alternative(pinned: [field: .array([value])])]
        case .field(let field, .in, .array(let values)):
            return values.map { Alternative(pinned: [field: $0]) }
        case .field(let field, .arrayContainsAny, .array(let values)):
            return values.map { Alternative(pinned: [field: .array([$0])]) }
        case .field(let field, let op, let value)
        where [.lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .notEqual, .notIn].contains(op):
            return [Alternative(conditions: [(field, op, value)])]
        case .unary(let field, .isNull):
            return [Alternative(pinned: [field: .null])]
        case .unary(let field, .isNaN):
            return [Alternative(pinned: [field: .double(.nan)])]
        case .field, .unary:
            return [Alternative()]
        case .composite(.or, let filters):
            return filters.flatMap(expand)
        case .composite(.and, let filters):
            var result = [Alternative()]
            for filter in filters {
                let branches = expand(filter)
                guard result.count * branches.count <= limit else { return [Alternative()] }
                result = result.flatMap { left in branches.map { left.merging($0) } }
            }
            return result
        }
    }

    /// The fields of an alternative's pinned values as a document's top-level fields (nested paths become
    /// nested maps). The document-name constraint is left out; see `documentID(in:)`.
    static func fields(of pinned: [FieldPath: FirestoreValue]) -> [String: FirestoreValue] {
        var fields: [String: FirestoreValue] = [:]
        for (path, value) in pinned where path != .documentName {
            FirestoreValue.set(value, at: path.segments[...], in: &fields)
        }
        return fields
    }

    /// The document id an alternative pins through `__name__ ==`, if any.
    static func documentID(in alternative: Alternative) -> String? {
        guard case .reference(let name)? = alternative.pinned[.documentName] else { return nil }
        return name.split(separator: "/").last.map(String.init)
    }

    /// Whether one of `conditions` compares a field with a double: the official engine then takes the field
    /// for a double (see `values`).
    static func hasDoubleBounds(_ conditions: [Condition]) -> Bool {
        conditions.contains { condition in
            switch condition.operand {
            case .double: return true
            case .array(let values): return values.contains { if case .double = $0 { true } else { false } }
            default: return false
            }
        }
    }

    /// Values standing for every value `field` may have under `alternative`'s conditions, given the rules'
    /// `literals`: each operand and literal, its neighbours (for a string, the string followed by U+0000 and
    /// the string without its last character), and a value of each other kind, kept when every condition
    /// on the field admits it. Numbers are the doubles next to each, and the ints around it unless a bound
    /// is a double (the official engine then takes the field for a double and fails comparing it with an
    /// int: `RulesProof.strictNumbers`). A condition that compares the field with constants changes its
    /// answer only at a constant, so it holds for every admitted value when it holds for these.
    static func values(of field: FieldPath, for alternative: Alternative, literals: [RuleValue]) -> [FirestoreValue] {
        let conditions = alternative.conditions.filter { $0.field == field }
        let doubles = hasDoubleBounds(conditions)
        var seeds: [FirestoreValue] = conditions.flatMap { condition in
            if case .array(let values) = condition.operand, condition.op == .notIn { return values }
            return [condition.operand]
        }
        // A range of timestamps: its far ends, and the instants the rules' int literals name as milliseconds
        // (`timestamp.value(0)`), with their neighbours.
        let timestamps = conditions.contains { if case .timestamp = $0.operand { return true } else { return false } }
        if timestamps {
            seeds += [.timestamp(seconds: -62_135_596_800, nanos: 0), .timestamp(seconds: 253_402_300_799, nanos: 999_999_000)]
        }
        for literal in literals {
            switch literal {
            case .int(let value) where timestamps:
                seeds.append(.integer(value))
                let (seconds, milliseconds) = value.quotientAndRemainder(dividingBy: 1000)
                let carry = milliseconds < 0 ? 1 : 0
                seeds.append(.timestamp(seconds: seconds - Int64(carry), nanos: Int32((milliseconds + Int64(carry) * 1000) * 1_000_000)))
            case .int(let value): seeds.append(.integer(value))
            case .float(let value): seeds.append(.double(value))
            case .string(let value): seeds.append(.string(value))
            default: break
            }
        }
        var candidates: [FirestoreValue] = [.boolean(false), .boolean(true), .string(""), .array([]), .map([:])]
        for seed in seeds {
            switch seed {
            case .integer(let value):
                candidates += numbers(around: Double(value), doubles: doubles)
            case .double(let value):
                candidates += numbers(around: value, doubles: doubles)
            case .string(let value):
                candidates += [seed, .string(value + "\u{0}"), .string(String(value.dropLast()))]
            case .timestamp(let seconds, let nanos):
                // Stored timestamps have microseconds: the instants one microsecond either side.
                candidates += [-1_000, 0, 1_000].map { step in
                    let total = Int64(nanos) + Int64(step)
                    let carry = total < 0 ? -1 : total >= 1_000_000_000 ? 1 : 0
                    return .timestamp(seconds: seconds + Int64(carry), nanos: Int32(total - Int64(carry) * 1_000_000_000))
                }
            default:
                candidates.append(seed)
            }
        }
        var admitted: [FirestoreValue] = []
        for candidate in candidates
        where conditions.allSatisfy({ $0.op.matches(candidate, operand: $0.operand) })
            && !admitted.contains(where: { isSame($0, candidate) })
        {
            admitted.append(candidate)
        }
        return admitted
    }

    /// Equal and of the same kind: an int and a double of one value are two candidates (`is int` tells
    /// them apart).
    private static func isSame(_ lhs: FirestoreValue, _ rhs: FirestoreValue) -> Bool {
        switch (lhs, rhs) {
        case (.integer(let a), .integer(let b)): return a == b
        case (.double(let a), .double(let b)): return a.bitPattern == b.bitPattern
        case (.integer, _), (.double, _), (_, .integer), (_, .double): return false
        default: return lhs == rhs
        }
    }

    /// `value` and its neighbours: the doubles next to it, and unless the field is taken for a double,
    /// the ints around it too (an int-bounded range admits the doubles between its ints: `f > 17` admits
    /// 17.5).
    private static func numbers(around value: Double, doubles: Bool) -> [FirestoreValue] {
        let near = [value.nextDown, value, value.nextUp].map(FirestoreValue.double)
        guard !doubles, value.isFinite, let low = Int64(exactly: value.rounded(.down)),
            let high = Int64(exactly: value.rounded(.up)), low > .min, high < .max
        else { return near }
        return near + Set([low - 1, low, high, high + 1]).sorted().map(FirestoreValue.integer)
    }
}
