/// A compiled rule expression: names resolved, methods chosen and regular expressions built, so that
/// evaluation is a walk over this tree.
indirect enum RuleExpression: Sendable {
    /// A literal null, boolean, number or string.
    case literal(DatabaseRuleValue)
    /// A predefined variable or a `$wildcard`.
    case variable(RuleVariable)
    /// `receiver.name`: a member of `auth`-like JSON, `query`'s fields, or a string's `length`.
    case member(RuleExpression, String)
    /// `receiver[key]`.
    case index(RuleExpression, RuleExpression)
    /// A `RuleDataSnapshot` method call.
    case snapshotMethod(RuleExpression, SnapshotMethod, [RuleExpression])
    /// A string method call (other than `matches`).
    case stringMethod(RuleExpression, StringMethod, [RuleExpression])
    /// `receiver.matches(/regex/)`.
    case matches(RuleExpression, RuleRegex)
    /// `[a, b]`: only as `hasChildren`'s argument.
    case list([RuleExpression])
    /// `!operand`.
    case not(RuleExpression)
    /// `-operand`.
    case negate(RuleExpression)
    /// An arithmetic, comparison or equality operator.
    case binary(BinaryOperator, RuleExpression, RuleExpression)
    /// `lhs && rhs`, left to right, short-circuiting.
    case and(RuleExpression, RuleExpression)
    /// `lhs || rhs`, left to right, short-circuiting.
    case or(RuleExpression, RuleExpression)
    /// `condition ? then : otherwise`.
    case conditional(RuleExpression, RuleExpression, RuleExpression)
}

/// The variables a rule can name.
enum RuleVariable: Sendable {
    case auth, root, data, newData, now, query
    /// A `$name` from the rule's path: the key at this index of the path.
    case wildcard(depth: Int)
}

/// `RuleDataSnapshot` methods.
enum SnapshotMethod: String, Sendable, CaseIterable {
    case val, child, parent, hasChild, hasChildren, exists, getPriority, isNumber, isString, isBoolean

    /// How many arguments the method takes.
    var arities: ClosedRange<Int> {
        switch self {
        case .child, .hasChild: 1...1
        case .hasChildren: 0...1
        default: 0...0
        }
    }
}

/// String methods, besides `matches`.
enum StringMethod: String, Sendable, CaseIterable {
    case contains, beginsWith, endsWith, replace, toLowerCase, toUpperCase

    /// How many arguments the method takes.
    var arity: Int {
        switch self {
        case .contains, .beginsWith, .endsWith: 1
        case .replace: 2
        case .toLowerCase, .toUpperCase: 0
        }
    }
}

/// Binary operators other than `&&` and `||`.
enum BinaryOperator: String, Sendable {
    case add = "+", subtract = "-", multiply = "*", divide = "/", remainder = "%"
    case less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    case equal = "==", notEqual = "!="
}
