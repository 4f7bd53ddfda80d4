import Synchronization

/// Per-expression hit counts across many decisions, for rules coverage reports. Thread-safe; shared by
/// every request evaluated against one ruleset.
public final class RulesCoverage: Sendable {
    /// What one expression did, over all evaluations.
    public struct Counts: Sendable, Equatable {
        /// Times it evaluated to `true`.
        public var trueCount = 0
        /// Times it evaluated to `false`.
        public var falseCount = 0
        /// Times it evaluated to another value.
        public var valueCount = 0
        /// Times it ended in an error.
        public var errorCount = 0

        /// Every evaluation.
        public var total: Int { trueCount + falseCount + valueCount + errorCount }
    }

    private let counts = Mutex<[Int: Counts]>([:])

    /// Creates an empty recorder.
    public init() {}

    /// The counts of expression `id` (zero if never evaluated).
    public func counts(for id: Int) -> Counts {
        counts.withLock { $0[id] } ?? Counts()
    }

    /// Every expression id that was evaluated at least once, with its counts.
    public var snapshot: [Int: Counts] { counts.withLock { $0 } }

    /// Forgets every count.
    public func reset() { counts.withLock { $0 = [:] } }

    func record(_ id: Int, _ result: Result<RuleValue, RuleError>) {
        counts.withLock { counts in
            switch result {
            case .success(.bool(true)): counts[id, default: Counts()].trueCount += 1
            case .success(.bool(false)): counts[id, default: Counts()].falseCount += 1
            case .success: counts[id, default: Counts()].valueCount += 1
            case .failure: counts[id, default: Counts()].errorCount += 1
            }
        }
    }
}
