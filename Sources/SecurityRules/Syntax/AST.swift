/// A parsed rules file (`rules_version`, `service` blocks).
public struct RulesFile: Sendable {
    /// The file it came from.
    public var fileName: String
    /// `rules_version`; `.v1` when the file does not declare one.
    public var version: RulesVersion
    /// The `service` blocks.
    public var services: [ServiceDeclaration]
    /// By expression id, the token a diagnostic about the node points at when it is not the node's first:
    /// a member's name, a binary operator (as the official compiler places its warnings). Kept beside the
    /// tree, not in it, so that expressions stay small for the parser's deep recursion.
    public var anchors: [Int: SourceLocation] = [:]
}

/// `rules_version = '1' | '2'`: version 2 lets `{name=**}` match zero segments anywhere in a path.
public enum RulesVersion: String, Sendable {
    case v1 = "1"
    case v2 = "2"
}

/// `service cloud.firestore { ... }` or `service firebase.storage { ... }`.
public struct ServiceDeclaration: Sendable {
    /// The dotted service name.
    public var name: String
    /// Functions declared directly in the service block.
    public var functions: [FunctionDeclaration]
    /// Top-level `match` blocks.
    public var matches: [MatchBlock]
    /// Where the `service` keyword is.
    public var location: SourceLocation
}

/// `match /a/{b}/{c=**} { ... }`.
public struct MatchBlock: Sendable {
    /// The path pattern, segment by segment.
    public var pattern: [PathPatternSegment]
    /// Functions declared in this block (visible here and in nested blocks).
    public var functions: [FunctionDeclaration]
    /// `allow` statements.
    public var allows: [AllowStatement]
    /// Nested `match` blocks.
    public var matches: [MatchBlock]
    /// Where the `match` keyword is.
    public var location: SourceLocation
}

/// One segment of a `match` path.
public enum PathPatternSegment: Sendable, Hashable {
    /// A fixed segment (`users`, `(default)`).
    case literal(String)
    /// `{name}`: exactly one segment, bound to `name`.
    case variable(String)
    /// `{name=**}`: the rest of the path (several segments), bound to `name` as a path.
    case recursive(String)
}

/// `allow read, write: if condition;` (the condition may be absent: `allow read;`).
public struct AllowStatement: Sendable {
    /// The methods named, as written (groups not expanded).
    public var methods: [RuleMethod]
    /// The condition; `nil` means always.
    public var condition: Expression?
    /// Where the `allow` keyword is.
    public var location: SourceLocation
}

/// The methods an `allow` can name; `read` and `write` are groups.
public enum RuleMethod: String, Sendable, Hashable, CaseIterable {
    case read, write, get, list, create, update, delete

    /// The concrete methods this one stands for (`read` → get + list; `write` → create + update + delete).
    public var concrete: [RuleMethod] {
        switch self {
        case .read: return [.get, .list]
        case .write: return [.create, .update, .delete]
        default: return [self]
        }
    }
}

/// `function name(a, b) { let x = ...; return expr; }`.
public struct FunctionDeclaration: Sendable {
    /// The name.
    public var name: String
    /// Parameter names.
    public var parameters: [String]
    /// `let` bindings, in order; each may use the parameters and earlier bindings.
    public var bindings: [(name: String, value: Expression)]
    /// The returned expression.
    public var body: Expression
    /// Where the `function` keyword is.
    public var location: SourceLocation
    /// Where the function's name is.
    public var nameLocation: SourceLocation
    /// Where each parameter's name is.
    public var parameterLocations: [SourceLocation]
}

/// An expression node: what it is, where it is, and an id unique within its ruleset (for coverage).
public struct Expression: Sendable {
    /// The node's kind and children.
    public var kind: ExpressionKind
    /// Where it starts.
    public var location: SourceLocation
    /// Unique within the compiled ruleset; the parser numbers nodes from 0.
    public var id: Int

    /// Creates a node.
    public init(_ kind: ExpressionKind, at location: SourceLocation, id: Int) {
        self.kind = kind
        self.location = location
        self.id = id
    }
}

/// The kinds of expression in the rules language.
public indirect enum ExpressionKind: Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Double)
    case string(String)
    case bytes([UInt8])
    /// `[a, b]`.
    case list([Expression])
    /// `{'k': v}`: keys are expressions that must evaluate to strings.
    case map([(key: Expression, value: Expression)])
    /// `/databases/$(db)/documents/users/$(uid)`.
    case path([PathLiteralSegment])
    /// A name: a variable, a parameter, a `let`, or a namespace (`math`, `request`...).
    case identifier(String)
    /// `a.b`.
    case member(Expression, String)
    /// `a[b]`.
    case index(Expression, Expression)
    /// `a[b:c]` (either bound may be absent).
    case slice(Expression, Expression?, Expression?)
    /// `f(x)` or `a.f(x)`: the callee is an identifier or a member expression.
    case call(Expression, [Expression])
    case unary(UnaryOperator, Expression)
    case binary(BinaryOperator, Expression, Expression)
    /// `c ? a : b`.
    case ternary(Expression, Expression, Expression)
    /// `x is string`.
    case isType(Expression, TypeName)
}

/// A segment of a path literal.
public enum PathLiteralSegment: Sendable {
    /// Literal text (`users`, `(default)`).
    case text(String)
    /// `$(expr)`: the value's string form (a path value splices its segments).
    case interpolation(Expression)
}

/// Prefix operators.
public enum UnaryOperator: String, Sendable {
    case not = "!"
    case negate = "-"
}

/// Infix operators, by precedence (loosest first, as production's table): `||`, `&&`, `== !=`, (`is`),
/// `in`, `< <= > >=`, `+ -`, `* / %`.
public enum BinaryOperator: String, Sendable {
    case or = "||"
    case and = "&&"
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case `in` = "in"
    case add = "+"
    case subtract = "-"
    case multiply = "*"
    case divide = "/"
    case remainder = "%"
}

/// The type names `is` accepts.
public enum TypeName: String, Sendable, CaseIterable {
    case bool, bytes, float, int, list, latlng, number, path, map, set, string, timestamp, duration
    /// `constraint` and `map_diff` exist in production's type system but are rarely tested.
    case mapDiff = "map_diff"
}
