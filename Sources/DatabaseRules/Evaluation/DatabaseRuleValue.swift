import DatabaseTree
import EmulatorCore

/// A value while a rule is evaluated.
enum DatabaseRuleValue: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    /// A JSON object or array, e.g. `auth` or `auth.token`: members read with `.name` or `['name']`.
    case json(JSONValue)
    /// What `val()` returns for a node that has children: rules read children with `child()`, not `val()`.
    case children
    /// A `RuleDataSnapshot`: `root`, `data`, `newData` and what their methods return.
    case snapshot(RuleSnapshot)
    case query(RuleQuery)
    /// `['a', 'b']`, `hasChildren`' argument.
    case list([DatabaseRuleValue])

    /// A JSON value as rules see it: numbers as doubles, objects and arrays as `json`.
    init(json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .int(let value): self = .number(Double(value))
        case .double(let value): self = .number(value)
        case .string(let value): self = .string(value)
        case .array, .object: self = .json(json)
        }
    }

    /// A leaf's value.
    init(leaf: LeafValue) {
        switch leaf {
        case .bool(let value): self = .bool(value)
        case .number(let value): self = .number(value)
        case .string(let value): self = .string(value)
        }
    }

    /// The type's name in evaluation errors.
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .json(let json): json.typeName
        case .children: "object"
        case .snapshot: "RuleDataSnapshot"
        case .query: "query"
        case .list: "array"
        }
    }
}

/// A `RuleDataSnapshot`: the node at `path` of one tree (the data before the write for `root` and `data`,
/// after it for `newData`), which its methods navigate.
struct RuleSnapshot: Sendable {
    /// The whole tree the snapshot navigates.
    var tree: DataNode
    var path: DatabasePath
    /// `tree.node(at: path)`.
    var node: DataNode
}

/// Why a rule's evaluation failed (the rule then does not grant).
struct RuleEvaluationError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
