import Synchronization

/// How often each rule of a rule set was evaluated, and how each evaluation ended. Rules are numbered when
/// they are compiled, so counting an evaluation is one relaxed atomic add at that index; any thread may count
/// while another reads.
final class RulesCoverage: Sendable {
    /// Where a rule is, what it says, and what it is.
    struct Site: Sendable {
        /// The rule's location in the tree, `$wildcards` included: `/presence/$uid` (`/` for the root).
        var path: String
        var kind: RuleScope.Kind
        /// The expression's text (JSON escapes decoded), or `true`/`false`.
        var expression: String
        /// Where the value starts: its opening quote, or the literal.
        var location: SourceLocation
        /// How many Unicode scalars the value takes in the file, quotes included (always on one line).
        var length: Int
    }

    /// A rule's counts; `evaluations` is their sum.
    struct Counts: Sendable, Equatable {
        var `true`: Int
        var `false`: Int
        var errors: Int

        var evaluations: Int { self.true + self.false + errors }
    }

    /// One rule's counters.
    private final class Counters: Sendable {
        let `true` = Atomic<Int>(0)
        let `false` = Atomic<Int>(0)
        let errors = Atomic<Int>(0)
    }

    /// Every rule, indexed by `Rule.id`.
    let sites: [Site]
    private let counters: [Counters]

    init(sites: [Site]) {
        self.sites = sites
        counters = sites.map { _ in Counters() }
    }

    /// Counts one evaluation of the rule `id`.
    func record(_ outcome: RuleOutcome, of id: Int) {
        let rule = counters[id]
        switch outcome {
        case .true: _ = rule.true.wrappingAdd(1, ordering: .relaxed)
        case .false: _ = rule.false.wrappingAdd(1, ordering: .relaxed)
        case .error: _ = rule.errors.wrappingAdd(1, ordering: .relaxed)
        }
    }

    /// The counts of the rule `id` so far.
    func counts(of id: Int) -> Counts {
        let rule = counters[id]
        return Counts(
            true: rule.true.load(ordering: .relaxed), false: rule.false.load(ordering: .relaxed),
            errors: rule.errors.load(ordering: .relaxed))
    }

    /// Every rule with its counts so far, in file order.
    func snapshot() -> [(site: Site, counts: Counts)] {
        sites.indices
            .map { (site: sites[$0], counts: counts(of: $0)) }
            .sorted { ($0.site.location.line, $0.site.location.column) < ($1.site.location.line, $1.site.location.column) }
    }
}
