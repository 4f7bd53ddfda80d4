/// The names visible while evaluating an expression: locals (parameters and `let`s) over wildcard bindings
/// over the request's globals. Small and copied by value; lookups scan from the innermost name.
struct Scope: Sendable {
    private var names: [String] = []
    private var values: [RuleValue] = []

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
        values.append(value)
    }

    /// The innermost value bound to `name`.
    func lookup(_ name: String) -> RuleValue? {
        var index = names.count - 1
        while index >= 0 {
            if names[index] == name { return values[index] }
            index -= 1
        }
        return nil
    }
}
