/// A compiled ruleset: immutable, shareable across threads, and fast to evaluate. Compile once (cache by
/// content), evaluate many requests.
public final class CompiledRuleset: Sendable {
    let program: RuleProgram
    /// The sources it was compiled from.
    public let sources: [RulesSource]
    /// The warnings of compilation (a ruleset with errors is never built).
    public let warnings: [Diagnostic]
    /// Coverage counts of every expression, when recording is on.
    public let coverage: RulesCoverage?
    /// Every int, float and string literal of the rules (and each number's negation), once: the values
    /// where a condition comparing a field with constants can change its answer. A list rule is proven for
    /// a query's range of values at these and their neighbours.
    public let literals: [RuleValue]

    init(program: RuleProgram, sources: [RulesSource], warnings: [Diagnostic], recordCoverage: Bool) {
        self.program = program
        self.sources = sources
        self.warnings = warnings
        self.coverage = recordCoverage ? RulesCoverage() : nil
        self.literals = Self.literals(of: program)
    }

    private static func literals(of program: RuleProgram) -> [RuleValue] {
        var ints: Set<Int64> = []
        var floats: Set<UInt64> = []
        var strings: Set<String> = []
        func visit(_ expression: Expression) {
            switch expression.kind {
            case .int(let value):
                ints.insert(value)
                if value != .min { ints.insert(-value) }
            case .float(let value):
                floats.insert(value.bitPattern)
                floats.insert((-value).bitPattern)
            case .string(let value): strings.insert(value)
            default: break
            }
            expression.kind.children.forEach(visit)
        }
        func visit(_ match: RuleProgram.Match) {
            for allow in match.allows { allow.condition.map(visit) }
            match.children.forEach(visit)
        }
        program.matches.forEach(visit)
        for function in program.functions {
            function.declaration.bindings.forEach { visit($0.value) }
            visit(function.declaration.body)
        }
        return ints.sorted().map(RuleValue.int) + floats.map(Double.init(bitPattern:)).sorted().map(RuleValue.float)
            + strings.sorted().map(RuleValue.string)
    }

    /// The service the rules are for.
    public var service: RulesService { program.service }

    /// The declared `rules_version`.
    public var version: RulesVersion { program.version }

    /// Decides `request`: allowed if any `allow` of a matching block that covers the method evaluates to
    /// boolean `true`. `accessLimit` is production's document-read limit (10 for a single-document request,
    /// 20 for batched writes and transactions). `debug` receives `debug()` output. `trace`, if given, records
    /// what each expression evaluated to in this decision (a report of it: `RulesCoverageReport(ruleset:trace:)`).
    public func evaluate(
        _ request: RulesRequest, data: some RulesDataSource = NoRulesData(), accessLimit: Int = 10,
        debug: (@Sendable (String) -> Void)? = nil, trace: RulesTrace? = nil
    ) -> RulesDecision {
        var outcomes: [AllowOutcome] = []
        let state = EvaluationState()
        var allowed = false
        for candidate in PathMatcher(version: program.version).matches(program.matches, request.path) {
            var globals = Scope([("request", request.request), ("resource", request.resource)])
            for (name, value) in candidate.bindings { globals.bind(name, value) }
            let evaluator = Evaluator(
                program: program, globals: globals, data: data, coverage: coverage, trace: trace,
                accessLimit: accessLimit, debug: debug, state: state, proof: request.proof)
            for allow in candidate.match.allows where allow.methods.contains(request.method) {
                let result = outcome(of: allow, evaluator: evaluator, lexical: candidate.match.scope)
                if result == .allowed { allowed = true }
                outcomes.append(
                    AllowOutcome(
                        fileName: allow.fileName, location: allow.location, methods: allow.declaredMethods,
                        result: result))
            }
        }
        return RulesDecision(allowed: allowed, outcomes: outcomes)
    }

    private func outcome(of allow: RuleProgram.Allow, evaluator: Evaluator, lexical: Int) -> AllowOutcome.Result {
        guard let condition = allow.condition else { return .allowed }
        do {
            let value = try evaluator.evaluate(condition, evaluator.globals, lexical: lexical)
            if case .bool(true) = value { return .allowed }
            return .denied(String(describing: value))
        } catch {
            return .error(error)
        }
    }
}
