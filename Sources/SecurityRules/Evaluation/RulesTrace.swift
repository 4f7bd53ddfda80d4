/// What each expression evaluated to in one decision (its last value, or its error): how the Emulator UI
/// shows why a request was allowed or denied (`RulesCoverageReport(ruleset:trace:)`).
///
/// `@unchecked Sendable`: it is written only by the one `CompiledRuleset.evaluate(_:trace:)` call it is given
/// to, on that call's thread, and read only after that call returned; a decision evaluates nothing in
/// parallel. No lock is taken per expression.
public final class RulesTrace: @unchecked Sendable {
    private var results: [Int: Result<RuleValue, RuleError>] = [:]

    /// An empty trace, for one decision.
    public init() {}

    func record(_ id: Int, _ result: Result<RuleValue, RuleError>) {
        results[id] = result
    }

    /// What expression `id` evaluated to last (`true`, `'abc'`, or an error's message); nil if it was not.
    public func value(of id: Int) -> String? {
        switch results[id] {
        case .success(let value)?: return String(describing: value)
        case .failure(let error)?: return error.message
        case nil: return nil
        }
    }

    /// The outcome of each expression evaluated, counted once, as coverage counts it.
    var counts: [Int: RulesCoverage.Counts] {
        results.mapValues { result in
            var counts = RulesCoverage.Counts()
            switch result {
            case .success(.bool(true)): counts.trueCount = 1
            case .success(.bool(false)): counts.falseCount = 1
            case .success: counts.valueCount = 1
            case .failure: counts.errorCount = 1
            }
            return counts
        }
    }
}
