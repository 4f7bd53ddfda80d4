/// Parses rules text into a `RulesFile`, collecting syntax errors as diagnostics rather than throwing.
struct Parser {
    /// Parses a whole rules file. `file` is `nil` only if nothing usable could be parsed; otherwise it is
    /// returned with whatever parsed, alongside the diagnostics. Expression ids start at `firstID`.
    static func parse(_ source: RulesSource, firstID: Int = 0) -> (file: RulesFile?, diagnostics: [Diagnostic], nextID: Int) {
        (nil, [Diagnostic(.error, "parser not implemented", fileName: source.fileName, at: SourceLocation(line: 1, column: 1))], firstID)
    }

    /// Parses one expression (for tests and the conformance corpus).
    static func parseExpression(_ text: String, fileName: String = "<expression>") -> (expression: Expression?, diagnostics: [Diagnostic]) {
        (nil, [Diagnostic(.error, "parser not implemented", fileName: fileName, at: SourceLocation(line: 1, column: 1))])
    }
}
