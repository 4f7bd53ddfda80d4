/// The infix operators: comparison, membership and arithmetic.
///
/// Integers are signed 64-bit: `int op int` is an int, overflow of `+`, `-` and `*` is an error, `/`
/// truncates toward zero and `%` takes the dividend's sign; the one quotient beyond the range, the smallest
/// int over -1, wraps to itself (its remainder is 0), as the official engine (Java's long) answers. An int
/// meeting a float is widened to a float (rules.Integer). Floats are IEEE 754 doubles, so a float division
/// by zero gives ±∞ or NaN while an int division by zero is an error (CEL).
extension Stdlib {
    /// `<`, `<=`, `>`, `>=`: numbers across int/float, strings, bytes, timestamps and durations; NaN is
    /// unordered (every comparison false); other types, lists included, are an error (as in the official
    /// engine).
    static func compare(_ op: BinaryOperator, _ lhs: RuleValue, _ rhs: RuleValue) throws(RuleError) -> Bool {
        switch lhs.ordering(comparedTo: rhs) {
        case .incomparable: throw noOperator(op, lhs, rhs)
        case .unordered: return false
        case .less: return op == .less || op == .lessOrEqual
        case .equal: return op == .lessOrEqual || op == .greaterOrEqual
        case .greater: return op == .greater || op == .greaterOrEqual
        }
    }

    /// `element in container`: an element of a list (an identical one: `1 in [1.0]` is false) or of a set
    /// (an equal one), a key of a map (asking for anything but a string is an error).
    static func membership(_ element: RuleValue, in container: RuleValue) throws(RuleError) -> Bool {
        switch container {
        case .list(let list): return contains(list, element)
        case .set(let set): return set.contains(element)
        case .map(let map):
            guard case .string(let key) = element else { throw noOperator(.in, element, container) }
            return map[key] != nil
        default: throw noOperator(.in, element, container)
        }
    }

    /// `+`: numbers, string concatenation, timestamp/duration arithmetic. Lists do not add (the official
    /// engine fails `list + list`; `concat` joins them).
    static func add(_ lhs: RuleValue, _ rhs: RuleValue) throws(RuleError) -> RuleValue {
        switch (lhs, rhs) {
        case (.int(let a), .int(let b)):
            let sum = a.addingReportingOverflow(b)
            guard !sum.overflow else { throw integerOverflow }
            return .int(sum.partialValue)
        case (.int, .float), (.float, .int), (.float, .float):
            return .float(try floats(.add, lhs, rhs, +))
        case (.string(let a), .string(let b)): return .string(a + b)
        case (.timestamp(let time), .duration(let duration)), (.duration(let duration), .timestamp(let time)):
            return .timestamp(try time.adding(duration))
        case (.duration(let a), .duration(let b)):
            return .duration(try RuleDuration.checked(
                seconds: Int64(a.seconds) + b.seconds, nanos: Int64(a.nanos) + Int64(b.nanos)))
        default: throw noOperator(.add, lhs, rhs)
        }
    }

    /// `-`: numbers, timestamp - duration, timestamp - timestamp (a duration), duration - duration.
    static func subtract(_ lhs: RuleValue, _ rhs: RuleValue) throws(RuleError) -> RuleValue {
        switch (lhs, rhs) {
        case (.int(let a), .int(let b)):
            let difference = a.subtractingReportingOverflow(b)
            guard !difference.overflow else { throw integerOverflow }
            return .int(difference.partialValue)
        case (.int, .float), (.float, .int), (.float, .float):
            return .float(try floats(.subtract, lhs, rhs, -))
        case (.timestamp(let time), .duration(let duration)):
            return .timestamp(try time.adding(duration.negated))
        case (.timestamp(let a), .timestamp(let b)):
            return .duration(try RuleDuration.checked(
                seconds: a.seconds - b.seconds, nanos: Int64(a.nanos) - Int64(b.nanos)))
        case (.duration(let a), .duration(let b)):
            return .duration(try RuleDuration.checked(
                seconds: a.seconds - b.seconds, nanos: Int64(a.nanos) - Int64(b.nanos)))
        default: throw noOperator(.subtract, lhs, rhs)
        }
    }

    /// `*`, `/`, `%` on numbers.
    static func multiplicative(_ op: BinaryOperator, _ lhs: RuleValue, _ rhs: RuleValue) throws(RuleError) -> RuleValue {
        guard case .int(let a) = lhs, case .int(let b) = rhs else {
            switch op {
            case .multiply: return .float(try floats(op, lhs, rhs, *))
            case .divide: return .float(try floats(op, lhs, rhs, /))
            default: return .float(try floats(op, lhs, rhs) { $0.truncatingRemainder(dividingBy: $1) })
            }
        }
        let result: (partialValue: Int64, overflow: Bool)
        switch op {
        case .multiply:
            result = a.multipliedReportingOverflow(by: b)
        case .divide:
            guard b != 0 else { throw RuleError(.outOfRange, "division by zero") }
            return .int(a.dividedReportingOverflow(by: b).partialValue)
        default:
            guard b != 0 else { throw RuleError(.outOfRange, "modulo by zero") }
            return .int(a.remainderReportingOverflow(dividingBy: b).partialValue)
        }
        guard !result.overflow else { throw integerOverflow }
        return .int(result.partialValue)
    }

    /// Applies `operation` to two numbers at least one of which is a float.
    private static func floats(
        _ op: BinaryOperator, _ lhs: RuleValue, _ rhs: RuleValue, _ operation: (Double, Double) -> Double
    ) throws(RuleError) -> Double {
        guard let a = lhs.asDouble, let b = rhs.asDouble else { throw noOperator(op, lhs, rhs) }
        return operation(a, b)
    }
}

extension RuleValue {
    /// An int or float as a double; `nil` for other types.
    var asDouble: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .float(let value): return value
        default: return nil
        }
    }
}
