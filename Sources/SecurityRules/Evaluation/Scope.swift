/// The names visible while evaluating an expression: locals (parameters and `let`s) over wildcard bindings
/// over the request's globals. Small and copied by value; lookups scan from the innermost name.
struct Scope: Sendable {
    private var names: [String] = []
    /// Each name's value, or the error evaluating its `let` gave (raised only where the name is used: `let`s
    /// are lazy, as the official engine evaluates them).
    private var values: [Result<RuleValue, RuleError>] = []

    /// An empty scope.
    init() {}

    /// A scope binding `pairs`.
    init(_ pairs: [(String, RuleValue)]) {
        names.reserveCapacity(pairs.count)
        values.reserveCapacity(pairs.count)
        for (name, value) in pairs { bind(name, value) }
    }

    /// Binds `name` (shadowing an outer binding of the same name).
    mutating func bind(_ name: String, _ value: RuleValue) {
        names.append(name)
        values.append(.success(value))
    }

    /// Binds `name` to what evaluating its `let` gave: a value, or an error raised where the name is used.
    mutating func bind(_ name: String, _ outcome: Result<RuleValue, RuleError>) {
        names.append(name)
        values.append(outcome)
    }

    /// Whether `name` is bound (to a value or a failed `let`).
    func contains(_ name: String) -> Bool {
        names.contains(name)
    }

    /// The innermost value bound to `name`; throws the error of a `let` that failed.
    func lookup(_ name: String) throws(RuleError) -> RuleValue? {
        var index = names.count - 1
        while index >= 0 {
            if names[index] == name { return try values[index].get() }
            index -= 1
        }
        return nil
    }
}
