/// A compiled `.read`, `.write` or `.validate`: its expression (a literal `true`/`false` is a literal
/// expression) and its index in the rule set's coverage counters.
struct Rule: Sendable {
    /// The index of the rule's counters in `RulesCoverage`, in the order rules were compiled.
    let id: Int
    let expression: RuleExpression
}

/// How one evaluation of a rule ended.
enum RuleOutcome: Sendable, Equatable {
    /// It evaluated to `true`: a `.read`/`.write` grants, a `.validate` holds.
    case `true`
    /// It evaluated to `false`.
    case `false`
    /// Its evaluation failed (a type error, a member of null…) or gave a value that is not a boolean; the
    /// rule then acts as `false`.
    case error
}
