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
            return RulesCompilation(ruleset: nil, diagnostics: locating(sorted(diagnostics), in: sources))
        }
        var builder = ProgramBuilder(version: first.version)
        for file in files { builder.add(file) }
        diagnostics += builder.diagnostics
        var checker = Checker(program: builder.program)
        checker.check()
        diagnostics += checker.diagnostics
        let all = locating(sorted(diagnostics), in: sources)
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

    /// `diagnostics` with the offsets of the token each points at.
    static func locating(_ diagnostics: [Diagnostic], in sources: [RulesSource]) -> [Diagnostic] {
        guard !diagnostics.isEmpty else { return diagnostics }
        var spans: [String: TokenSpans] = [:]
        return diagnostics.map { diagnostic in
            var diagnostic = diagnostic
            if spans[diagnostic.fileName] == nil, let source = sources.first(where: { $0.fileName == diagnostic.fileName }) {
                spans[diagnostic.fileName] = TokenSpans(source)
            }
            diagnostic.offsets = spans[diagnostic.fileName]?.offsets(at: diagnostic.location)
            return diagnostic
        }
    }
}

/// Where each token of a file starts and ends, in Unicode scalar offsets.
struct TokenSpans {
    private var ends: [SourceLocation: SourceLocation] = [:]
    private let lineStarts: [Int]
    private let count: Int

    init(_ source: RulesSource) {
        var lexer = Lexer(source.text, fileName: source.fileName)
        lexer.isQuiet = true
        while true {
            let token = lexer.next()
            if token.kind == .endOfFile { break }
            ends[token.location] = lexer.location
        }
        let scalars = Array(source.text.unicodeScalars)
        count = scalars.count
        lineStarts = [0] + scalars.indices.filter { scalars[$0] == "\n" }.map { $0 + 1 }
    }

    /// The offset of `location`, clamped to the text.
    private func offset(of location: SourceLocation) -> Int {
        let line = min(max(location.line, 1), lineStarts.count)
        return min(lineStarts[line - 1] + max(location.column, 1) - 1, count)
    }

    /// The first and last offsets of the token at `location` (just its first character when none starts there).
    func offsets(at location: SourceLocation) -> ClosedRange<Int> {
        let start = offset(of: location)
        guard let end = ends[location] else { return start...start }
        return start...max(start, offset(of: end) - 1)
    }
}
