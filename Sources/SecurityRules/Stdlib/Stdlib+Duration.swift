/// rules.Duration and the `duration` namespace.
///
/// A duration is signed seconds and nanoseconds of the same sign, within ±315,576,000,000 seconds (the
/// range rules.Duration documents for `seconds()`, ten thousand years); results outside it are errors.
extension Stdlib {
    /// Methods of rules.Duration.
    static let durationMethods: [String: Method<RuleDuration>] = [
        "seconds": Method { duration, _ in .int(duration.seconds) },
        "nanos": Method { duration, _ in .int(Int64(duration.nanos)) },
    ]

    /// `duration.abs(d)`, `duration.time(h, m, s, ns)`, `duration.value(magnitude, unit)`.
    static let durationFunctions: [String: Function] = [
        "duration.abs": Function(1...1) { arguments throws(RuleError) in
            guard case .duration(let duration) = arguments[0] else { throw arguments.mismatch }
            return .duration(duration.seconds < 0 || duration.nanos < 0 ? duration.negated : duration)
        },
        "duration.time": Function(4...4) { arguments throws(RuleError) in
            let parts = [try arguments.int(0), try arguments.int(1), try arguments.int(2), try arguments.int(3)]
            var seconds: Int64 = 0
            for (part, scale) in zip(parts.prefix(3), [3600, 60, 1] as [Int64]) {
                let scaled = part.multipliedReportingOverflow(by: scale)
                let sum = seconds.addingReportingOverflow(scaled.partialValue)
                guard !scaled.overflow, !sum.overflow else { throw RuleDuration.outOfRange }
                seconds = sum.partialValue
            }
            return .duration(try RuleDuration.checked(seconds: seconds, nanos: parts[3]))
        },
        "duration.value": Function(2...2) { arguments throws(RuleError) in
            let magnitude = try arguments.int(0)
            let unit = try arguments.string(1)
            guard let nanosPerUnit = RuleDuration.units[unit] else {
                throw RuleError(.invalidArgument, "Invalid duration unit '\(unit)'; expected one of w, d, h, m, s, ms, ns.")
            }
            let perSecond: Int64 = 1_000_000_000
            if nanosPerUnit < perSecond {
                let parts = magnitude.quotientAndRemainder(dividingBy: perSecond / nanosPerUnit)
                return .duration(try RuleDuration.checked(seconds: parts.quotient, nanos: parts.remainder * nanosPerUnit))
            }
            let seconds = magnitude.multipliedReportingOverflow(by: nanosPerUnit / perSecond)
            guard !seconds.overflow else { throw RuleDuration.outOfRange }
            return .duration(try RuleDuration.checked(seconds: seconds.partialValue, nanos: 0))
        },
    ]
}

extension RuleDuration {
    /// The largest magnitude of `seconds`.
    static let maximumSeconds: Int64 = 315_576_000_000

    /// Nanoseconds in each unit `duration.value` accepts.
    static let units: [String: Int64] = [
        "w": 604_800_000_000_000, "d": 86_400_000_000_000, "h": 3_600_000_000_000, "m": 60_000_000_000,
        "s": 1_000_000_000, "ms": 1_000_000, "ns": 1,
    ]

    /// The error for a duration outside the representable range.
    static var outOfRange: RuleError { RuleError(.outOfRange, "duration out of range") }

    /// The duration of `seconds` plus `nanos` (any signs, any size), normalized so both parts share a
    /// sign; an error outside ±315,576,000,000 seconds.
    static func checked(seconds: Int64, nanos: Int64) throws(RuleError) -> RuleDuration {
        let carry = nanos.quotientAndRemainder(dividingBy: 1_000_000_000)
        let total = seconds.addingReportingOverflow(carry.quotient)
        guard !total.overflow else { throw outOfRange }
        var (whole, fraction) = (total.partialValue, carry.remainder)
        if whole > 0, fraction < 0 {
            (whole, fraction) = (whole - 1, fraction + 1_000_000_000)
        } else if whole < 0, fraction > 0 {
            (whole, fraction) = (whole + 1, fraction - 1_000_000_000)
        }
        guard whole.magnitude <= UInt64(maximumSeconds) else { throw outOfRange }
        return RuleDuration(seconds: whole, nanos: Int32(fraction))
    }

    /// The same length of time in the other direction.
    var negated: RuleDuration { RuleDuration(seconds: -seconds, nanos: -nanos) }
}
