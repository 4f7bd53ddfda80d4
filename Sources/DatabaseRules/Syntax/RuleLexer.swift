/// A token of a rule expression.
struct RuleToken: Equatable {
    enum Kind: Equatable {
        case identifier(String)
        case number(Double)
        case string(String)
        /// An operator or punctuation: `( ) [ ] . , ? : ! != == < <= > >= && || + - * / %` (`===` and
        /// `!==` arrive as `==` and `!=`).
        case symbol(String)
        case end
    }

    var kind: Kind
    /// The index of its first scalar in the expression.
    var start: Int
}

/// Splits an expression into tokens on demand; the parser asks for a regular expression literal where
/// one may stand (`matches`' argument), since `/` is otherwise division.
struct RuleLexer {
    private let text: RulesJSON.Text
    private var index = 0

    init(_ text: RulesJSON.Text) {
        self.text = text
    }

    /// The file location of the expression's scalar at `offset` (the closing quote past the end).
    func location(_ offset: Int) -> SourceLocation {
        text.locations[min(offset, text.locations.count - 1)]
    }

    private var scalars: [Unicode.Scalar] { text.scalars }
    private func at(_ offset: Int) -> Unicode.Scalar? { offset < scalars.count ? scalars[offset] : nil }

    private func error(_ reason: String, at offset: Int) -> DatabaseRulesError {
        DatabaseRulesError(reason, at: location(offset))
    }

    mutating func next() throws(DatabaseRulesError) -> RuleToken {
        while let scalar = at(index), scalar.properties.isWhitespace { index += 1 }
        let start = index
        guard let scalar = at(index) else { return RuleToken(kind: .end, start: start) }
        if Self.isIdentifierStart(scalar) {
            while let next = at(index), Self.isIdentifierPart(next) { index += 1 }
            return RuleToken(kind: .identifier(String(String.UnicodeScalarView(scalars[start..<index]))), start: start)
        }
        if ("0"..."9").contains(scalar) || (scalar == "." && at(index + 1).map { ("0"..."9").contains($0) } == true) {
            return RuleToken(kind: .number(try readNumber()), start: start)
        }
        if scalar == "'" || scalar == "\"" {
            return RuleToken(kind: .string(try readString(quote: scalar)), start: start)
        }
        for symbol in Self.symbols where matches(symbol) {
            index += symbol.unicodeScalars.count
            let normalized = symbol == "===" ? "==" : symbol == "!==" ? "!=" : symbol
            return RuleToken(kind: .symbol(normalized), start: start)
        }
        if scalar == "=" { throw error("Unexpected '=': use '==' to compare.", at: start) }
        if scalar == "&" || scalar == "|" { throw error("Unexpected '\(scalar)': use '\(scalar)\(scalar)'.", at: start) }
        throw error("Unexpected character '\(scalar)'.", at: start)
    }

    /// Longest first.
    private static let symbols = [
        "===", "!==", "==", "!=", "<=", ">=", "&&", "||",
        "(", ")", "[", "]", ".", ",", "?", ":", "!", "<", ">", "+", "-", "*", "/", "%",
    ]

    private func matches(_ symbol: String) -> Bool {
        var offset = index
        for expected in symbol.unicodeScalars {
            guard at(offset) == expected else { return false }
            offset += 1
        }
        return true
    }

    static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || scalar == "_" || scalar == "$"
    }

    static func isIdentifierPart(_ scalar: Unicode.Scalar) -> Bool {
        isIdentifierStart(scalar) || ("0"..."9").contains(scalar)
    }

    private mutating func readNumber() throws(DatabaseRulesError) -> Double {
        let start = index
        func isDigit(_ scalar: Unicode.Scalar?) -> Bool { scalar.map { ("0"..."9").contains($0) } ?? false }
        while isDigit(at(index)) { index += 1 }
        if at(index) == ".", isDigit(at(index + 1)) {
            index += 1
            while isDigit(at(index)) { index += 1 }
        }
        if at(index) == "e" || at(index) == "E" {
            var offset = index + 1
            if at(offset) == "+" || at(offset) == "-" { offset += 1 }
            if isDigit(at(offset)) {
                index = offset
                while isDigit(at(index)) { index += 1 }
            }
        }
        if let next = at(index), Self.isIdentifierStart(next) {
            throw error("Unexpected '\(next)' after a number.", at: index)
        }
        let literal = String(String.UnicodeScalarView(scalars[start..<index]))
        guard let number = Double(literal) else { throw error("Invalid number '\(literal)'.", at: start) }
        return number
    }

    private mutating func readString(quote: Unicode.Scalar) throws(DatabaseRulesError) -> String {
        let start = index
        index += 1
        var result = String.UnicodeScalarView()
        while true {
            guard let scalar = at(index) else { throw error("Unterminated string literal.", at: start) }
            index += 1
            if scalar == quote { return String(result) }
            guard scalar == "\\" else {
                result.append(scalar)
                continue
            }
            guard let escape = at(index) else { throw error("Unterminated string literal.", at: start) }
            index += 1
            switch escape {
            case "n": result.append("\n")
            case "t": result.append("\t")
            case "r": result.append("\r")
            case "b": result.append("\u{8}")
            case "f": result.append("\u{C}")
            case "0": result.append("\0")
            case "u":
                guard index + 4 <= scalars.count,
                    let value = UInt32(String(String.UnicodeScalarView(scalars[index..<(index + 4)])), radix: 16),
                    let decoded = Unicode.Scalar(value)
                else { throw error("Invalid \\u escape.", at: index - 2) }
                result.append(decoded)
                index += 4
            default: result.append(escape)  // \' \" \\ \/ and any other character stand for themselves
            }
        }
    }

    /// Reads `/pattern/flags` starting at `offset` (a `/` token's start), leaving the lexer after it.
    mutating func readRegex(at offset: Int) throws(DatabaseRulesError) -> (pattern: String, flags: String) {
        index = offset + 1
        var pattern = String.UnicodeScalarView()
        var inClass = false
        while true {
            guard let scalar = at(index) else { throw error("Unterminated regular expression.", at: offset) }
            index += 1
            if scalar == "/" && !inClass { break }
            pattern.append(scalar)
            if scalar == "\\", let escaped = at(index) {
                pattern.append(escaped)
                index += 1
            } else if scalar == "[" {
                inClass = true
            } else if scalar == "]" {
                inClass = false
            }
        }
        let flagsStart = index
        while let scalar = at(index), Self.isIdentifierPart(scalar) { index += 1 }
        return (String(pattern), String(String.UnicodeScalarView(scalars[flagsStart..<index])))
    }
}
