/// What compiling gives: a ruleset (unless there were errors) and every diagnostic.
public struct RulesCompilation: Sendable {
    /// The compiled ruleset; `nil` when any diagnostic is an error.
    public var ruleset: CompiledRuleset?
    /// Errors and warnings, in file and position order.
    public var diagnostics: [Diagnostic]

    /// Whether compilation produced errors.
    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }
}

/// The compiler pipeline: parse each file → build the program (scopes, functions, match tree) → check
/// names, functions and arities → an immutable `CompiledRuleset`.
public enum RulesCompiler {
    /// Compiles one or more files of one service. `recordCoverage` keeps per-expression counts.
    public static func compile(_ sources: [RulesSource], recordCoverage: Bool = false) -> RulesCompilation {
        var diagnostics: [Diagnostic] = []
        var files: [RulesFile] = []
        var nextID = 0
        for source in sources {
            let parsed = Parser.parse(source, firstID: nextID)
            nextID = parsed.nextID
            diagnostics += parsed.diagnostics
            if let file = parsed.file { files.append(file) }
        }
        guard let first = files.first else {
            if diagnostics.isEmpty, let source = sources.first {
                diagnostics.append(
                    Diagnostic(.error, "no rules to compile", fileName: source.fileName, at: SourceLocation(line: 1, column: 1)))
            }
            return RulesCompilation(ruleset: nil, diagnostics: sorted(diagnostics))
        }
        var builder = ProgramBuilder(version: first.version)
        for file in files { builder.add(file) }
        diagnostics += builder.diagnostics
        var checker = Checker(program: builder.program)
        checker.check()
        diagnostics += checker.diagnostics
        let all = sorted(diagnostics)
        guard !all.contains(where: { $0.severity == .error }) else {
            return RulesCompilation(ruleset: nil, diagnostics: all)
        }
        let ruleset = CompiledRuleset(
            program: builder.program, sources: sources, warnings: all, recordCoverage: recordCoverage)
        return RulesCompilation(ruleset: ruleset, diagnostics: all)
    }

    /// Compiles one file.
    public static func compile(_ source: RulesSource, recordCoverage: Bool = false) -> RulesCompilation {
        compile([source], recordCoverage: recordCoverage)
    }

    private static func sorted(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        diagnostics.sorted { ($0.fileName, $0.location) < ($1.fileName, $1.location) }
    }
}
