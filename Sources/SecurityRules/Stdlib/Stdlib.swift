/// The standard library: operators, methods of every type, and the global / namespaced functions
/// (`int()`, `math.floor()`, `timestamp.date()`, `hashing.sha256()`, ...). A table of overloads, kept apart
/// from the evaluator so each can be tested alone.
///
/// Data-access functions (`get`, `exists`, `getAfter`, `existsAfter`, `firestore.get`, `firestore.exists`)
/// and `debug` are the evaluator's, not this table's.
enum Stdlib {
    /// `lhs op rhs` for every operator but `&&` and `||` (which the evaluator short-circuits).
    static func binary(_ op: BinaryOperator, _ lhs: RuleValue, _ rhs: RuleValue) throws(RuleError) -> RuleValue {
        throw RuleError("operator \(op.rawValue) is not implemented")
    }

    /// `!value` and `-value`.
    static func unary(_ op: UnaryOperator, _ value: RuleValue) throws(RuleError) -> RuleValue {
        throw RuleError("operator \(op.rawValue) is not implemented")
    }

    /// `receiver[index]` (lists by int, maps by string key, paths by int).
    static func index(_ receiver: RuleValue, _ index: RuleValue) throws(RuleError) -> RuleValue {
        throw RuleError("indexing is not implemented")
    }

    /// `receiver[from:to]` (lists, strings, bytes?, paths); absent bounds are the ends.
    static func slice(_ receiver: RuleValue, _ from: RuleValue?, _ to: RuleValue?) throws(RuleError) -> RuleValue {
        throw RuleError("slicing is not implemented")
    }

    /// `receiver.name` when `receiver` is not a map (maps are looked up by the evaluator).
    static func property(_ receiver: RuleValue, _ name: String) throws(RuleError) -> RuleValue {
        throw RuleError("no property \(name) on \(receiver.typeName)")
    }

    /// `receiver.name(arguments)`.
    static func method(_ receiver: RuleValue, _ name: String, _ arguments: [RuleValue]) throws(RuleError) -> RuleValue {
        throw RuleError("method \(name) is not implemented")
    }

    /// A global (`namespace == nil`: `int(x)`) or namespaced (`math.abs(x)`) function; `nil` if there is
    /// no such function (the checker reports unknown functions at compile time).
    static func function(namespace: String?, _ name: String, _ arguments: [RuleValue]) throws(RuleError) -> RuleValue? {
        nil
    }

    /// The namespaces whose members are functions (`math`, `timestamp`, `duration`, `hashing`, `latlng`, `string`?).
    static let namespaces: Set<String> = ["math", "timestamp", "duration", "hashing", "latlng"]

    /// Known global and namespaced functions with their allowed argument counts, for compile-time checks.
    /// Keys are `name` or `namespace.name`.
    static let functionArities: [String: ClosedRange<Int>] = [:]
}
