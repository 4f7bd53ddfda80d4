/// Turns rules text into tokens, one at a time, as the parser asks for them.
///
/// The lexer only ever moves forward. Paths (`match /users/{id}` and `/databases/$(db)/documents`) are not
/// tokens: when the parser meets a `/` where a path belongs, it scans the path's characters itself through
/// the raw helpers in `Lexer+Paths.swift`, starting right after that `/`.
///
/// Lines and columns count from 1; a column counts Unicode scalars, as production's ANTLR-based compiler does.
/// Errors are collected as diagnostics and a best-effort token is returned, so lexing never stops early.
struct Lexer {
    /// The file diagnostics name.
    let fileName: String
    /// The text as UTF-8.
    let bytes: [UInt8]
    /// The next byte to read.
    private(set) var offset = 0
    /// The line of `offset`.
    private(set) var line = 1
    /// The column of `offset`.
    private(set) var column = 1
    /// Errors found so far.
    private(set) var diagnostics: [Diagnostic] = []
    /// While set, characters that start no token are skipped without a diagnostic (the parser is skipping
    /// a statement it has already reported).
    var isQuiet = false

    /// A lexer at the start of `text`.
    init(_ text: String, fileName: String) {
        self.fileName = fileName
        self.bytes = Array(text.utf8)
    }

    /// Where the next byte is.
    var location: SourceLocation { SourceLocation(line: line, column: column) }

    /// The byte `ahead` positions after the next one, if any.
    func peek(_ ahead: Int = 0) -> UInt8? {
        offset + ahead < bytes.count ? bytes[offset + ahead] : nil
    }

    /// Whether the byte `ahead` positions after the next one exists and passes `test`.
    func peek(_ ahead: Int = 0, is test: (UInt8) -> Bool) -> Bool {
        peek(ahead).map(test) ?? false
    }

    /// Consumes one byte, keeping line and column up to date.
    mutating func bump() {
        guard offset < bytes.count else { return }
        let byte = bytes[offset]
        offset += 1
        if byte == UInt8(ascii: "\n") {
            line += 1
            column = 1
        } else if byte & 0xC0 != 0x80 {
            column += 1
        }
    }

    /// Consumes the next byte if it is `byte`.
    mutating func consume(_ byte: UInt8) -> Bool {
        guard peek() == byte else { return false }
        bump()
        return true
    }

    /// Jumps to the end of the text (used when the parser gives up).
    mutating func skipToEnd() {
        while offset < bytes.count { bump() }
    }

    /// Records an error.
    mutating func error(_ message: String, at location: SourceLocation) {
        diagnostics.append(Diagnostic(.error, message, fileName: fileName, at: location))
    }

    /// The next token, skipping whitespace and comments.
    @inline(never)
    mutating func next() -> Token {
        while true {
            skipTrivia()
            let start = location
            guard let byte = peek() else { return Token(kind: .endOfFile, location: start) }
            if ByteClass.identifierStart(byte) { return word(at: start) }
            if ByteClass.digit(byte) || (byte == UInt8(ascii: ".") && peek(1, is: ByteClass.digit)) { return number(at: start) }
            if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                return Token(kind: string(raw: false, bytes: false, at: start), location: start)
            }
            if let symbol = symbol() { return Token(kind: .symbol(symbol), location: start) }
            unexpectedCharacter(at: start)
        }
    }

    /// An identifier or keyword, or a prefixed string literal (`r'...'`, `b'...'`, `rb'...'`).
    private mutating func word(at start: SourceLocation) -> Token {
        let text = scanIdentifier()
        if let quote = peek(), quote == UInt8(ascii: "'") || quote == UInt8(ascii: "\""),
           let prefix = StringPrefix(text) {
            return Token(kind: string(raw: prefix.raw, bytes: prefix.bytes, at: start), location: start)
        }
        return Token(kind: .word(text), location: start)
    }

    /// Consumes `[A-Za-z0-9_]*` and returns it (empty if the next byte does not start a name).
    mutating func scanIdentifier() -> String {
        let begin = offset
        guard peek(is: ByteClass.identifierStart) else { return "" }
        while peek(is: ByteClass.identifierContinue) { bump() }
        return String(decoding: bytes[begin..<offset], as: UTF8.self)
    }

    /// An operator or punctuation, consumed; `nil` (nothing consumed) if the next byte starts none.
    private mutating func symbol() -> Symbol? {
        guard let byte = peek() else { return nil }
        let second = peek(1)
        let symbol: Symbol?
        switch byte {
        case UInt8(ascii: "!"): symbol = second == UInt8(ascii: "=") ? .notEqual : .bang
        case UInt8(ascii: "="): symbol = second == UInt8(ascii: "=") ? .equalEqual : .assign
        case UInt8(ascii: "<"): symbol = second == UInt8(ascii: "=") ? .lessOrEqual : .less
        case UInt8(ascii: ">"): symbol = second == UInt8(ascii: "=") ? .greaterOrEqual : .greater
        case UInt8(ascii: "+") where second == byte, UInt8(ascii: "-") where second == byte:
            // `++` and `--` are no operators (`- -1` is a double negation), as the official parser says.
            error("Increment (++) and decrement (--) operators are not supported.", at: location)
            bump()
            bump()
            return byte == UInt8(ascii: "+") ? .plus : .minus
        case UInt8(ascii: "&"), UInt8(ascii: "|"):
            let double: Symbol = byte == UInt8(ascii: "&") ? .andAnd : .orOr
            if second != byte {
                // A lone '&' or '|' is read as the operator it almost certainly means, after saying so.
                error("unexpected character '\(UnicodeScalar(byte))' (did you mean '\(double.rawValue)'?)", at: location)
                bump()
                return double
            }
            symbol = double
        default: symbol = Symbol(rawValue: String(UnicodeScalar(byte)))
        }
        guard let symbol else { return nil }
        for _ in symbol.rawValue.utf8 { bump() }
        return symbol
    }

    /// Reports and skips a character that starts no token.
    private mutating func unexpectedCharacter(at start: SourceLocation) {
        let begin = offset
        bump()
        while let byte = peek(), byte & 0xC0 == 0x80 { bump() }
        let character = String(decoding: bytes[begin..<offset], as: UTF8.self)
        if !isQuiet {
            error("unexpected character '\(character)'", at: start)
        }
    }

    /// Skips whitespace, `// line` and `/* block */` comments.
    private mutating func skipTrivia() {
        while let byte = peek() {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), 0x0B, 0x0C:
                bump()
            case UInt8(ascii: "/") where peek(1) == UInt8(ascii: "/"):
                while let next = peek(), next != UInt8(ascii: "\n") { bump() }
            case UInt8(ascii: "/") where peek(1) == UInt8(ascii: "*"):
                let start = location
                bump()
                bump()
                while peek() != nil, !(peek() == UInt8(ascii: "*") && peek(1) == UInt8(ascii: "/")) { bump() }
                if peek() == nil {
                    error("unterminated block comment", at: start)
                } else {
                    bump()
                    bump()
                }
            default:
                return
            }
        }
    }
}

/// The letters that may prefix a string literal: `r` (raw, no escapes) and `b` (bytes), in either case and order.
private struct StringPrefix {
    var raw = false
    var bytes = false

    init?(_ text: String) {
        guard (1...2).contains(text.utf8.count) else { return nil }
        for letter in text.lowercased() {
            switch letter {
            case "r" where !raw: raw = true
            case "b" where !bytes: bytes = true
            default: return nil
            }
        }
    }
}

/// The byte classes the lexer tests (ASCII only: names and numbers are ASCII in the rules language).
enum ByteClass {
    /// `0-9`.
    static func digit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    /// `0-9`, `a-f`, `A-F`.
    static func hexDigit(_ byte: UInt8) -> Bool {
        digit(byte) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F"))
    }
    /// `A-Z`, `a-z`, `_`.
    static func identifierStart(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || byte == UInt8(ascii: "_")
    }
    /// `A-Z`, `a-z`, `_`, `0-9`.
    static func identifierContinue(_ byte: UInt8) -> Bool { identifierStart(byte) || digit(byte) }
}
