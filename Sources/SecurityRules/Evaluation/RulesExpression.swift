/// Evaluates a single rules expression outside any ruleset: for tests, the conformance corpus and tools.
public enum RulesExpression {
    /// Parses and evaluates `text` with `bindings` as variables. Parse errors come back as a failure whose
    /// message is the first diagnostic.
    public static func evaluate(
        _ text: String, bindings: [String: RuleValue] = [:], data: some RulesDataSource = NoRulesData(),
        service: RulesService = .firestore, accessLimit: Int = 10
    ) -> Result<RuleValue, RuleError> {
        let parsed = Parser.parseExpression(text)
        guard let expression = parsed.expression, !parsed.diagnostics.contains(where: { $0.severity == .error }) else {
            return .failure(RuleError(.syntax, parsed.diagnostics.first?.description ?? "cannot parse expression"))
        }
        let program = RuleProgram(
            version: .v2, service: service, matches: [], scopes: [RuleProgram.LexicalScope(parent: nil, functions: [:])],
            functions: [])
        let globals = Scope(bindings.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        let evaluator = Evaluator(
            program: program, globals: globals, data: data, coverage: nil, accessLimit: accessLimit, debug: nil,
            state: EvaluationState())
        do {
            return .success(try evaluator.evaluate(expression, globals, lexical: 0))
        } catch {
            return .failure(error)
        }
    }
}
