/// What an expression may name: which kind of rule it is and the `$wildcards` of its path.
struct RuleScope {
    enum Kind: String {
        case read = ".read", write = ".write", validate = ".validate"
    }

    var kind: Kind
    /// `$name` → the index of the path key it captures.
    var wildcards: [String: Int]
}

/// What the compiler knows of an expression's value before it runs: enough to refuse a method a value
/// can never have, or a rule that can never be a boolean. `any` is a value only evaluation tells (`auth`'s
/// members, `val()`).
enum StaticType: Equatable {
    case boolean, number, string, null, snapshot, query, list, any

    var name: String {
        switch self {
        case .boolean: "boolean"
        case .number: "number"
        case .string: "string"
        case .null: "null"
        case .snapshot: "RuleDataSnapshot"
        case .query: "query"
        case .list: "array"
        case .any: "value"
        }
    }
}

/// A compiled expression with its static type and where it starts in the expression.
struct TypedExpression {
    var expression: RuleExpression
    var type: StaticType
    var start: Int
}
