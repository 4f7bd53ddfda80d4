/// The global conversion functions `int()`, `float()`, `string()` and `path()`.
///
/// rules.Integer: strings and floats convert to ints (`int("2") == 2`, `int(2.0) == 2`; a float truncates
/// toward zero). rules.Float: strings and ints convert to floats. rules.String: booleans, ints, floats and
/// null convert to strings (`string(2.0) == "2.0"`); so do paths (`/a/b`), timestamps and durations.
/// rules.Path: `path("a/b")`. Anything else is an error: bytes too, and there is no `bool()`, as in the
/// official engine (both fail there, whatever the argument).
extension Stdlib {
    /// The conversion functions.
    static let conversionFunctions: [String: Function] = [
        "int": Function(1...1) { arguments throws(RuleError) in
            switch arguments[0] {
            case .int: return arguments[0]
            case .float(let value): return .int(try int(exactly: value.rounded(.towardZero)))
            case .string(let text):
                guard let value = Int64(text) else { throw RuleError(.invalidArgument, "Cannot convert '\(text)' to an int.") }
                return .int(value)
            default: throw arguments.mismatch
            }
        },
        "float": Function(1...1) { arguments throws(RuleError) in
            switch arguments[0] {
            case .int(let value): return .float(Double(value))
            case .float: return arguments[0]
            case .string(let text):
                guard let value = parseFloat(text) else { throw RuleError(.invalidArgument, "Cannot convert '\(text)' to a float.") }
                return .float(value)
            default: throw arguments.mismatch
            }
        },
        "string": Function(1...1) { arguments throws(RuleError) in
            switch arguments[0] {
            case .string: return arguments[0]
            case .null, .bool, .int, .float, .path, .timestamp, .duration: return .string(arguments[0].description)
            default: throw arguments.mismatch
            }
        },
        "path": Function(1...1) { arguments throws(RuleError) in
            switch arguments[0] {
            case .string(let text): return .path(RulePath(text))
            case .path: return arguments[0]
            default: throw arguments.mismatch
            }
        },
    ]

    /// A decimal float as Java's `Double.parseDouble` reads it: surrounding whitespace ignored, an optional
    /// exponent, and the special values `NaN` and `Infinity` spelled exactly so.
    private static func parseFloat(_ text: String) -> Double? {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { $0.value > 0x20 }),
            let last = scalars.lastIndex(where: { $0.value > 0x20 })
        else { return nil }
        let trimmed = String(scalars[first...last])
        switch trimmed {
        case "NaN", "+NaN", "-NaN": return .nan
        case "Infinity", "+Infinity": return .infinity
        case "-Infinity": return -.infinity
        default:
            guard trimmed.unicodeScalars.allSatisfy({ "0123456789+-.eE".unicodeScalars.contains($0) }) else { return nil }
            return Double(trimmed)
        }
    }

    /// An integral `value` as an int; NaN, ±∞ and values beyond the 64-bit range are errors.
    static func int(exactly value: Double) throws(RuleError) -> Int64 {
        guard let result = Int64(exactly: value) else {
            throw RuleError(.outOfRange, "Cannot convert \(RuleValue.floatText(value)) to an int: out of range.")
        }
        return result
    }
}
