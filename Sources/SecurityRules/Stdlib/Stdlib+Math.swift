#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The `math` namespace (rules.math), as the official engine evaluates it: `abs` keeps the argument's type,
/// `ceil` and `floor` return floats (also of an int), `round` an int, `pow` and `sqrt` floats, `isNaN` tests
/// a number. The official engine fails every call of `math.isInfinite`, so there is none here.
extension Stdlib {
    /// The functions of rules.math.
    static let mathFunctions: [String: Function] = [
        "math.abs": Function(1...1) { arguments throws(RuleError) in
            switch arguments[0] {
            case .int(let value):
                guard value != .min else { throw integerOverflow }
                return .int(Swift.abs(value))
            case .float(let value): return .float(value.magnitude)
            default: throw arguments.mismatch
            }
        },
        "math.ceil": Function(1...1) { arguments throws(RuleError) in .float(try arguments.number(0).rounded(.up)) },
        "math.floor": Function(1...1) { arguments throws(RuleError) in .float(try arguments.number(0).rounded(.down)) },
        // Halves round up, as Java's Math.round: round(2.5) == 3, round(-2.5) == -2.
        "math.round": Function(1...1) { arguments throws(RuleError) in
            try integral(arguments) { value in
                let floor = value.rounded(.down)
                return value - floor >= 0.5 ? floor + 1 : floor
            }
        },
        "math.sqrt": Function(1...1) { arguments throws(RuleError) in .float(try arguments.number(0).squareRoot()) },
        "math.pow": Function(2...2) { arguments throws(RuleError) in
            .float(pow(try arguments.number(0), try arguments.number(1)))
        },
        "math.isNaN": Function(1...1) { arguments throws(RuleError) in .bool(try arguments.number(0).isNaN) },
    ]

    /// A number rounded by `rule` as an int; an int is returned as is; NaN, ±∞ and floats beyond the int
    /// range are errors.
    private static func integral(_ arguments: Arguments, _ rule: (Double) -> Double) throws(RuleError) -> RuleValue {
        switch arguments[0] {
        case .int(let value): return .int(value)
        case .float(let value): return .int(try Stdlib.int(exactly: rule(value)))
        default: throw arguments.mismatch
        }
    }
}
