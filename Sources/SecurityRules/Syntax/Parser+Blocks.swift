/// The body of a service: `match` blocks, nested to any depth, with their `allow` statements and functions.
///
/// Nesting is parsed with an explicit stack of open blocks rather than by recursion, so a deeply nested
/// file costs heap, not call stack; `maxNesting` still bounds it.
extension Parser {
    /// What a `service` or `match` block holds.
    struct Body {
        var functions: [FunctionDeclaration] = []
        var allows: [AllowStatement] = []
        var matches: [MatchBlock] = []
    }

    /// A `match` block whose `}` has not been reached yet.
    private struct OpenMatch {
        var location: SourceLocation
        var pattern: [PathPatternSegment]
        var body = Body()
    }

    /// `{ (match | function)* }` after `service name`; `allow` directly in the service is an error.
    mutating func parseServiceBody(openedAt location: SourceLocation) -> Body {
        expect(.leftBrace, "to open the service")
        var service = Body()
        var open: [OpenMatch] = []
        while true {
            if atEnd {
                let (owner, start) = open.last.map { ("match block", $0.location) } ?? ("service", location)
                errorExpected("'}' to close the \(owner) opened at \(start)")
                while !open.isEmpty { close(&open, into: &service) }
                return service
            }
            if consume(.rightBrace) {
                if open.isEmpty { return service }
                close(&open, into: &service)
                continue
            }
            switch word {
            case "match":
                if open.count < Self.maxNesting {
                    open.append(parseMatchHeader())
                } else {
                    abandon("match blocks nested too deeply (more than \(Self.maxNesting) levels)")
                }
            case "allow":
                let allow = parseAllow()
                if open.isEmpty {
                    error("allow statements must be inside a match block", at: allow.location)
                } else {
                    open[open.count - 1].body.allows.append(allow)
                }
            case "function":
                let function = parseFunction()
                if open.isEmpty {
                    service.functions.append(function)
                } else {
                    open[open.count - 1].body.functions.append(function)
                }
            default:
                errorUnexpected(expected: "'match', 'allow' or 'function'", in: open.isEmpty ? "service" : "match block")
                advance()
                skipStatement()
            }
        }
    }

    /// Closes the innermost open block and adds it to its parent.
    private mutating func close(_ open: inout [OpenMatch], into service: inout Body) {
        guard let match = open.popLast() else { return }
        if case .recursive = match.pattern.last {
            // Production's warning for children of a match ending in {name=**} (quoted in
            // github.com/firebase/functions-samples/issues/246).
            for child in match.body.matches {
                warning("Glob(**) resource rules should not have child resource rules.", at: child.location)
            }
        }
        let block = MatchBlock(
            pattern: match.pattern, functions: match.body.functions, allows: match.body.allows,
            matches: match.body.matches, location: match.location)
        if open.isEmpty {
            service.matches.append(block)
        } else {
            open[open.count - 1].body.matches.append(block)
        }
    }

    /// `match /path {` — the current token is `match`.
    private mutating func parseMatchHeader() -> OpenMatch {
        let location = token.location
        advance()
        var pattern: [PathPatternSegment] = []
        if at(.slash) {
            let patternStart = token.location
            pattern = lexer.scanMatchPattern()
            advance()
            checkPattern(pattern, at: patternStart)
        } else {
            errorExpected("a path starting with '/' after 'match'")
            lexer.isQuiet = true
            while !atEnd, !at(.leftBrace), !atStatementBoundary { advance() }
            lexer.isQuiet = false
        }
        expect(.leftBrace, "to open the match block")
        return OpenMatch(location: location, pattern: pattern)
    }

    /// Where a recursive wildcard may be: at most one per pattern, and in version 1 only at the end
    /// (firebase.google.com/docs/firestore/security/rules-structure, "Recursive wildcards"); and no variable
    /// named twice in one pattern (the official compiler's "already exists in the PathTemplate").
    private mutating func checkPattern(_ pattern: [PathPatternSegment], at location: SourceLocation) {
        var names: Set<String> = []
        for name in pattern.compactMap(\.variableName) where !names.insert(name).inserted {
            error("Variable \(name) already exists in the PathTemplate.", at: location)
            return
        }
        let recursive = pattern.indices.filter { if case .recursive = pattern[$0] { return true } else { return false } }
        if recursive.count > 1 {
            error("a match path can contain at most one recursive wildcard", at: location)
        } else if version == .v1, let index = recursive.first, index != pattern.count - 1 {
            error("a recursive wildcard must be the last segment of a match path in rules_version '1'", at: location)
        }
    }
}
