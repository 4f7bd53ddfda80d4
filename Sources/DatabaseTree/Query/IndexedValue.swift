import EmulatorCore

/// A child's value under a query index, in Firebase's order of values: `null` (missing) < `false` < `true` <
/// numbers (ascending) < strings (JavaScript string order) < nodes with children (all equal) < `max`, the
/// sentinel after everything (the end of a range without an end bound).
///
/// Priorities order the same way (no priority is `null`; only numbers and strings occur).
enum IndexedValue: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case children
    case max

    /// The value of a node: a leaf's value, `.children` for a node with children, `.null` when empty.
    init(_ node: DataNode) {
        switch node.content {
        case .leaf(let value): self.init(value)
        case .children(let children): self = children.isEmpty ? .null : .children
        }
    }

    /// A leaf's value.
    init(_ leaf: LeafValue) {
        switch leaf {
        case .bool(let value): self = .bool(value)
        case .number(let value): self = .number(value)
        case .string(let value): self = .string(value)
        }
    }

    /// A query bound's value: a JSON primitive or `null`; `nil` for arrays and objects.
    init?(bound json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .int(let value): self = .number(Double(value))
        case .double(let value): self = .number(value)
        case .string(let value): self = .string(value)
        case .array, .object: return nil
        }
    }

    /// The value's place among the kinds of values.
    private var rank: Int {
        switch self {
        case .null: return 0
        case .bool: return 1
        case .number: return 2
        case .string: return 3
        case .children: return 4
        case .max: return 5
        }
    }

    /// -1, 0 or 1 as `a` sorts before, with or after `b`.
    static func compare(_ a: IndexedValue, _ b: IndexedValue) -> Int {
        switch (a, b) {
        case let (.bool(x), .bool(y)): return x == y ? 0 : (x ? 1 : -1)
        case let (.number(x), .number(y)): return x < y ? -1 : (x > y ? 1 : 0)
        case let (.string(x), .string(y)): return KeyOrder.compareUTF16(x, y)
        default:
            let (x, y) = (a.rank, b.rank)
            return x < y ? -1 : (x > y ? 1 : 0)
        }
    }
}
