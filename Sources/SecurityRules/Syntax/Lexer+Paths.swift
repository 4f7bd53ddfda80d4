/// Raw scanning of paths, which are written without spaces and are not made of tokens: `match` patterns
/// (`/users/{userId}/{rest=**}`) and the text segments of path literals (`/databases/(default)/documents`).
///
/// Segment text is letters, digits and `_ - . ~ %`, and may contain a parenthesized part such as `(default)`.
extension Lexer {
    /// Whether `byte` may appear in the text of a path segment.
    static func isPathText(_ byte: UInt8) -> Bool {
        ByteClass.identifierContinue(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "~") || byte == UInt8(ascii: "%")
    }

    /// Whether the next byte continues segment text (a text byte or an opening parenthesis).
    var atPathText: Bool {
        peek(is: Self.isPathText) || peek() == UInt8(ascii: "(")
    }

    /// The text of one path segment, consumed; `nil` if the next byte starts none.
    mutating func scanPathText() -> String? {
        let begin = offset
        while let byte = peek() {
            if Self.isPathText(byte) {
                bump()
            } else if byte == UInt8(ascii: "(") {
                let start = location
                bump()
                while peek(is: Self.isPathText) { bump() }
                if !consume(UInt8(ascii: ")")) {
                    error("expected ')' to close '(' in path segment", at: start)
                }
            } else {
                break
            }
        }
        return offset > begin ? String(decoding: bytes[begin..<offset], as: UTF8.self) : nil
    }

    /// The segments of a `match` pattern; the lexer has just consumed the pattern's leading `/`.
    mutating func scanMatchPattern() -> [PathPatternSegment] {
        var segments: [PathPatternSegment] = []
        var continuesSegment = false
        while true {
            let start = location
            if continuesSegment {
                error("a path segment cannot mix text and wildcards", at: start)
            }
            if peek() == UInt8(ascii: "{") {
                segments.append(wildcard())
            } else if let text = scanPathText() {
                segments.append(.literal(text))
            } else {
                error("expected a path segment after '/'", at: start)
                return segments
            }
            if consume(UInt8(ascii: "/")) {
                continuesSegment = false
            } else if atPathText || (peek() == UInt8(ascii: "{") && looksLikeWildcard()) {
                continuesSegment = true
            } else {
                return segments
            }
        }
    }

    /// `{name}` or `{name=**}`; the next byte is `{`.
    private mutating func wildcard() -> PathPatternSegment {
        let start = location
        bump()
        skipSpaces()
        let name = scanIdentifier()
        if name.isEmpty {
            error("expected a wildcard name after '{'", at: location)
        }
        skipSpaces()
        var recursive = false
        if consume(UInt8(ascii: "=")) {
            skipSpaces()
            if peek() == UInt8(ascii: "*"), peek(1) == UInt8(ascii: "*") {
                bump()
                bump()
                recursive = true
            } else {
                error("expected '**' after '=' in a wildcard", at: location)
                while peek() == UInt8(ascii: "*") { bump() }
            }
            skipSpaces()
        }
        if !consume(UInt8(ascii: "}")) {
            error("expected '}' to close the wildcard opened at \(start)", at: location)
            while let byte = peek(), byte != UInt8(ascii: "/"), byte != UInt8(ascii: "{"), byte > 0x20 {
                bump()
                if byte == UInt8(ascii: "}") { break }
            }
        }
        return recursive ? .recursive(name) : .variable(name)
    }

    /// Whether a `{` at the next byte opens a wildcard (`{name}`, `{name=**}`) rather than a block.
    private func looksLikeWildcard() -> Bool {
        var ahead = 1
        while peek(ahead) == UInt8(ascii: " ") { ahead += 1 }
        guard peek(ahead, is: ByteClass.identifierStart) else { return false }
        while peek(ahead, is: ByteClass.identifierContinue) { ahead += 1 }
        while peek(ahead) == UInt8(ascii: " ") { ahead += 1 }
        return peek(ahead) == UInt8(ascii: "}") || peek(ahead) == UInt8(ascii: "=")
    }

    /// Skips spaces and tabs (allowed inside a wildcard's braces).
    private mutating func skipSpaces() {
        while peek() == UInt8(ascii: " ") || peek() == UInt8(ascii: "\t") { bump() }
    }
}
