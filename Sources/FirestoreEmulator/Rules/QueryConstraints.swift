/// What a query's filter guarantees about every document it can return, as the rules see it when they
/// decide a list ("rules are not filters"): for each way the filter can be satisfied, the field values it
/// pins down. `a == 1` pins `a` to 1; `tags array-contains "x"` pins `tags` to a list holding "x"; `a in
/// [1, 2]` and OR composites are separate alternatives, each of which must satisfy the rules.
struct QueryConstraints {
    /// One alternative: field values every matching document has.
    typealias Alternative = [FieldPath: FirestoreValue]

    /// The alternatives; a query without equality-like filters has one empty alternative.
    private(set) var alternatives: [Alternative]

    /// The most alternatives expanded before giving up on `in`/OR branches (then only what every branch
    /// shares is kept, which can only make the rules stricter).
    static let limit = 64

    /// The constraints of `filter`.
    init(_ filter: QueryFilter?) {
        alternatives = filter.map(Self.expand) ?? [[:]]
        if alternatives.isEmpty || alternatives.count > Self.limit { alternatives = [[:]] }
    }

    private static func expand(_ filter: QueryFilter) -> [Alternative] {
        switch filter {
        case .field(let field, .equal, let value):
            return [[field: value]]
        case .field(let field, .arrayContains, let value):
            return [[field: .array([value])]]
        case .field(let field, .in, .array(let values)):
            return values.map { [field: $0] }
        case .field(let field, .arrayContainsAny, .array(let values)):
            return values.map { [field: .array([$0])] }
        case .unary(let field, .isNull):
            return [[field: .null]]
        case .unary(let field, .isNaN):
            return [[field: .double(.nan)]]
        case .field, .unary:
            return [[:]]
        case .composite(.or, let filters):
            return filters.flatMap(expand)
        case .composite(.and, let filters):
            var result: [Alternative] = [[:]]
            for filter in filters {
                let branches = expand(filter)
                guard result.count * branches.count <= limit else { return [[:]] }
                result = result.flatMap { left in branches.map { left.merging($0) { first, _ in first } } }
            }
            return result
        }
    }

    /// The fields of an alternative as a document's top-level fields (nested paths become nested maps).
    /// The document-name constraint is left out; see `documentID(in:)`.
    static func fields(of alternative: Alternative) -> [String: FirestoreValue] {
        var fields: [String: FirestoreValue] = [:]
        for (path, value) in alternative where path != .documentName {
            FirestoreValue.set(value, at: path.segments[...], in: &fields)
        }
        return fields
    }

    /// The document id an alternative pins through `__name__ ==`, if any.
    static func documentID(in alternative: Alternative) -> String? {
        guard case .reference(let name)? = alternative[.documentName] else { return nil }
        return name.split(separator: "/").last.map(String.init)
    }
}
