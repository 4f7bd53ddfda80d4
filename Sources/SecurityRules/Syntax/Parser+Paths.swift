/// Path literals in expressions: `/databases/$(database)/documents/users/$(request.auth.uid)`.
///
/// A `/` where an operand is expected starts a path (after an operand it divides). Each segment is either
/// text (`users`, `(default)`) or one `$(expression)` interpolation; a segment cannot mix the two. The
/// path ends at the first character that continues no segment and is not `/` (paths are written without
/// spaces, as in production); a `.` right after `$(...)` is member access on the path, not text.
/// `{name}` in a path literal is a common mistake and gets its own error.
extension Parser {
    /// A path literal; the current token is its first `/` (the lexer stands right after it).
    @inline(never)
    mutating func parsePathLiteral(at location: SourceLocation) -> Expression {
        var segments: [PathLiteralSegment] = []
        var needsSlash = false
        while true {
            if needsSlash {
                error("a path segment cannot mix text and $(...)", at: lexer.location)
            }
            if lexer.peek() == UInt8(ascii: "$"), lexer.peek(1) == UInt8(ascii: "(") {
                guard let value = parseInterpolation() else {
                    // The current token is where the interpolation went wrong: not consumed, not stale.
                    return make(.path(segments), at: location)
                }
                segments.append(.interpolation(value))
                needsSlash = lexer.peek(is: Lexer.isPathText) && lexer.peek() != UInt8(ascii: ".")
            } else {
                switch scanTextSegment() {
                case .text(let text): segments.append(.text(text))
                case .skipped: break
                case .missing: return endPath(segments, at: location)
                }
                needsSlash = lexer.peek() == UInt8(ascii: "$") && lexer.peek(1) == UInt8(ascii: "(")
            }
            if !needsSlash, !lexer.consume(UInt8(ascii: "/")) { break }
        }
        checkSpacedSlash()
        return endPath(segments, at: location)
    }

    /// The official compiler reads a `/` after a path literal and spaces as more of the path: when no segment
    /// name or `$(` follows it (`/a/b / [x]`), the rules do not compile.
    private mutating func checkSpacedSlash() {
        func isSpace(_ byte: UInt8?) -> Bool {
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
        }
        var ahead = 0
        while isSpace(lexer.peek(ahead)) { ahead += 1 }
        guard ahead > 0, lexer.peek(ahead) == UInt8(ascii: "/"),
            lexer.peek(ahead + 1) != UInt8(ascii: "/"), lexer.peek(ahead + 1) != UInt8(ascii: "*")  // a comment
        else { return }
        var next = ahead + 1
        while isSpace(lexer.peek(next)) { next += 1 }
        guard let byte = lexer.peek(next) else { return }
        let startsSegment = byte == UInt8(ascii: "$") || byte == UInt8(ascii: "_") || (byte >= 0x41 && byte <= 0x5A)
            || (byte >= 0x61 && byte <= 0x7A)
        if !startsSegment {
            error("Forward slash '/' found where identifier or binding expected.", at: lexer.location)
        }
    }

    /// The path node, once the lexer stands after the path; the current token ('/' or ')') is stale.
    private mutating func endPath(_ segments: [PathLiteralSegment], at location: SourceLocation) -> Expression {
        advance()
        return make(.path(segments), at: location)
    }

    /// `$(expression)`; the lexer stands at the `$`. Afterwards the lexer stands right after the `)`, which is
    /// the (stale) current token. `nil` if the `)` is missing (reported).
    private mutating func parseInterpolation() -> Expression? {
        lexer.bump()
        lexer.bump()
        advance()
        let value = parseExpression()
        guard at(.rightParen) else {
            errorExpected("')' to close '$(' in the path")
            return nil
        }
        return value
    }

    /// What `scanTextSegment` found.
    private enum TextSegment {
        /// Segment text.
        case text(String)
        /// A `{name}`, reported and skipped.
        case skipped
        /// Nothing that could be a segment (reported).
        case missing
    }

    /// A text segment at the lexer's position.
    @inline(never)
    private mutating func scanTextSegment() -> TextSegment {
        let start = lexer.location
        if lexer.peek() == UInt8(ascii: "{") {
            skipBracedSegment(at: start)
            return .skipped
        }
        if let text = lexer.scanPathText() {
            return .text(text)
        }
        error("expected a path segment after '/'", at: start)
        return .missing
    }

    /// Reports and skips `{name}` written where `$(name)` belongs.
    private mutating func skipBracedSegment(at start: SourceLocation) {
        while let byte = lexer.peek(), byte > 0x20, byte != UInt8(ascii: "/"), byte != UInt8(ascii: ")") {
            lexer.bump()
            if byte == UInt8(ascii: "}") { break }
        }
        error("'{...}' is not allowed in a path literal; write $(name) to insert a value", at: start)
    }
}
