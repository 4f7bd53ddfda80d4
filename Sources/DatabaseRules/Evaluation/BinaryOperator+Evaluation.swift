import EmulatorCore

extension BinaryOperator {
    /// `lhs op rhs`. Equality never fails for values (different types are unequal); arithmetic and
    /// ordering want numbers (or strings for `+` and ordering) and fail otherwise.
    func apply(_ lhs: DatabaseRuleValue, _ rhs: DatabaseRuleValue) throws(RuleEvaluationError) -> DatabaseRuleValue {
        switch self {
        case .equal: return .bool(try Self.equal(lhs, rhs))
        case .notEqual: return .bool(!(try Self.equal(lhs, rhs)))
        case .add:
            switch (lhs, rhs) {
            case (.number(let a), .number(let b)): return .number(a + b)
            case (.string(let a), .string(let b)): return .string(a + b)
            case (.string(let a), _): if let b = Self.text(rhs) { return .string(a + b) }
            case (_, .string(let b)): if let a = Self.text(lhs) { return .string(a + b) }
            default: break
            }
            throw mismatch(lhs, rhs)
        case .subtract, .multiply, .divide, .remainder:
            guard case .number(let a) = lhs, case .number(let b) = rhs else { throw mismatch(lhs, rhs) }
            switch self {
            case .subtract: return .number(a - b)
            case .multiply: return .number(a * b)
            case .divide:
                // Dividing by zero gives NaN, as the live service answers `(1/0 + '') == 'NaN'`.
                return .number(b == 0 ? .nan : a / b)
            default:
                return .number(b == 0 ? .nan : a.truncatingRemainder(dividingBy: b))
            }
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            let order: Int
            switch (lhs, rhs) {
            case (.number(let a), .number(let b)): order = a < b ? -1 : a > b ? 1 : 0
            case (.string(let a), .string(let b)): order = a.utf16.lexicographicallyPrecedes(b.utf16) ? -1 : a.utf16.elementsEqual(b.utf16) ? 0 : 1
            default: throw mismatch(lhs, rhs)
            }
            switch self {
            case .less: return .bool(order < 0)
            case .lessOrEqual: return .bool(order <= 0)
            case .greater: return .bool(order > 0)
            default: return .bool(order >= 0)
            }
        }
    }

    private func mismatch(_ lhs: DatabaseRuleValue, _ rhs: DatabaseRuleValue) -> RuleEvaluationError {
        RuleEvaluationError("'\(rawValue)' cannot take a \(lhs.typeName) and a \(rhs.typeName).")
    }

    /// A number or boolean as JavaScript would write it in a concatenation.
    private static func text(_ value: DatabaseRuleValue) -> String? {
        switch value {
        case .number(let number) where number.isNaN: "NaN"
        case .number(let number) where number.isInfinite: number < 0 ? "-Infinity" : "Infinity"
        case .number(let number): JSONValue.double(number).primitiveString
        case .bool(let bool): bool ? "true" : "false"
        default: nil
        }
    }

    /// `==`: values of the same type and content; snapshots, queries and lists cannot be compared, and
    /// `val()` of a node with children equals nothing.
    private static func equal(_ lhs: DatabaseRuleValue, _ rhs: DatabaseRuleValue) throws(RuleEvaluationError) -> Bool {
        switch (lhs, rhs) {
        case (.snapshot, _), (_, .snapshot), (.query, _), (_, .query), (.list, _), (_, .list):
            throw RuleEvaluationError("Cannot compare a \(lhs.typeName) with a \(rhs.typeName).")
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)): return a.utf16.elementsEqual(b.utf16)
        case (.json(let a), .json(let b)): return a == b
        default: return false
        }
    }
}
