/// Parses rules text into a `RulesFile`, collecting syntax errors as diagnostics rather than throwing.
///
/// A hand-written recursive-descent parser with one token of lookahead over `Lexer`. Declarations are in
/// `Parser+Declarations.swift`, `match` blocks in `Parser+Blocks.swift`, expressions in
/// `Parser+Expressions.swift`, path literals in `Parser+Paths.swift`. It never stops at the first error: it
/// reports, skips to the next statement boundary (`;`, `}` or a statement keyword) and goes on, so one run
/// reports several errors. Nesting is bounded (`maxNesting`; expression trees at most `maxHeight` high) so
/// hostile input can neither overflow the stack nor hang it. Helpers off the recursive path are kept out of
/// line (`@inline(never)`) so that each level of expression nesting costs only its own small frames.
struct Parser {
    /// How deeply parentheses, brackets, calls, path interpolations, unary operators and `match` blocks may
    /// nest. Real rules nest well under 20; at 64 the deepest input parses within 384 KiB of stack in a debug
    /// build (about 75 KiB optimized), so parsing is safe on a 512 KiB secondary thread.
    static let maxNesting = 64
    /// How high an expression tree may grow (long operator chains grow it without nesting); whoever walks
    /// a tree recursively can rely on this bound.
    static let maxHeight = 1000
    /// Words that start or shape a declaration and so end an expression or a skipped statement.
    static let statementKeywords: Set<String> = ["allow", "match", "function", "service", "let", "return", "rules_version"]
    /// Words that can never be an identifier in an expression.
    static let reservedWords: Set<String> = statementKeywords.union(["if", "in", "is", "true", "false", "null"])

    /// The token source.
    var lexer: Lexer
    /// The current (lookahead) token.
    var token: Token
    /// Where the token before `token` ended (for "missing ';'" diagnostics).
    var previousEnd = SourceLocation(line: 1, column: 1)
    /// Where diagnostics about members and binary operators point, by expression id (`RulesFile.anchors`).
    var anchors: [Int: SourceLocation] = [:]
    /// The version declared by `rules_version` (v1 until one is seen).
    var version = RulesVersion.v1
    /// Expression nesting at this point (counted afresh for each statement).
    var nesting = 0
    /// The id of the first expression this parser made.
    let firstID: Int
    /// The id the next expression gets.
    var nextID: Int
    /// The height of each expression made so far, indexed by `id - firstID`.
    private var heights: [Int] = []
    /// Where each expression made so far ends (just past its last token), indexed by `id - firstID`; the
    /// coverage report uses it to mark each expression's extent.
    private(set) var ends: [SourceLocation] = []
    /// The parser's own diagnostics (the lexer keeps its own).
    private var diagnostics: [Diagnostic] = []
    /// Where the last error was reported: a second error at the same place is a cascade and is dropped.
    private var lastErrorLocation: SourceLocation?
    /// Set when the parser gives up on the rest of the text (too deeply nested).
    private(set) var abandoned = false

    /// How many errors the parser has reported (its diagnostics also hold warnings).
    private var parserErrorCount = 0

    /// How many errors the lexer and parser have reported so far.
    var errorCount: Int { lexer.diagnostics.count + parserErrorCount }

    /// A parser at the first token of `text`.
    init(_ text: String, fileName: String, firstID: Int) {
        lexer = Lexer(text, fileName: fileName)
        token = Token(kind: .endOfFile, location: SourceLocation(line: 1, column: 1))
        self.firstID = firstID
        nextID = firstID
        advance()
    }

    /// Parses a whole rules file. `file` is `nil` only if nothing usable could be parsed; otherwise it is
    /// returned with whatever parsed, alongside the diagnostics. Expression ids start at `firstID`.
    static func parse(_ source: RulesSource, firstID: Int = 0) -> (file: RulesFile?, diagnostics: [Diagnostic], nextID: Int) {
        var parser = Parser(source.text, fileName: source.fileName, firstID: firstID)
        let file = parser.parseFile()
        return (file, parser.allDiagnostics, parser.nextID)
    }

    /// Parses one expression (for tests and the conformance corpus); `nil` if it has errors.
    static func parseExpression(_ text: String, fileName: String = "<expression>") -> (expression: Expression?, diagnostics: [Diagnostic]) {
        var parser = Parser(text, fileName: fileName, firstID: 0)
        let expression = parser.parseRootExpression()
        if !parser.atEnd {
            parser.error("unexpected \(parser.token.description) after the expression")
        }
        let diagnostics = parser.allDiagnostics
        return (diagnostics.contains { $0.severity == .error } ? nil : expression, diagnostics)
    }

    /// The lexer's and the parser's diagnostics, in source order.
    var allDiagnostics: [Diagnostic] {
        (lexer.diagnostics + diagnostics).enumerated()
            .sorted { ($0.element.location, $0.offset) < ($1.element.location, $1.offset) }
            .map(\.element)
    }

    // MARK: Tokens

    /// Moves to the next token.
    mutating func advance() {
        previousEnd = lexer.location
        token = lexer.next()
    }

    /// Whether the current token is `symbol`.
    func at(_ symbol: Symbol) -> Bool { token.kind == .symbol(symbol) }

    /// The current token's text if it is a word.
    var word: String? {
        if case .word(let word) = token.kind { return word }
        return nil
    }

    /// Whether the current token is the word `word`.
    func at(word: String) -> Bool { self.word == word }

    /// Whether the text is used up.
    var atEnd: Bool { token.kind == .endOfFile }

    /// Whether the current token ends a statement that lacks its `;`: `}`, the end, or a statement keyword.
    var atStatementBoundary: Bool {
        atEnd || at(.rightBrace) || word.map(Self.statementKeywords.contains) == true
    }

    /// Consumes the current token if it is `symbol`.
    mutating func consume(_ symbol: Symbol) -> Bool {
        guard at(symbol) else { return false }
        advance()
        return true
    }

    /// Consumes `symbol` or reports `expected <symbol> <context>, found <token>`.
    @inline(never)
    mutating func expect(_ symbol: Symbol, _ context: String) {
        if !consume(symbol) {
            errorExpected("'\(symbol.rawValue)' \(context)")
        }
    }

    // MARK: Diagnostics

    /// Reports an error at `location` (the current token's by default), unless it cascades from the last one.
    @inline(never)
    mutating func error(_ message: String, at location: SourceLocation? = nil) {
        let location = location ?? token.location
        guard !abandoned, location != lastErrorLocation else { return }
        lastErrorLocation = location
        parserErrorCount += 1
        diagnostics.append(Diagnostic(.error, message, fileName: lexer.fileName, at: location))
    }

    /// Reports `expected <what>, found <current token>`.
    @inline(never)
    mutating func errorExpected(_ what: String) {
        error("expected \(what), found \(token.description)")
    }

    /// Reports `unexpected <current token> [in <place>], expected <what>`.
    @inline(never)
    mutating func errorUnexpected(expected what: String, in place: String? = nil) {
        error("unexpected \(token.description)\(place.map { " in \($0)" } ?? ""), expected \(what)")
    }

    /// Reports a warning at `location`.
    @inline(never)
    mutating func warning(_ message: String, at location: SourceLocation) {
        guard !abandoned else { return }
        diagnostics.append(Diagnostic(.warning, message, fileName: lexer.fileName, at: location))
    }

    /// Reports `message` and stops parsing: the rest of the text is skipped.
    @inline(never)
    mutating func abandon(_ message: String) {
        error(message)
        abandoned = true
        lexer.skipToEnd()
        token = Token(kind: .endOfFile, location: lexer.location)
    }

    /// Enters one level of nesting; `false` (having abandoned) if that is one too many.
    mutating func enterNesting(_ what: String) -> Bool {
        guard nesting < Self.maxNesting else {
            abandon("\(what) nested too deeply (more than \(Self.maxNesting) levels)")
            return false
        }
        nesting += 1
        return true
    }

    /// Expects the `;` that ends a statement. Production accepts a statement without it before `}` or the
    /// next statement, so that is only a warning (not given if the statement already had errors, counted
    /// from `errorsBefore`); anything else there is an error, skipped past.
    mutating func endStatement(_ what: String, errorsBefore: Int) {
        if consume(.semicolon) { return }
        if atStatementBoundary {
            if errorCount == errorsBefore {
                warning("missing ';' after \(what)", at: previousEnd)
            }
        } else {
            errorExpected("';' after \(what)")
            skipStatement()
        }
    }

    /// Skips tokens to the next statement boundary: past a `;`, or up to a `}` or statement keyword, at
    /// the current bracket depth. Characters no token starts are not reported again while skipping.
    mutating func skipStatement() {
        _ = skip(inList: nil)
    }

    /// After an error inside brackets, skips to the next `,` (consumed: the list goes on, `true`) or to
    /// `closer`, a `;` or a statement keyword at this depth (not consumed, `false`).
    mutating func skipToSeparator(_ closer: Symbol) -> Bool {
        skip(inList: closer)
    }

    /// Skips a statement's (`closer == nil`) or a list element's rest; `true` if it stopped past a `,`.
    @inline(never)
    private mutating func skip(inList closer: Symbol?) -> Bool {
        lexer.isQuiet = true
        defer { lexer.isQuiet = false }
        var depth = 0
        while !atEnd {
            if depth == 0 {
                if closer == nil, consume(.semicolon) { return false }
                if closer != nil, consume(.comma) { return true }
                if at(.rightBrace) || at(.semicolon) || word.map(Self.statementKeywords.contains) == true { return false }
                if let closer, at(closer) { return false }
            }
            if at(.leftBrace) || at(.leftParen) || at(.leftBracket) {
                depth += 1
            } else if at(.rightParen) || at(.rightBracket) || at(.rightBrace) {
                if depth > 0 {
                    depth -= 1
                } else if closer != nil {
                    return false  // a closer that is not the list's: the list ends here
                }
            }
            advance()
        }
        return false
    }

    // MARK: Nodes

    /// A new expression node with the next id.
    @inline(never)
    mutating func make(_ kind: ExpressionKind, at location: SourceLocation) -> Expression {
        let height = 1 + (Self.children(of: kind).map { heights[$0.id - firstID] }.max() ?? 0)
        if height > Self.maxHeight, !abandoned {
            abandon("expression too complex (more than \(Self.maxHeight) levels deep)")
        }
        heights.append(height)
        ends.append(previousEnd)
        defer { nextID += 1 }
        return Expression(kind, at: location, id: nextID)
    }

    /// A stand-in for an expression that failed to parse (an error has been reported).
    mutating func placeholder(at location: SourceLocation? = nil) -> Expression {
        make(.null, at: location ?? token.location)
    }

    /// The direct subexpressions of a node.
    private static func children(of kind: ExpressionKind) -> [Expression] {
        switch kind {
        case .null, .bool, .int, .float, .string, .bytes, .identifier: return []
        case .list(let elements): return elements
        case .map(let entries): return entries.flatMap { [$0.key, $0.value] }
        case .path(let segments):
            return segments.compactMap {
                if case .interpolation(let expression) = $0 { return expression }
                return nil
            }
        case .member(let receiver, _): return [receiver]
        case .index(let receiver, let index): return [receiver, index]
        case .slice(let receiver, let from, let to): return [receiver] + [from, to].compactMap { $0 }
        case .call(let callee, let arguments): return [callee] + arguments
        case .unary(_, let operand): return [operand]
        case .binary(_, let lhs, let rhs): return [lhs, rhs]
        case .ternary(let condition, let then, let otherwise): return [condition, then, otherwise]
        case .isType(let operand, _): return [operand]
        }
    }
}
