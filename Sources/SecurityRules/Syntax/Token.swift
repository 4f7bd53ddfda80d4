/// A lexical token of the rules language, with where it starts.
///
/// Keywords are not a kind of their own: `allow`, `match`, `in`, `is`, `true`... are `.word`s, and the parser
/// decides from context what a word means (so `get`, `list` and `path` stay usable as names).
struct Token: Equatable {
    /// What the token is.
    enum Kind: Equatable {
        /// An identifier or keyword: `[A-Za-z_][A-Za-z0-9_]*`.
        case word(String)
        /// An integer literal's magnitude; the parser checks it fits in `Int64`.
        case int(UInt64)
        /// A floating-point literal.
        case float(Double)
        /// A string literal, escapes resolved.
        case string(String)
        /// A bytes literal (`b'...'`), escapes resolved.
        case bytes([UInt8])
        /// Punctuation or an operator.
        case symbol(Symbol)
        /// The end of the text.
        case endOfFile
    }

    /// What the token is.
    var kind: Kind
    /// Where its first character is.
    var location: SourceLocation

    /// The token as a diagnostic names it: `')'`, `'foo'`, `string literal`, `end of file`.
    var description: String {
        switch kind {
        case .word(let word): return "'\(word)'"
        case .int(let value): return "'\(value)'"
        case .float(let value): return "'\(value)'"
        case .string: return "string literal"
        case .bytes: return "bytes literal"
        case .symbol(let symbol): return "'\(symbol.rawValue)'"
        case .endOfFile: return "end of file"
        }
    }
}

/// The punctuation and operators of the rules language.
enum Symbol: String, CaseIterable {
    case leftParen = "("
    case rightParen = ")"
    case leftBracket = "["
    case rightBracket = "]"
    case leftBrace = "{"
    case rightBrace = "}"
    case comma = ","
    case semicolon = ";"
    case colon = ":"
    case dot = "."
    case question = "?"
    case bang = "!"
    case notEqual = "!="
    case equalEqual = "=="
    case assign = "="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case andAnd = "&&"
    case orOr = "||"
    case plus = "+"
    case minus = "-"
    case star = "*"
    case slash = "/"
    case percent = "%"
}
