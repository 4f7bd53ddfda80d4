import Synchronization

/// Compiled rulesets by their exact sources: compile once, reuse while the text is unchanged, and swap
/// in a new ruleset when a file changes (its new text is a new key). Thread-safe.
public final class RulesCache: Sendable {
    private let entries = Mutex<[[RulesSource]: RulesCompilation]>([:])
    private let limit: Int

    /// Creates a cache holding at most `limit` compilations (least recently added dropped first).
    public init(limit: Int = 64) {
        self.limit = limit
    }

    /// The compilation of `sources`, compiled now if this exact text was not compiled before.
    public func compilation(of sources: [RulesSource], recordCoverage: Bool = false) -> RulesCompilation {
        if let cached = entries.withLock({ $0[sources] }) { return cached }
        let compiled = RulesCompiler.compile(sources, recordCoverage: recordCoverage)
        entries.withLock { entries in
            if entries.count >= limit, let victim = entries.keys.first { entries[victim] = nil }
            entries[sources] = compiled
        }
        return compiled
    }
}
